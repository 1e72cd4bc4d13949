package storetest

import (
	"context"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// RunPushState runs the push worker's state suite (annals.PushStateStore): a quarantine is kept
// with its diagnostic, replaced by a later one of the same lane, released once; the last push
// time is kept. open returns a fresh, empty store.
func RunPushState(t *testing.T, open func(tb testing.TB) annals.PushStateStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	if qs, err := s.Quarantined(ctx); err != nil || len(qs) != 0 {
		t.Fatalf("a fresh store's quarantines = %v, %v; want none", qs, err)
	}
	if at, err := s.LastPush(ctx); err != nil || !at.IsZero() {
		t.Fatalf("a fresh store's last push = %v, %v; want zero", at, err)
	}
	first := &annals.LaneQuarantine{ChatID: "b", OpID: "h.1", Status: 409, Code: annals.ECONFLICT, Message: "first", At: BaseTime}
	later := &annals.LaneQuarantine{ChatID: "b", OpID: "h.2", Status: 400, Code: annals.EINVALID, Message: "later", At: BaseTime.Add(time.Minute)}
	other := &annals.LaneQuarantine{ChatID: "a", OpID: "h.3", Status: 413, Code: "too_large", Message: "big", At: BaseTime}
	for _, q := range []*annals.LaneQuarantine{first, later, other} {
		if err := s.QuarantineLane(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := s.Quarantined(ctx)
	if err != nil || len(qs) != 2 || qs[0].ChatID != "a" || *qs[1] != *later {
		t.Fatalf("quarantines = %v, %v; want a, then b with the later diagnostic", qs, err)
	}
	if ok, err := s.ReleaseLane(ctx, "b"); err != nil || !ok {
		t.Fatalf("ReleaseLane(b) = %v, %v", ok, err)
	}
	if ok, err := s.ReleaseLane(ctx, "b"); err != nil || ok {
		t.Fatalf("ReleaseLane(b) again = %v, %v; want false", ok, err)
	}
	at := BaseTime.Add(time.Hour)
	if err := s.RecordPush(ctx, at); err != nil {
		t.Fatal(err)
	}
	if got, err := s.LastPush(ctx); err != nil || !got.Equal(at) {
		t.Fatalf("LastPush = %v, %v; want %v", got, err, at)
	}
}
