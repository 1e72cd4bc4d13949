package replicate

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// remote is a real annals server on 127.0.0.1:0 over SQLite, with an operator key.
type remote struct {
	db  *sqlite.DB
	url string
	key string
}

func openSQLite(t testing.TB, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newRemote(t testing.TB) *remote {
	t.Helper()
	db := openSQLite(t, filepath.Join(t.TempDir(), "remote.db"))
	svc := history.New(history.Config{Store: db, View: db})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Replica: svc, Keys: db})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &remote{db: db, url: srv.URL(), key: newKey(t, db, annals.RoleOperator)}
}

func newKey(t testing.TB, ks annals.KeyStore, role annals.Role) string {
	t.Helper()
	secret, err := annals.NewKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := annals.NewKeyID()
	p := annals.Principal{TenantID: "team", Role: role, Scopes: []annals.Scope{annals.ScopeTenant}}
	if _, err := ks.CreateKey(context.Background(), &annals.APIKey{ID: id, Principal: p, Hash: annals.HashKeySecret(secret)}); err != nil {
		t.Fatal(err)
	}
	return secret
}

// newHost is a host database with its outbox on, in its own directory.
func newHost(t testing.TB) *sqlite.DB {
	t.Helper()
	db, _ := newHostAt(t)
	return db
}

// newHostAt is newHost with the path of its file.
func newHostAt(t testing.TB) (*sqlite.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "host.db")
	db := openSQLite(t, path)
	if _, err := db.SetOutbox(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	return db, path
}

// clock is a test clock that only moves when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newPusher(host Store, endpoint, key string, opts ...func(*Config)) *Pusher {
	cfg := Config{Endpoint: endpoint, Key: key, Store: host, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		Poll: 20 * time.Millisecond, Jitter: func() float64 { return 0.5 }, MaxOps: 3}
	for _, o := range opts {
		o(&cfg)
	}
	return New(cfg)
}

// writeChat creates a chat on the host with n entries.
func writeChat(t *testing.T, host *sqlite.DB, id string, n int) {
	t.Helper()
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, host, storetest.NewChat(id, "laptop")); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		e := storetest.TextEntry(fmt.Sprintf("%s-e%d", id, i), annals.KindUser, fmt.Sprintf("entry %d of %s", i, id))
		if _, err := annals.AppendEntries(ctx, host, id, []*annals.Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
}

func pendingOps(t *testing.T, host Store) int {
	t.Helper()
	lanes, err := host.OutboxLanes(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range lanes {
		n += l.Pending
	}
	return n
}

// mustVerifyZero verifies a host against its remote and fails on any difference.
func mustVerifyZero(t *testing.T, p *Pusher) *Verification {
	t.Helper()
	v, err := p.Verify(context.Background(), false)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if len(v.Differences) != 0 || v.Pending != 0 || v.InSync != v.Lanes {
		t.Fatalf("verify: %d lanes, %d in sync, %d pending, differences %+v; want every lane in sync", v.Lanes, v.InSync, v.Pending, v.Differences)
	}
	return v
}

// sameTranscript checks that the remote holds the host's chat, entry for entry, in order.
func sameTranscript(t *testing.T, host *sqlite.DB, remote annals.Store, chatID string) {
	t.Helper()
	ctx := context.Background()
	want, err := host.FindEntries(ctx, annals.EntryFilter{ChatID: chatID})
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.FindEntries(ctx, annals.EntryFilter{ChatID: chatID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("chat %s: remote holds %d entries, host %d", chatID, len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Seq != want[i].Seq || (len(want[i].Text) <= history.MaxReplicaEntryBytes && got[i].Text != want[i].Text) {
			t.Fatalf("chat %s entry %d: remote %s@%d, host %s@%d", chatID, i, got[i].ID, got[i].Seq, want[i].ID, want[i].Seq)
		}
	}
}

// eventually polls cond until it holds or a generous deadline passes (a safety net against a
// hang, not a timing assertion).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // generous: CI runs this under -race beside other packages
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
