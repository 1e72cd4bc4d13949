package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annals-dev/annals"
)

// BenchmarkAppendSubstringIndex is what the substring index (migration 0009) costs a capture:
// batches of 100 corpus entries appended with its triggers in place, and with them dropped.
//
//	go test ./sqlite -run '^$' -bench AppendSubstringIndex -count 6
func BenchmarkAppendSubstringIndex(b *testing.B) {
	pool := corpusEntries(b, 5000)
	for _, indexed := range []bool{true, false} {
		b.Run(fmt.Sprintf("index=%v", indexed), func(b *testing.B) {
			ctx := context.Background()
			db := MustOpenDB(b)
			if !indexed {
				// Every pk is left to a backfill that never runs, so nothing writes the index.
				if err := db.ExecForTest(ctx, `INSERT INTO entries_tri_todo (done, last) VALUES (0, 9223372036854775807)`); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "bench", TenantID: "t"}); err != nil {
				b.Fatal(err)
			}
			batch := make([]*annals.Entry, 100)
			next, appended := 0, 0
			for b.Loop() {
				b.StopTimer()
				for i := range batch {
					e := *pool[next%len(pool)]
					e.ID = fmt.Sprintf("e%d", next)
					batch[i] = &e
					next++
				}
				b.StartTimer()
				res, err := annals.AppendEntries(ctx, db, "bench", batch)
				if err != nil {
					b.Fatal(err)
				}
				appended += res.Appended
			}
			b.ReportMetric(float64(appended)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
