package replicate

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// A write of this process is pushed at once: the worker polls only every hour here, and a chat
// written after its first pass still reaches the remote, woken by the store's commit
// (annals.OutboxNotifier), with no timer and no other write.
func TestPushWakesOnLocalCommit(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	host := newHost(t)
	writeChat(t, host, "first", 1)
	p := newPusher(host, r.url, r.key, func(c *Config) { c.Poll = time.Hour })
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	remoteHas := func(id string, entries int64) func() bool {
		return func() bool {
			c, err := r.db.FindChatByID(ctx, id)
			return err == nil && c.Totals.Entries == entries
		}
	}
	// The first pass has read the lanes by the time "first" is on the remote: what is written
	// now can only be sent by a pass that a wake starts.
	eventually(t, "the first pass", remoteHas("first", 1))
	writeChat(t, host, "second", 2)
	eventually(t, "the chat written after the first pass, with an hour's poll", remoteHas("second", 2))
	eventually(t, "the acknowledgement", func() bool { return pendingOps(t, host) == 0 })
	sameTranscript(t, host, r.db, "second")
	mustVerifyZero(t, p)
}

// A pass pushes several lanes at once: the proxy holds each request until two are in flight
// together (a pass that pushed lanes one after the other would only ever have one), then lets
// everything through.
func TestPushLanesConcurrently(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	proxy := newFaultProxy(t, r.url)
	var mu sync.Mutex
	inFlight, peak := 0, 0
	proxy.set(func(fp *faultProxy) {
		fp.fault = func(chatID string, n int) (int, http.Header, string) {
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			mu.Unlock()
			// A safety net, not a timing assertion: a sequential pass gets through after it.
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				together := peak >= 2
				mu.Unlock()
				if together {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			mu.Lock()
			inFlight--
			mu.Unlock()
			return 0, nil, ""
		}
	})
	host := newHost(t)
	writeChat(t, host, "a", 2)
	writeChat(t, host, "b", 2)
	p := newPusher(host, proxy.url, r.key, func(c *Config) { c.MaxOps = 10 })
	rep, err := p.PushOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pushed != 6 || len(rep.Waiting) != 0 || len(rep.Quarantined) != 0 {
		t.Fatalf("pass = %+v; want the 6 operations of both lanes pushed", rep)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak < 2 {
		t.Errorf("at most %d request(s) in flight; want the two lanes pushed at once", peak)
	}
	sameTranscript(t, host, r.db, "a")
	sameTranscript(t, host, r.db, "b")
}

// ackCounter is a host store that records each AckOps call and holds the first until gate is
// closed.
type ackCounter struct {
	Store
	mu    sync.Mutex
	calls [][]string
	gate  chan struct{}
}

func (a *ackCounter) AckOps(ctx context.Context, ids []string, at time.Time) (int, error) {
	a.mu.Lock()
	a.calls = append(a.calls, slices.Clone(ids))
	first := len(a.calls) == 1
	a.mu.Unlock()
	if first {
		<-a.gate
	}
	return a.Store.AckOps(ctx, ids, at)
}

// Acknowledgements of lanes pushed at once share a transaction: while one is being committed,
// the two that arrive wait and are committed together, in one AckOps, with the push's time.
func TestAcksOfConcurrentLanesShareATransaction(t *testing.T) {
	ctx := context.Background()
	host := newHost(t)
	for _, id := range []string{"a", "b", "c"} {
		writeChat(t, host, id, 0)
	}
	idOf := func(chatID string) string {
		ops, err := host.PendingOps(ctx, annals.OutboxRead{ChatID: chatID})
		if err != nil || len(ops) != 1 {
			t.Fatalf("lane %s: %d ops, %v", chatID, len(ops), err)
		}
		return ops[0].ID
	}
	a, b, c := idOf("a"), idOf("b"), idOf("c")
	store := &ackCounter{Store: host, gate: make(chan struct{})}
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	p := New(Config{Endpoint: "http://127.0.0.1:1", Key: "k", Store: store, Now: func() time.Time { return at }})
	got := make([]int, 3)
	var wg sync.WaitGroup
	ack := func(i int, id string) {
		defer wg.Done()
		n, err := p.ack(ctx, []string{id})
		if err != nil {
			t.Error(err)
		}
		got[i] = n
	}
	wg.Add(1)
	go ack(0, a)
	eventually(t, "the first acknowledgement to reach the store", func() bool {
		store.mu.Lock()
		defer store.mu.Unlock()
		return len(store.calls) == 1
	})
	wg.Add(2)
	go ack(1, b)
	go ack(2, c)
	eventually(t, "two acknowledgements waiting", func() bool {
		p.acks.mu.Lock()
		defer p.acks.mu.Unlock()
		return len(p.acks.waiting) == 2
	})
	close(store.gate)
	wg.Wait()
	if len(store.calls) != 2 || len(store.calls[1]) != 2 || !slices.Contains(store.calls[1], b) || !slices.Contains(store.calls[1], c) {
		t.Fatalf("AckOps calls = %v; want [%s] then [%s %s] together", store.calls, a, b, c)
	}
	if !slices.Equal(got, []int{1, 1, 1}) || pendingOps(t, host) != 0 {
		t.Errorf("acked %v with %d left; want each deleted once, none left", got, pendingOps(t, host))
	}
	if last, err := host.LastPush(ctx); err != nil || !last.Equal(at) {
		t.Errorf("LastPush = %v, %v; want %v", last, err, at)
	}
}
