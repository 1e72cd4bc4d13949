package storetest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// RunFeedSwitchWaitsForWriter runs the switching on of a feed against a writer paused in its
// transaction right after it found the feed off (the store's AfterFeedOff seam): the switch-on
// must wait for that writer's commit (waits reports that it is waiting: the store's lock), so
// its backfill sees the writer's chat — a writer that found the feed off never commits without
// its chat entering the feed. A switch-on that finished while the writer was paused lets the
// writer commit a chat the feed never names (the failure this test exists for).
//
// open returns a fresh, empty store that calls afterOff where its writers found the feed off;
// waits reports whether a switch-on is waiting for such a writer.
func RunFeedSwitchWaitsForWriter(t *testing.T, open func(tb testing.TB, afterOff func()) FeedStore, waits func(tb testing.TB, s FeedStore) bool) {
	t.Helper()
	ctx := context.Background()
	paused, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	s := open(t, func() {
		if first.CompareAndSwap(false, true) { // only the first writer: later ones go on
			close(paused)
			<-release
		}
	})
	wrote := make(chan error, 1)
	go func() {
		_, err := s.Capture(ctx, []annals.CaptureOp{{Chat: NewChat("paused", "t1")}})
		wrote <- err
	}()
	select {
	case <-paused:
	case err := <-wrote:
		t.Fatalf("the writer committed (%v) without finding the feed off", err)
	}
	enabled := make(chan error, 1)
	go func() { enabled <- s.EnableFeed(ctx) }()
	early, deadline := false, time.Now().Add(2*time.Minute) // a safety net against a hang, not a timing assertion
	for !early && !waits(t, s) {
		select {
		case err := <-enabled:
			if err != nil {
				t.Fatal(err)
			}
			early = true
		case <-time.After(5 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the switch-on neither finished nor waited for the paused writer")
			}
		}
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if !early {
		if err := <-enabled; err != nil {
			t.Fatal(err)
		}
	}
	mustCaptureChat(t, s, "after")
	got, err := s.FeedChanges(ctx, "t1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range got {
		seen[c.ChatID] = true
	}
	if !seen["paused"] || !seen["after"] {
		t.Fatalf("feed %+v (switch-on finished while the writer was paused: %v); want the paused writer's chat and the later one: a writer that found the feed off committed without its feed rows", got, early)
	}
	if early {
		t.Fatal("the switch-on finished while a writer that found the feed off had not committed")
	}
}

func mustCaptureChat(t *testing.T, s FeedStore, id string) {
	t.Helper()
	if _, err := s.Capture(context.Background(), []annals.CaptureOp{{Chat: NewChat(id, "t1")}}); err != nil {
		t.Fatal(err)
	}
}
