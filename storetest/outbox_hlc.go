package storetest

import (
	"context"
	"testing"

	annals "github.com/annals-dev/annals"
)

// Every curation a host records carries the host's next hybrid logical clock (payload version
// 2): strictly increasing, even when the store's clock gives the same time twice, and at or
// after the time the change was stamped with.
func testOutboxCurationClock(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("hlc", "t1"))
	for _, upd := range []annals.ChatUpdate{{Title: ptr("one")}, {Pinned: ptr(true)}, {Title: ptr("two")}, {Tags: &[]string{"a"}}} {
		if _, err := s.UpdateChat(ctx, refOf(t, s, "hlc"), upd); err != nil {
			t.Fatal(err)
		}
	}
	var last int64
	n := 0
	for _, op := range laneOps(t, o, "hlc") {
		p, err := annals.DecodePayload(op.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if p.V != annals.PayloadVersion {
			t.Errorf("payload version %d, want %d", p.V, annals.PayloadVersion)
		}
		if p.Curate == nil {
			continue
		}
		n++
		if p.Curate.HLC <= last || p.Curate.HLC < annals.HLCOf(p.Curate.At) {
			t.Errorf("curation %d has clock %d after %d (stamped at %v); want strictly increasing and not before its time", n, p.Curate.HLC, last, p.Curate.At)
		}
		last = p.Curate.HLC
	}
	if n != 4 {
		t.Fatalf("curations queued = %d, want 4", n)
	}
}
