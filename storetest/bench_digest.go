package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// BenchDigestScan fills s with n chats of one entry each, active a minute apart and never
// digested, and times the digest worker's walk over them: FindDigestStates page by page (100
// a page, after the last page's position), as history.Service.digestWalk reads them on every
// pass. It reports the chats listed per walk and, when cpu is given (the process's CPU time:
// an in-process store's work), the CPU per walk. Both backends run it (docs/BENCHMARKS.md).
func BenchDigestScan(b *testing.B, s DigestStore, n int, cpu func() time.Duration) {
	ctx := b.Context()
	start := time.Now().Add(-time.Duration(n) * time.Minute).UTC()
	for done := 0; done < n; {
		ops := make([]annals.CaptureOp, 0, 1000)
		for i := 0; i < 500 && done < n; i++ {
			id := fmt.Sprintf("chat-%06d", done)
			at := start.Add(time.Duration(done) * time.Minute)
			ops = append(ops, annals.CaptureOp{Chat: &annals.Chat{ID: id, TenantID: "A", CreatedAt: at}},
				annals.CaptureOp{Append: &annals.AppendOp{ChatID: id, Entries: []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "words", Time: at}}}})
			done++
		}
		if _, err := s.Capture(ctx, ops); err != nil {
			b.Fatal(err)
		}
	}
	listed := 0
	var used time.Duration
	for b.Loop() {
		var before time.Duration
		if cpu != nil {
			before = cpu()
		}
		listed = 0
		f := annals.DigestStateFilter{Limit: 100}
		for {
			page, err := s.FindDigestStates(ctx, f)
			if err != nil {
				b.Fatal(err)
			}
			listed += len(page)
			if len(page) < f.Limit {
				break
			}
			last := page[len(page)-1].Chat
			f.AfterActivity, f.AfterID = last.LastActivity, last.ID
		}
		if cpu != nil {
			used += cpu() - before
		}
	}
	if listed != n {
		b.Fatalf("a walk listed %d chats; want all %d", listed, n)
	}
	b.ReportMetric(float64(listed), "chats/walk")
	if cpu != nil {
		b.ReportMetric(float64(used.Microseconds())/1e3/float64(b.N), "cpu-ms/walk")
	}
}
