package replicate

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/internal/pgtest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/view"
)

// benchStore is a store a remote runs on in the benchmarks.
type benchStore interface {
	history.Store
	view.Store
	annals.KeyStore
}

// benchRemotes opens a fresh store of each kind (PostgreSQL only with ANNALS_TEST_POSTGRES_DSN).
var benchRemotes = []struct {
	name string
	open func(b *testing.B) benchStore
}{
	{"sqlite", func(b *testing.B) benchStore { return openSQLite(b, filepath.Join(b.TempDir(), "remote.db")) }},
	{"postgres", func(b *testing.B) benchStore {
		db, err := postgres.Open(context.Background(), pgtest.FreshSchema(b), postgres.Options{PoolSize: 8})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	}},
}

// serveRemote runs a remote server on 127.0.0.1:0 over s, with an operator key.
func serveRemote(b *testing.B, s benchStore) (*history.Service, string, string) {
	svc := history.New(history.Config{Store: s, View: s})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Replica: svc, Keys: s})
	if err := srv.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return svc, srv.URL(), newKey(b, s, annals.RoleOperator)
}

// benchEntries reads a size from the environment (docs/BENCHMARKS.md runs name theirs).
func benchEntries(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// backlogOps are the chats and entry batches of a backlog: chats of perChat entries, appended
// in batches of 50.
func backlogOps(chats, perChat int) [][]annals.CaptureOp {
	var txs [][]annals.CaptureOp
	for c := range chats {
		id := fmt.Sprintf("chat-%03d", c)
		txs = append(txs, []annals.CaptureOp{{Chat: &annals.Chat{ID: id, TenantID: "team"}}})
		for start := 0; start < perChat; start += 50 {
			es := make([]*annals.Entry, 0, 50)
			for i := start; i < min(start+50, perChat); i++ {
				es = append(es, &annals.Entry{ID: fmt.Sprintf("e%05d", i), Kind: annals.KindAssistant,
					Text: fmt.Sprintf("entry %d of %s: a sentence of ordinary length about the build and its tests", i, id)})
			}
			txs = append(txs, []annals.CaptureOp{{Append: &annals.AppendOp{ChatID: id, Entries: es}}})
		}
	}
	return txs
}

// BenchmarkReplicateBacklog drains a backlog (ANNALS_BENCH_ENTRIES entries, default 20,000,
// in chats of 1,000 appended 50 at a time) over loopback into a SQLite and a PostgreSQL remote,
// and, side by side, captures the same transactions into a fresh store of the same kind through
// its own history service (what `annals ingest` does): the target is a drain at least
// 0.8x that ingest rate.
func BenchmarkReplicateBacklog(b *testing.B) {
	total := benchEntries("ANNALS_BENCH_ENTRIES", 20000)
	txs := backlogOps(max(total/1000, 1), min(total, 1000))
	ctx := context.Background()
	for _, rk := range benchRemotes {
		b.Run(rk.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				svc, _, _ := serveRemote(b, rk.open(b))
				p := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
				start := time.Now()
				for _, tx := range txs {
					if _, err := svc.Capture(p, tx); err != nil {
						b.Fatal(err)
					}
				}
				ingest := time.Since(start).Seconds()

				_, url, key := serveRemote(b, rk.open(b))
				host := newHost(b)
				for _, tx := range txs {
					if _, err := host.Capture(ctx, tx); err != nil {
						b.Fatal(err)
					}
				}
				pusher := New(Config{Endpoint: url, Key: key, Store: host})
				b.StartTimer()
				start = time.Now()
				for {
					rep, err := pusher.PushOnce(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if rep.Pushed == 0 {
						break
					}
				}
				drain := time.Since(start).Seconds()
				b.ReportMetric(float64(total)/drain, "pushed-entries/s")
				b.ReportMetric(float64(len(txs))/drain, "ops/s")
				b.ReportMetric(float64(total)/ingest, "ingest-entries/s")
				b.ReportMetric(ingest/drain, "x-ingest")
			}
		})
	}
}

// BenchmarkReplicateLag captures a steady 100 entries a second (ANNALS_BENCH_SECONDS, default
// 10) into ten chats on a host whose push worker runs (its default poll, or
// ANNALS_BENCH_POLL_MS), and reports the replication lag — from an entry's capture to the
// remote holding it, seen by polling the remote's store every 5 ms — at p50 and p99.
func BenchmarkReplicateLag(b *testing.B) {
	seconds := benchEntries("ANNALS_BENCH_SECONDS", 10)
	poll := time.Duration(benchEntries("ANNALS_BENCH_POLL_MS", int(DefaultPoll/time.Millisecond))) * time.Millisecond
	const chats, rate = 10, 100
	ctx := context.Background()
	for _, rk := range benchRemotes {
		b.Run(rk.name, func(b *testing.B) {
			for range b.N {
				store := rk.open(b)
				_, url, key := serveRemote(b, store)
				host := newHost(b)
				for c := range chats {
					if _, err := annals.CreateChat(ctx, host, &annals.Chat{ID: fmt.Sprintf("lag-%d", c), TenantID: "team"}); err != nil {
						b.Fatal(err)
					}
				}
				runCtx, stop := context.WithCancel(ctx)
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					New(Config{Endpoint: url, Key: key, Store: host, Poll: poll, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}).Run(runCtx)
				}()
				n := seconds * rate
				written := make([]time.Time, n)
				seen := make([]time.Time, n)
				var mu sync.Mutex
				wg.Add(1)
				go func() { // the remote's side: when each entry arrived
					defer wg.Done()
					have := make([]int64, chats)
					for runCtx.Err() == nil {
						for c := range chats {
							chat, err := store.FindChatByID(ctx, fmt.Sprintf("lag-%d", c))
							if err != nil {
								continue
							}
							now := time.Now()
							mu.Lock()
							for k := have[c]; k < chat.Totals.Entries; k++ {
								seen[int(k)*chats+c] = now
							}
							mu.Unlock()
							have[c] = chat.Totals.Entries
						}
						time.Sleep(5 * time.Millisecond)
					}
				}()
				captureStart := time.Now()
				tick := time.NewTicker(time.Second / rate)
				for i := range n {
					<-tick.C
					c := i % chats
					e := &annals.Entry{ID: fmt.Sprintf("e%05d", i/chats), Kind: annals.KindAssistant, Text: "a steady capture, one entry at a time"}
					mu.Lock()
					written[i] = time.Now()
					mu.Unlock()
					if _, err := annals.AppendEntries(ctx, host, fmt.Sprintf("lag-%d", c), []*annals.Entry{e}); err != nil {
						b.Fatal(err)
					}
				}
				tick.Stop()
				captured := float64(n) / time.Since(captureStart).Seconds() // under load, below the rate asked
				deadline := time.Now().Add(30 * time.Second)
				for time.Now().Before(deadline) {
					mu.Lock()
					done := !slices.ContainsFunc(seen, time.Time.IsZero)
					mu.Unlock()
					if done {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				stop()
				wg.Wait()
				lags := make([]float64, 0, n)
				for i := range n {
					if seen[i].IsZero() {
						b.Fatalf("entry %d never reached the remote", i)
					}
					lags = append(lags, seen[i].Sub(written[i]).Seconds()*1000)
				}
				slices.Sort(lags)
				b.ReportMetric(lags[n/2], "p50-ms")
				b.ReportMetric(lags[n*99/100], "p99-ms")
				b.ReportMetric(captured, "captured-entries/s")
			}
		})
	}
}
