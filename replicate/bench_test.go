package replicate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// BenchmarkPushDrain measures draining a backlog over loopback into a SQLite remote: chats x
// entries appended in batches of 50 on the host, then one push pass after another until the
// queue is empty. It reports entries and operations pushed per second (docs/BENCHMARKS.md).
func BenchmarkPushDrain(b *testing.B) {
	const chats, perChat, batch = 50, 400, 50
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		r := newRemote(b)
		host := newHost(b)
		for c := range chats {
			id := fmt.Sprintf("chat-%03d", c)
			if _, err := annals.CreateChat(ctx, host, &annals.Chat{ID: id, TenantID: "laptop"}); err != nil {
				b.Fatal(err)
			}
			for start := 0; start < perChat; start += batch {
				es := make([]*annals.Entry, batch)
				for i := range es {
					es[i] = &annals.Entry{ID: fmt.Sprintf("e%05d", start+i), Kind: annals.KindAssistant,
						Text: fmt.Sprintf("entry %d of %s: a sentence of ordinary length about the build and its tests", start+i, id)}
				}
				if _, err := annals.AppendEntries(ctx, host, id, es); err != nil {
					b.Fatal(err)
				}
			}
		}
		lanes, _ := host.OutboxLanes(ctx, true)
		ops := 0
		for _, l := range lanes {
			ops += l.Pending
		}
		p := New(Config{Endpoint: r.url, Key: r.key, Store: host})
		b.StartTimer()
		start := time.Now()
		for {
			rep, err := p.PushOnce(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if rep.Pushed == 0 {
				break
			}
		}
		secs := time.Since(start).Seconds()
		b.ReportMetric(float64(chats*perChat)/secs, "entries/s")
		b.ReportMetric(float64(ops)/secs, "ops/s")
	}
}
