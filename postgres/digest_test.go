package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/historytest"
	"github.com/annals-dev/annals/storetest"
)

func TestDigestState(t *testing.T) {
	storetest.RunDigest(t, func(tb testing.TB) storetest.DigestStore { return MustOpenDB(tb) })
}

// TestDigestLeaseRenewal: two workers, two servers on one database.
func TestDigestLeaseRenewal(t *testing.T) {
	historytest.RunDigestLease(t, func(tb testing.TB) (history.Store, history.Store) {
		a, b := twoServers(tb.(*testing.T))
		return a, b
	})
}

// countingSummarizer counts its calls per chat; each call yields the processor a little so
// the two workers' passes overlap.
type countingSummarizer struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingSummarizer) Summarize(_ context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	c.mu.Lock()
	c.calls[chat.ID]++
	c.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
	return fmt.Sprintf("**Goal:** %s, %d entries", chat.ID, len(entries)), nil
}

// TestDigestLeaseTwoWorkers runs two digest workers at once, each through its own store (two
// servers on one PostgreSQL database): every due chat is digested, and none by both.
func TestDigestLeaseTwoWorkers(t *testing.T) {
	a, b := twoServers(t)
	ctx := context.Background()
	const chats = 24
	past := time.Now().Add(-time.Hour).UTC()
	for i := range chats {
		id := fmt.Sprintf("c%02d", i)
		if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: id, TenantID: "T", CreatedAt: past}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, a, id, []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hello " + id, Time: past}}); err != nil {
			t.Fatal(err)
		}
	}
	sum := &countingSummarizer{calls: map[string]int{}}
	var wg sync.WaitGroup
	progress := make([]history.DigestProgress, 2)
	for i, store := range []history.Store{a, b} {
		svc := history.New(history.Config{Store: store, Summarizer: sum})
		wg.Go(func() {
			p, err := svc.DigestDue(ctx, fmt.Sprintf("server-%d", i), history.DigestPolicy{}, nil)
			if err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
			progress[i] = p
		})
	}
	wg.Wait()
	for i := range chats {
		id := fmt.Sprintf("c%02d", i)
		if n := sum.calls[id]; n != 1 {
			t.Errorf("%s summarised %d times; want once", id, n)
		}
		c, err := b.FindChatByID(ctx, id)
		if err != nil || c.Summary == "" || !c.TitleGenerated {
			t.Errorf("%s: %v, summary %q, generated title %v", id, err, c.Summary, c.TitleGenerated)
		}
	}
	if got := progress[0].Digested + progress[1].Digested; got != chats {
		t.Errorf("digested %d + %d; want %d in all", progress[0].Digested, progress[1].Digested, chats)
	}
	t.Logf("worker 0: %+v; worker 1: %+v", progress[0], progress[1])
}

// BenchmarkDigestScan times the digest worker's walk over 1k and 10k chats never digested.
func BenchmarkDigestScan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("chats=%d", n), func(b *testing.B) { storetest.BenchDigestScan(b, MustOpenDB(b), n, nil) })
	}
}
