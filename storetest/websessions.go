package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// RunWebSessions runs the browser sessions suite (annals.WebSessionStore): a session is found by
// its token hash until it expires, once (a second with the same hash is a conflict), ends when
// deleted, and pruning removes the expired ones and counts the rest. open returns a fresh,
// empty store.
func RunWebSessions(t *testing.T, open func(tb testing.TB) annals.WebSessionStore) {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	live := &annals.WebSession{TokenHash: []byte("token-a"), KeyHash: []byte("key-1"), CreatedAt: BaseTime, ExpiresAt: BaseTime.Add(time.Hour)}
	old := &annals.WebSession{TokenHash: []byte("token-b"), KeyHash: []byte("key-1"), CreatedAt: BaseTime, ExpiresAt: BaseTime.Add(time.Minute)}
	for _, ws := range []*annals.WebSession{live, old} {
		if err := s.CreateWebSession(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateWebSession(ctx, &annals.WebSession{TokenHash: []byte("token-a"), KeyHash: []byte("key-2"), ExpiresAt: BaseTime.Add(time.Hour)}); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Errorf("a second session with the same token hash: %v, want conflict", err)
	}
	if err := s.CreateWebSession(ctx, &annals.WebSession{TokenHash: []byte("token-c"), ExpiresAt: BaseTime.Add(time.Hour)}); annals.ErrorCode(err) != annals.EINVALID {
		t.Errorf("a session without a key hash: %v, want invalid", err)
	}
	got, err := s.FindWebSession(ctx, []byte("token-a"), BaseTime.Add(30*time.Minute))
	if err != nil || !bytes.Equal(got.KeyHash, live.KeyHash) || !got.ExpiresAt.Equal(live.ExpiresAt) || !got.CreatedAt.Equal(live.CreatedAt) {
		t.Fatalf("FindWebSession = %+v, %v; want %+v", got, err, live)
	}
	if _, err := s.FindWebSession(ctx, []byte("token-b"), BaseTime.Add(time.Minute)); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("an expired session is found (%v); want not_found", err)
	}
	if _, err := s.FindWebSession(ctx, []byte("token-x"), BaseTime); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("a missing session: %v, want not_found", err)
	}
	if left, err := s.PruneWebSessions(ctx, BaseTime.Add(30*time.Minute)); err != nil || left != 1 {
		t.Errorf("PruneWebSessions = %d, %v; want the live one left", left, err)
	}
	if _, err := s.FindWebSession(ctx, []byte("token-b"), BaseTime); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("a pruned session is found (%v)", err)
	}
	for range 2 {
		if err := s.DeleteWebSession(ctx, []byte("token-a")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.FindWebSession(ctx, []byte("token-a"), BaseTime); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("a deleted session is found (%v)", err)
	}
}
