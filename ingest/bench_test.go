package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

// benchEntries is the corpus size of BenchmarkIngest: large enough that per-batch costs and
// index growth show, small enough for a few iterations in a minute on a 2-core machine.
const benchEntries = 20000

// BenchmarkIngest measures the whole ingest path (validate pass, apply pass, SQLite writes with
// their FTS5 triggers) on a synthetic corpus, into a fresh database per iteration. Generating
// the corpus and opening the database (migrations) are outside the timer; closing it, which
// checkpoints the WAL, is too, since a long-lived process would pay that later.
//
//	go test -run '^$' -bench BenchmarkIngest -benchtime 3x ./ingest/
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "corpus.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	st, err := corpus.Write(f, corpus.Options{Seed: 1, Entries: benchEntries}, nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes) // go test reports MB/s of capture format

	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("bench-%d.db", i)), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		in, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()

		rep, err := ingest.Ingest(ctx, db, in, ingest.Options{})

		b.StopTimer()
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		if rep.EntriesAppended != st.Entries {
			b.Fatalf("appended %d entries, the corpus has %d", rep.EntriesAppended, st.Entries)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(st.Entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}
