package sqlite_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// benchStore is the database BenchmarkSearch queries: ANNALS_BENCH_SQLITE when set (a file
// already holding a corpus, e.g. `annals ingest --db FILE corpus.jsonl`), else a fresh file with a
// corpus of ANNALS_BENCH_ENTRIES entries (default 20000) ingested.
func benchStore(b *testing.B) annals.Store {
	b.Helper()
	if path := os.Getenv("ANNALS_BENCH_SQLITE"); path != "" {
		db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
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
// and a prefix on the medium term. The same benchmark runs on PostgreSQL (postgres/bench_test.go).
//
//	go test ./sqlite -run '^$' -bench Search -benchtime 30x
func BenchmarkSearch(b *testing.B) {
	s := benchStore(b)
	storetest.BenchSearch(b, s)
}
