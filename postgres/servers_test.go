package postgres_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
)

// Two stores opened on one database simulate two stateless annals servers. Each has its own
// pool, so nothing in Go serialises their writes: only the database does.
func twoServers(t *testing.T) (*postgres.DB, *postgres.DB) {
	t.Helper()
	dsn := MustCreateSchema(t)
	return MustOpen(t, dsn, postgres.Options{PoolSize: 4}), MustOpen(t, dsn, postgres.Options{PoolSize: 4})
}

// appendAll has writers append one entry per call to chatID through the given stores, in
// interleaved transactions, and fails the test on any error.
func appendAll(t *testing.T, stores []*postgres.DB, chatID string, writers, perWriter int, prefix string) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			for i := range perWriter {
				id := fmt.Sprintf("%s%d-%03d", prefix, w, i)
				res, err := annals.AppendEntries(context.Background(), s, chatID, []*annals.Entry{{ID: id, Kind: annals.KindUser, Text: "concurrent " + id}})
				if err != nil {
					t.Errorf("writer %d: append %s: %v", w, id, err)
					return
				}
				if res.Appended != 1 {
					t.Errorf("writer %d: append %s appended %d, want 1", w, id, res.Appended)
				}
			}
		})
	}
	wg.Wait()
}

// wantContiguous checks chatID holds exactly n entries, seq 1..n, no id twice, each writer's
// entries in its own order, and counters that agree.
func wantContiguous(t *testing.T, s *postgres.DB, chatID string, n int) {
	t.Helper()
	es, err := s.FindEntries(context.Background(), annals.EntryFilter{ChatID: chatID})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != n {
		t.Errorf("%s: %d entries, want %d (no entry lost, none duplicated)", chatID, len(es), n)
	}
	seen := map[string]bool{}
	last := map[string]int{}
	for i, e := range es {
		if e.Seq != int64(i+1) {
			t.Errorf("%s: entry %d (%s) seq = %d, want %d", chatID, i, e.ID, e.Seq, i+1)
		}
		if seen[e.ID] {
			t.Errorf("%s: entry %s stored twice", chatID, e.ID)
		}
		seen[e.ID] = true
		// Ids from appendAll are <prefix><writer>-<NNN>: each writer's own entries stay in order.
		if dash := strings.LastIndexByte(e.ID, '-'); dash > 0 {
			writer := e.ID[:dash]
			k, _ := strconv.Atoi(e.ID[dash+1:])
			if prev, ok := last[writer]; ok && k <= prev {
				t.Errorf("%s: writer %s's entry %d stored after its entry %d", chatID, writer, k, prev)
			}
			last[writer] = k
		}
	}
	c, err := s.FindChatByID(context.Background(), chatID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Totals.Entries != int64(n) {
		t.Errorf("%s: Totals.Entries = %d, want %d", chatID, c.Totals.Entries, n)
	}
}

func TestTwoServersAppendToOneChatKeepSeqContiguous(t *testing.T) {
	a, b := twoServers(t)
	if _, err := annals.CreateChat(context.Background(), a, &annals.Chat{ID: "shared", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	const writers, per = 8, 25
	appendAll(t, []*postgres.DB{a, b}, "shared", writers, per, "w")
	wantContiguous(t, a, "shared", writers*per)
	wantContiguous(t, b, "shared", writers*per)
}

func TestTwoServersAppendToDifferentChatsConcurrently(t *testing.T) {
	a, b := twoServers(t)
	ctx := context.Background()
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: id, TenantID: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i, id := range []string{"c1", "c2", "c3", "c4"} {
		s := []*postgres.DB{a, b}[i%2]
		wg.Go(func() { appendAll(t, []*postgres.DB{s}, id, 3, 20, "w") })
	}
	wg.Wait()
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		wantContiguous(t, b, id, 60)
	}
}

// Batches that touch several chats in opposite orders deadlock in the database; the store retries
// the loser, so both batches land whole.
func TestTwoServersCrossChatBatchesBothCommit(t *testing.T) {
	a, b := twoServers(t)
	ctx := context.Background()
	for _, id := range []string{"x", "y"} {
		if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: id, TenantID: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	batch := func(first, second, prefix string, i int) []annals.CaptureOp {
		return []annals.CaptureOp{
			{Append: &annals.AppendOp{ChatID: first, Entries: []*annals.Entry{{ID: fmt.Sprintf("%s-%d-1", prefix, i), Kind: annals.KindUser, Text: "x"}}}},
			{Append: &annals.AppendOp{ChatID: second, Entries: []*annals.Entry{{ID: fmt.Sprintf("%s-%d-2", prefix, i), Kind: annals.KindUser, Text: "y"}}}},
		}
	}
	const rounds = 30
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range rounds {
			if _, err := a.Capture(ctx, batch("x", "y", "a", i)); err != nil {
				t.Errorf("server a, round %d: %v", i, err)
			}
		}
	})
	wg.Go(func() {
		for i := range rounds {
			if _, err := b.Capture(ctx, batch("y", "x", "b", i)); err != nil {
				t.Errorf("server b, round %d: %v", i, err)
			}
		}
	})
	wg.Wait()
	for _, id := range []string{"x", "y"} {
		es, err := a.FindEntries(ctx, annals.EntryFilter{ChatID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 2*rounds {
			t.Errorf("%s: %d entries, want %d", id, len(es), 2*rounds)
		}
		for i, e := range es {
			if e.Seq != int64(i+1) {
				t.Errorf("%s: seq %d at %d", id, e.Seq, i)
			}
		}
	}
}

// The same batch sent to both servers at once (a client retrying against another server) is
// stored once.
func TestTwoServersSameBatchIsStoredOnce(t *testing.T) {
	a, b := twoServers(t)
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	mk := func() []*annals.Entry {
		out := make([]*annals.Entry, 20)
		for i := range out {
			out[i] = &annals.Entry{ID: fmt.Sprintf("e%02d", i), Kind: annals.KindUser, Text: "same"}
		}
		return out
	}
	var mu sync.Mutex
	appended, skipped := 0, 0
	var wg sync.WaitGroup
	for i := range 6 {
		s := []*postgres.DB{a, b}[i%2]
		wg.Go(func() {
			res, err := annals.AppendEntries(ctx, s, "c", mk())
			if err != nil {
				t.Errorf("append: %v", err)
				return
			}
			mu.Lock()
			appended += res.Appended
			skipped += res.Skipped
			mu.Unlock()
		})
	}
	wg.Wait()
	if appended != 20 || skipped != 100 {
		t.Errorf("appended %d, skipped %d; want 20 and 100", appended, skipped)
	}
	wantContiguous(t, a, "c", 20)
}

// Creating one chat on both servers at once: both succeed, one creates, one finds it unchanged.
func TestTwoServersCreateSameChatAtOnce(t *testing.T) {
	a, b := twoServers(t)
	ctx := context.Background()
	for i := range 20 {
		id := fmt.Sprintf("c%d", i)
		var wg sync.WaitGroup
		results := make([]*annals.CaptureResult, 2)
		for j, s := range []*postgres.DB{a, b} {
			wg.Go(func() {
				res, err := s.Capture(ctx, []annals.CaptureOp{{Chat: &annals.Chat{ID: id, TenantID: "t", Title: "x"}}})
				if err != nil {
					t.Errorf("create %s on server %d: %v", id, j, err)
					return
				}
				results[j] = res
			})
		}
		wg.Wait()
		if results[0] == nil || results[1] == nil {
			continue
		}
		if got := results[0].ChatsCreated + results[1].ChatsCreated; got != 1 {
			t.Errorf("%s: created %d times, want 1", id, got)
		}
	}
}
