package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	annals "github.com/annals-dev/annals"
)

// FeedStore is what the change feed suite tests.
type FeedStore interface {
	Store
	annals.FeedStore
}

// RunFeed runs the change feed (annals.FeedStore): a database keeps none until EnableFeed, which
// puts the chats it holds in; from then every change of a chat — creation, append,
// truncate, run, curation, delete — moves the chat to the next sequence of its tenant's feed;
// a change that changed nothing does not; a delete leaves a tombstone; tenants have feeds of
// their own; concurrent writers of one tenant leave a feed without gaps. open returns a fresh,
// empty store.
func RunFeed(t *testing.T, open func(tb testing.TB) FeedStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	feed := func(tenant string, after int64) []string {
		t.Helper()
		got, err := s.FeedChanges(ctx, tenant, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, c := range got {
			d := ""
			if c.Deleted {
				d = "-"
			}
			out = append(out, fmt.Sprintf("%d:%s%s", c.Seq, d, c.ChatID))
		}
		return out
	}
	mustCreateChat(t, s, NewChat("a", "t1"))
	mustCreateChat(t, s, NewChat("b", "t1"))
	mustCreateChat(t, s, NewChat("x", "t2"))
	wantIDs(t, "t1's feed before it is on", feed("t1", 0), []string{})
	for range 2 {
		if err := s.EnableFeed(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wantIDs(t, "t1's feed once on, after creating a and b", feed("t1", 0), []string{"1:a", "2:b"})
	wantIDs(t, "t2's feed", feed("t2", 0), []string{"1:x"})
	mustAppend(t, s, "a", Entries("e", 2)...)
	wantIDs(t, "after an append to a", feed("t1", 0), []string{"2:b", "3:a"})
	mustAppend(t, s, "a", Entries("e", 2)...) // the same entries again: nothing changed
	mustCreateChat(t, s, NewChat("a", "t1"))  // an idempotent repeat
	wantIDs(t, "after repeats that changed nothing", feed("t1", 0), []string{"2:b", "3:a"})
	title := "renamed"
	mustUpdate(t, s, "b", annals.ChatUpdate{Title: &title})
	wantIDs(t, "after a rename of b", feed("t1", 0), []string{"3:a", "4:b"})
	mustRecordRun(t, s, NewRun("r1", "a", annals.StatusCompleted, BaseTime))
	mustTruncate(t, s, "a", annals.TruncatePoint{Seq: 2})
	wantIDs(t, "after a run and a truncate of a", feed("t1", 0), []string{"4:b", "6:a"})
	if err := s.DeleteChat(ctx, refOf(t, s, "b")); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "after deleting b", feed("t1", 0), []string{"6:a", "7:-b"})
	wantIDs(t, "t1 after 6", feed("t1", 6), []string{"7:-b"})
	wantIDs(t, "t2 untouched", feed("t2", 0), []string{"1:x"})
	mustCreateChat(t, s, NewChat("b", "t1"))
	wantIDs(t, "after b is created again", feed("t1", 0), []string{"6:a", "8:b"})
	if got, err := s.FeedChanges(ctx, "t1", 0, 1); err != nil || len(got) != 1 || got[0].ChatID != "a" {
		t.Fatalf("a page of one: %v, %v", got, err)
	}

	// Concurrent writers of one tenant: every change gets its own sequence, none lost.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				if _, err := s.Capture(ctx, []annals.CaptureOp{{Chat: NewChat(fmt.Sprintf("c%d-%d", w, i), "t1")}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := feed("t1", 8)
	if len(got) != 20 {
		t.Fatalf("20 chats written concurrently: feed after 8 holds %d: %v", len(got), got)
	}
	for i, c := range got {
		if want := fmt.Sprintf("%d:", 9+i); len(c) < len(want) || c[:len(want)] != want {
			t.Fatalf("feed after concurrent writers has a gap at %d: %v", i, got)
		}
	}
}

// RunFeedSwitchedOn runs the switching on of a feed while writers of one tenant write: every
// chat written before, during and after it is in the feed, none lost (a writer that found the
// feed off commits before the backfill reads the chats).
func RunFeedSwitchedOn(t *testing.T, open func(tb testing.TB) FeedStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range 10 {
				if _, err := s.Capture(ctx, []annals.CaptureOp{{Chat: NewChat(fmt.Sprintf("c%d-%d", w, i), "t1")}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	close(start)
	if err := s.EnableFeed(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	got, err := s.FeedChanges(ctx, "t1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, c := range got {
		seen[c.ChatID] = true
		if i > 0 && c.Seq <= got[i-1].Seq {
			t.Fatalf("feed out of order at %d: %+v", i, got)
		}
	}
	if len(seen) != 40 {
		t.Fatalf("40 chats written while the feed was switched on: the feed holds %d", len(seen))
	}
}
