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

// BenchmarkFindEmbeddings times the candidate read of related at the cap (2,000 newest chats
// with a vector, every tenant), the store's part of a related call. It needs a database whose
// chats are embedded, e.g. one the bench's related scenario ran on:
//
//	ANNALS_BENCH_SQLITE=bench.db go test ./sqlite -run '^$' -bench FindEmbeddings -benchtime 20x
func BenchmarkFindEmbeddings(b *testing.B) {
	if os.Getenv("ANNALS_BENCH_SQLITE") == "" {
		b.Skip("needs ANNALS_BENCH_SQLITE, a database with embeddings")
	}
	s := benchStore(b)
	ctx := context.Background()
	var model string
	if err := s.(*sqlite.DB).QueryRowForTest(ctx, `SELECT model FROM chat_embeddings LIMIT 1`, &model); err != nil {
		b.Fatal(err)
	}
	f := annals.EmbeddingFilter{Owner: annals.Owner{AllTenants: true}, Model: model, Limit: annals.DefaultCandidateCap}
	// warm: the vectors are in the store's cache from the call before, as in a server; cold: a
	// first call, every vector read from the file.
	for _, cold := range []bool{false, true} {
		b.Run(map[bool]string{false: "warm", true: "cold"}[cold], func(b *testing.B) {
			for b.Loop() {
				if cold {
					s.(*sqlite.DB).DropVectorCacheForTest()
				}
				vs, err := s.FindEmbeddings(ctx, f)
				if err != nil || len(vs) == 0 {
					b.Fatalf("%d candidates, err %v", len(vs), err)
				}
			}
		})
	}
}

// BenchmarkResolve times the candidates of an id resolution at 100,000 chats in one tenant
// (ANNALS_BENCH_RESOLVE_CHATS to change): the old scan and the chat_id_keys ranges side by side.
//
//	go test ./sqlite -run '^$' -bench Resolve -benchtime 20x
func BenchmarkResolve(b *testing.B) {
	storetest.BenchResolve(b, MustOpenDB(b), storetest.ResolveBenchChats(b))
}

// BenchmarkIngest times ingest.Ingest of a generated corpus of ANNALS_BENCH_ENTRIES entries
// (default 20000) into a fresh file per round, and reports entries per second: the same corpus
// and calls as postgres.BenchmarkIngest, so the two stores' capture rates can be taken side by
// side (issue 33 item 6; docs/BENCHMARKS.md, notes/pgwrite-quiet.sh).
//
//	go test ./sqlite -run '^$' -bench Ingest -benchtime 1x
func BenchmarkIngest(b *testing.B) {
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
