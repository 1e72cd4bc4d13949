package postgres_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

// benchStore is the database BenchmarkSearch queries: ANNALS_BENCH_POSTGRES_DSN when set (a
// database already holding a corpus, e.g. `annals ingest --db postgres://... corpus.jsonl`), else
// a fresh schema with a corpus of ANNALS_BENCH_ENTRIES entries (default 20000) ingested.
func benchStore(b *testing.B) annals.Store {
	b.Helper()
	if dsn := os.Getenv("ANNALS_BENCH_POSTGRES_DSN"); dsn != "" {
		return MustOpen(b, dsn, postgres.Options{})
	}
	s := MustOpenDB(b)
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("ANNALS_BENCH_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 1, Entries: n}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := ingest.Ingest(context.Background(), s, bytes.NewReader(buf.Bytes()), ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	if err := s.ExecForTest(context.Background(), `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSearch times a ranked chat search (top 20, three snippets each, every tenant) for each
// planted marker term of the corpus, rarest first, and an entry-mode search, a two-word phrase
// and a prefix on the medium term. The same benchmark runs on SQLite (sqlite/bench_test.go).
//
//	ANNALS_TEST_POSTGRES_DSN=... go test ./postgres -run '^$' -bench Search -benchtime 30x
func BenchmarkSearch(b *testing.B) {
	testDSN(b)
	s := benchStore(b)
	storetest.BenchSearch(b, s)
}

// BenchmarkResolve times the candidates of an id resolution at 100,000 chats in one tenant
// (ANNALS_BENCH_RESOLVE_CHATS to change): the old scan and the chat_id_keys ranges side by side.
//
//	ANNALS_TEST_POSTGRES_DSN=... go test ./postgres -run '^$' -bench Resolve -benchtime 20x
func BenchmarkResolve(b *testing.B) {
	testDSN(b)
	storetest.BenchResolve(b, MustOpenDB(b), storetest.ResolveBenchChats(b))
}

// BenchmarkIngest times ingest.Ingest of a generated corpus of ANNALS_BENCH_ENTRIES entries
// (default 20000) into a fresh schema per round, and reports entries per second. The bench
// command's ingest scenario measures the same side by side with SQLite (docs/BENCHMARKS.md).
//
//	ANNALS_TEST_POSTGRES_DSN=... go test ./postgres -run '^$' -bench Ingest -benchtime 1x
func BenchmarkIngest(b *testing.B) {
	testDSN(b)
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("ANNALS_BENCH_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 1, Entries: n}, nil); err != nil {
		b.Fatal(err)
	}
	var appended int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s := MustOpenDB(b)
		b.StartTimer()
		rep, err := ingest.Ingest(context.Background(), s, bytes.NewReader(buf.Bytes()), ingest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		appended += rep.EntriesAppended
	}
	b.ReportMetric(float64(appended)/b.Elapsed().Seconds(), "entries/s")
}
