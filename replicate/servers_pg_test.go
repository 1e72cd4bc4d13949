package replicate

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/internal/pgtest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

// pgServer is one annals server process's worth of remote: its own pool on the shared database
// and its own HTTP server, which can be killed and started again on the same address.
type pgServer struct {
	t    *testing.T
	db   *postgres.DB
	addr string
	srv  *httpapi.Server
}

func startPGServer(t *testing.T, dsn, addr string) *pgServer {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn, postgres.Options{PoolSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	s := &pgServer{t: t, db: db, addr: addr}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *pgServer) start() {
	svc := history.New(history.Config{Store: s.db, View: s.db})
	s.srv = httpapi.New(httpapi.Config{Addr: s.addr, Service: svc, View: svc, Replica: svc, Keys: s.db})
	if err := s.srv.Open(context.Background()); err != nil {
		s.t.Fatal(err)
	}
	s.addr = s.srv.Addr().String()
}

func (s *pgServer) url() string { return "http://" + s.addr }

// kill stops the HTTP server: connections are refused until start (the pool is kept, as the
// database is).
func (s *pgServer) kill() {
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
}

// Two annals servers sharing one PostgreSQL as the remote, two hosts each pushing to one of them
// with their push workers running: chats written on both hosts alternately, curation of one
// chat from both, one server killed while its host writes and started again. Every chat arrives
// whole, the curated chat holds the conflict rule's answer, and verify is at zero on both hosts.
func TestPushTwoServersSharingPostgreSQL(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.FreshSchema(t)
	one := startPGServer(t, dsn, "127.0.0.1:0")
	two := startPGServer(t, dsn, "127.0.0.1:0")
	key := newKey(t, one.db, annals.RoleOperator)

	x := newHost(t)
	// y holds the shared chat without having recorded its creation (it came from elsewhere).
	y := openSQLite(t, t.TempDir()+"/y.db")
	if _, err := annals.CreateChat(ctx, y, storetest.NewChat("shared", "laptop")); err != nil {
		t.Fatal(err)
	}
	if _, err := y.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	writeChat(t, x, "shared", 2)
	px, py := newPusher(x, one.url(), key), newPusher(y, two.url(), key)
	if _, err := px.PushOnce(ctx); err != nil || pendingOps(t, x) != 0 {
		t.Fatalf("x's first push: %v, %d left", err, pendingOps(t, x))
	}
	// Both hosts curate the chat the remote now holds; the later clock's title wins (the host
	// id breaks a tie), through either server.
	if _, err := x.UpdateChat(ctx, refOf(t, x, "shared"), annals.ChatUpdate{Title: ptr("x's title"), Tags: &[]string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := y.UpdateChat(ctx, refOf(t, y, "shared"), annals.ChatUpdate{Title: ptr("y's title"), Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	wantTitle := "y's title"
	if stampOf(t, x, "shared").After(stampOf(t, y, "shared")) {
		wantTitle = "x's title"
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, p := range []*Pusher{px, py} {
		wg.Add(1)
		go func() { defer wg.Done(); p.Run(runCtx) }()
	}
	defer func() { stop(); wg.Wait() }()

	for i := range 6 {
		writeChat(t, x, fmt.Sprintf("x%d", i), 3)
		writeChat(t, y, fmt.Sprintf("y%d", i), 3)
		if i == 2 {
			two.kill() // y's server dies; y keeps writing and its worker keeps retrying
		}
	}
	eventually(t, "x's queue to drain through server one", func() bool { return pendingOps(t, x) == 0 })
	if pendingOps(t, y) == 0 {
		t.Fatal("y's operations were acknowledged while its server was down")
	}
	two.start() // the same address again
	eventually(t, "y's queue to drain once its server is back", func() bool { return pendingOps(t, y) == 0 })
	stop()
	wg.Wait()

	mustVerifyZero(t, px)
	mustVerifyZero(t, py)
	for i := range 6 {
		sameTranscript(t, x, one.db, fmt.Sprintf("x%d", i))
		sameTranscript(t, y, two.db, fmt.Sprintf("y%d", i))
	}
	sameTranscript(t, x, two.db, "shared")
	for _, s := range []*pgServer{one, two} {
		c, err := s.db.FindChatByID(ctx, "shared")
		if err != nil || c.Title != wantTitle || !c.Pinned || len(c.Tags) != 1 || c.Tags[0] != "x" {
			t.Fatalf("the shared chat through %s = %+v, %v; want title %q, pinned (y), tags [x] (x)", s.addr, c, err, wantTitle)
		}
	}
}

func refOf(t *testing.T, db annals.Store, id string) annals.ChatRef {
	t.Helper()
	c, err := db.FindChatByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c.Ref()
}

// stampOf is the stamp of the curation queued on a host for a chat.
func stampOf(t *testing.T, host Store, chatID string) annals.FieldStamp {
	t.Helper()
	ops, err := host.PendingOps(context.Background(), annals.OutboxRead{ChatID: chatID})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if p, err := annals.DecodePayload(op.Payload); err == nil && p.Curate != nil {
			return p.Curate.Stamp(op.Host)
		}
	}
	t.Fatalf("no curation of %s queued", chatID)
	return annals.FieldStamp{}
}
