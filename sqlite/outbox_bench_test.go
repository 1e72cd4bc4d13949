//go:build unix

package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

// corpusOps decodes a generated corpus into its capture ops (chats, appends, runs) and counts
// its entries.
func corpusOps(b *testing.B, entries int) ([]annals.CaptureOp, int) {
	b.Helper()
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 5, Entries: entries}, nil); err != nil {
		b.Fatal(err)
	}
	dec := ingest.NewDecoder(&buf)
	var ops []annals.CaptureOp
	n := 0
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return ops, n
		}
		if err != nil {
			b.Fatal(err)
		}
		if line.Op.Append != nil {
			n += len(line.Op.Append.Entries)
		}
		ops = append(ops, line.Op)
	}
}

// BenchmarkIngestOutbox ingests the same generated corpus (10k entries, in capture batches of
// 500 ops as `annals ingest` sends them) into a fresh database with the replication outbox off
// and on, for docs/BENCHMARKS.md: entries/s is the number to compare.
//
//	go test ./sqlite -run '^$' -bench IngestOutbox -benchtime 3x -count 3
func BenchmarkIngestOutbox(b *testing.B) {
	ops, entries := corpusOps(b, 10000)
	for _, on := range []bool{false, true} {
		name := "outbox=off"
		if on {
			name = "outbox=on"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			var size int64
			cpu0 := cpuTime()
			for b.Loop() {
				b.StopTimer()
				db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if on {
					if _, err := db.SetOutbox(ctx, true); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				for i := 0; i < len(ops); i += 500 {
					if _, err := db.Capture(ctx, ops[i:min(i+500, len(ops))]); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				db.Close()
				if fi, err := os.Stat(db.Path()); err == nil {
					size = fi.Size()
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
			b.ReportMetric(float64(size)/(1<<20), "MiB")
			// CPU seconds of the process (the writer's work and the driver's), a steadier
			// number than wall time on a loaded machine; it includes the untimed opens and
			// closes, the same for both.
			b.ReportMetric(float64(entries)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "entries/cpu-s")
		})
	}
}
