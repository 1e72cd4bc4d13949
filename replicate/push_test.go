package replicate

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// The remote is down while the host writes: the worker keeps retrying on its timer, and once
// the remote is back everything arrives, in order, with no new local write; a 1.5 MiB tool
// result arrives cut in the middle with its marker, the host's copy whole.
func TestPushRemoteDownThenBack(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	proxy := newFaultProxy(t, r.url)
	proxy.set(func(p *faultProxy) { p.down = true })
	host := newHost(t)
	p := newPusher(host, proxy.url, r.key)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	writeChat(t, host, "a", 5)
	writeChat(t, host, "b", 4)
	big := "START" + strings.Repeat("0123456789", 150<<10) + "END"
	if _, err := annals.AppendEntries(ctx, host, "b", []*annals.Entry{storetest.ToolEntry("big", "read", `{}`, big)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a failed push while the remote is down", func() bool { return p.waiting("a") || p.waiting("b") })
	if n := pendingOps(t, host); n == 0 {
		t.Fatal("operations were acknowledged while the remote was down")
	}
	proxy.set(func(p *faultProxy) { p.down = false })
	eventually(t, "the queue to drain once the remote is back", func() bool { return pendingOps(t, host) == 0 })
	stop()
	<-done
	sameTranscript(t, host, r.db, "a")
	sameTranscript(t, host, r.db, "b")
	es, _ := r.db.FindEntries(ctx, annals.EntryFilter{ChatID: "b"})
	cut := es[len(es)-1].Tool.Result
	if !strings.HasPrefix(cut, "START0123") || !strings.HasSuffix(cut, "789END") || !strings.Contains(cut, "removed") || len(cut) > history.MaxReplicaEntryBytes {
		t.Errorf("the remote's copy of the 1.5 MiB result: %d bytes; want at most 1 MiB with both ends and the marker", len(cut))
	}
	local, _ := host.FindEntries(ctx, annals.EntryFilter{ChatID: "b"})
	if local[len(local)-1].Tool.Result != big {
		t.Error("the host's copy of the large result changed")
	}
	mustVerifyZero(t, p)
}

// 500s on one lane and a 429 with Retry-After on another: both wait on their own timers (the
// Retry-After honoured over a shorter backoff) while a third lane flows; they arrive later.
func TestPushTransientFailuresPerLane(t *testing.T) {
	r := newRemote(t)
	proxy := newFaultProxy(t, r.url)
	proxy.set(func(p *faultProxy) {
		p.fault = func(chatID string, n int) (int, http.Header, string) {
			switch {
			case chatID == "five" && n <= 2:
				return http.StatusInternalServerError, nil, `{"error":{"code":"internal","message":"internal error"}}`
			case chatID == "slow" && n == 1:
				return http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}}, `{"error":{"code":"too_many_requests","message":"slow down"}}`
			}
			return 0, nil, ""
		}
	})
	host := newHost(t)
	clk := &clock{now: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)}
	p := newPusher(host, proxy.url, r.key, func(c *Config) { c.Now = clk.Now })
	for _, id := range []string{"five", "slow", "well"} {
		writeChat(t, host, id, 2)
	}
	rep, err := p.PushOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !contains(rep.Waiting, "five") || !contains(rep.Waiting, "slow") || contains(rep.Waiting, "well") {
		t.Fatalf("waiting = %v; want five and slow, not well", rep.Waiting)
	}
	sameTranscript(t, host, r.db, "well")
	if left := p.waits["slow"].until.Sub(clk.Now()); left < 7*time.Second {
		t.Errorf("the 429 lane waits %v; want at least its Retry-After of 7s", left)
	}
	if left := p.waits["five"].until.Sub(clk.Now()); left >= 7*time.Second || left <= 0 {
		t.Errorf("the 500 lane waits %v; want its own short backoff", left)
	}
	// Before the backoff ends nothing is sent; after it, the 500 lane fails once more and
	// backs off longer (doubling), then flows.
	clk.advance(time.Millisecond)
	if rep, _ := p.PushOnce(context.Background()); len(rep.Waiting) != 2 {
		t.Fatalf("a pass inside the backoff: waiting %v", rep.Waiting)
	}
	first := p.waits["five"].until
	clk.advance(time.Second)
	if _, err := p.PushOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w := p.waits["five"]; w == nil || w.failures != 2 || w.until.Sub(clk.Now()) <= first.Sub(clk.Now().Add(-time.Second)) {
		t.Fatalf("after a second 500: %+v; want two failures and a longer wait", w)
	}
	clk.advance(10 * time.Second)
	if _, err := p.PushOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := pendingOps(t, host); n != 0 {
		t.Fatalf("%d operations still queued", n)
	}
	mustVerifyZero(t, p)
}

// A 409 on one chat quarantines that lane only: its operations stay queued, later ones wait
// behind it, one diagnostic is kept (never the key), the other lanes flow; released once the
// remote accepts, the lane arrives.
func TestPushConflictQuarantinesOneLane(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	proxy := newFaultProxy(t, r.url)
	refuse := true
	proxy.set(func(p *faultProxy) {
		p.fault = func(chatID string, n int) (int, http.Header, string) {
			if chatID == "bad" && refuse {
				return http.StatusConflict, nil, `{"error":{"code":"conflict","message":"chat \"bad\" already exists with different immutable data"}}`
			}
			return 0, nil, ""
		}
	})
	host := newHost(t)
	var logs bytes.Buffer
	p := newPusher(host, proxy.url, r.key, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	writeChat(t, host, "bad", 2)
	writeChat(t, host, "good", 2)
	rep, err := p.PushOnce(ctx)
	if err != nil || !contains(rep.Quarantined, "bad") || len(rep.Quarantined) != 1 {
		t.Fatalf("report = %+v, %v; want bad quarantined", rep, err)
	}
	sameTranscript(t, host, r.db, "good")
	writeChat(t, host, "good2", 1)
	if _, err := annals.AppendEntries(ctx, host, "bad", storetest.Entries("later", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.PushOnce(ctx); err != nil {
		t.Fatal(err)
	}
	sameTranscript(t, host, r.db, "good2")
	st, err := ReadStatus(ctx, host, proxy.url)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Quarantined) != 1 || st.Quarantined[0].Code != annals.ECONFLICT || st.Quarantined[0].Status != 409 || st.PendingOps != 4 || st.LastPush.IsZero() {
		t.Fatalf("status = %+v (quarantined %+v); want bad's diagnostic and its 4 operations queued", st, st.Quarantined)
	}
	if strings.Contains(logs.String(), r.key) || strings.Count(logs.String(), "lane quarantined") != 1 {
		t.Fatalf("logs hold the key or not exactly one quarantine: %s", logs.String())
	}
	refuse = false
	if ok, err := host.ReleaseLane(ctx, "bad"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, err := p.PushOnce(ctx); err != nil {
		t.Fatal(err)
	}
	sameTranscript(t, host, r.db, "bad")
	mustVerifyZero(t, p)
}

// Every delivery arrives twice, and every earlier one again after each new one (stale and
// reordered): each operation is applied once, in lane order.
func TestPushDuplicatedAndReorderedDeliveries(t *testing.T) {
	r := newRemote(t)
	proxy := newFaultProxy(t, r.url)
	proxy.set(func(p *faultProxy) { p.duplicate, p.replay = true, true })
	host := newHost(t)
	p := newPusher(host, proxy.url, r.key)
	writeChat(t, host, "d", 7)
	ctx := context.Background()
	if _, err := annals.TruncateChat(ctx, host, "d", annals.TruncatePoint{EntryID: "d-e4"}); err != nil {
		t.Fatal(err)
	}
	writeChat(t, host, "e", 4)
	for pendingOps(t, host) > 0 {
		if _, err := p.PushOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sameTranscript(t, host, r.db, "d")
	sameTranscript(t, host, r.db, "e")
	mustVerifyZero(t, p)
}

// Two hosts replicate into one remote at once; one of them has a wrong key: that host gets one
// clear error naming the key's fingerprint (never the key), keeps its queue whole, and the other
// keeps flowing. With the right key it catches up.
func TestPushTwoHostsOneWithAWrongKey(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	good, bad := newHost(t), newHost(t)
	wrong, _ := annals.NewKeySecret()
	pg, pb := newPusher(good, r.url, r.key), newPusher(bad, r.url, wrong)
	writeChat(t, good, "g1", 3)
	writeChat(t, bad, "b1", 3)
	err := pb.Check(ctx)
	if annals.ErrorCode(err) != annals.EFORBIDDEN || !strings.Contains(err.Error(), Fingerprint(wrong)) || strings.Contains(err.Error(), wrong) {
		t.Fatalf("Check with a wrong key = %v; want forbidden naming the fingerprint, never the key", err)
	}
	if err := pg.Check(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			if _, err := pb.PushOnce(ctx); err != nil {
				t.Error(err)
			}
			time.Sleep(30 * time.Millisecond)
		}
	}()
	for pendingOps(t, good) > 0 {
		writeChat(t, good, "g2", 1)
		if _, err := pg.PushOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if n := pendingOps(t, bad); n != 4 {
		t.Fatalf("the host with the wrong key has %d operations queued, want all 4", n)
	}
	if qs, _ := bad.Quarantined(ctx); len(qs) != 0 {
		t.Fatalf("a wrong key quarantined lanes: %+v", qs)
	}
	mustVerifyZero(t, pg)
	fixed := newPusher(bad, r.url, r.key)
	mustVerifyZero(t, fixed)
	sameTranscript(t, bad, r.db, "b1")
}

// A host database copied to a second place: the copy refuses to push until it takes a new host
// id; then its new chats flow, and its writes to a chat the original also replicates are refused
// for that lane only. The original keeps flowing and verifies at zero.
func TestPushCopiedHostDatabase(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	dir := t.TempDir()
	origPath := filepath.Join(dir, "orig.db")
	first, err := sqlite.Open(ctx, origPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	writeChat(t, first, "shared", 2)
	mustVerifyZero(t, newPusher(first, r.url, r.key))
	writeChat(t, first, "queued", 1)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")
	data, err := os.ReadFile(origPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	orig := openSQLite(t, origPath)
	po := newPusher(orig, r.url, r.key)
	cp := openSQLite(t, copyPath)
	pc := newPusher(cp, r.url, r.key)
	if _, err := pc.PushOnce(ctx); annals.ErrorCode(err) != annals.ECONFLICT || !strings.Contains(err.Error(), "new-host-id") {
		t.Fatalf("push from the copy = %v; want a refusal naming new-host-id", err)
	}
	if _, err := cp.NewHostID(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, cp, "shared", storetest.Entries("copy", 1)); err != nil {
		t.Fatal(err)
	}
	writeChat(t, cp, "copy-only", 2)
	// The original writes the shared chat too, and pushes first: its queued chat arrives.
	if _, err := annals.AppendEntries(ctx, orig, "shared", storetest.Entries("orig", 1)); err != nil {
		t.Fatal(err)
	}
	mustVerifyZero(t, po)
	rep, err := pc.PushOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(rep.Quarantined, "shared") || contains(rep.Quarantined, "copy-only") {
		t.Fatalf("copy's pass = %+v; want the shared lane refused and its own chat flowing", rep)
	}
	sameTranscript(t, cp, r.db, "copy-only")
	sameTranscript(t, orig, r.db, "shared")
	mustVerifyZero(t, po)
}

// A host whose history was recorded before the outbox was turned on: backfill queues every chat
// whole (creation with its human layer, entries, runs) once, the push brings the remote to the
// same chats, and verify is at zero; a second backfill queues nothing.
func TestBackfillThenPush(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	host := openSQLite(t, filepath.Join(t.TempDir(), "host.db"))
	writeChat(t, host, "old1", 450) // more than one append operation
	writeChat(t, host, "old2", 2)
	if _, err := annals.RecordRun(ctx, host, storetest.NewRun("run-1", "old2", annals.StatusCompleted, storetest.BaseTime)); err != nil {
		t.Fatal(err)
	}
	c, _ := host.FindChatByID(ctx, "old2")
	if _, err := host.UpdateChat(ctx, c.Ref(), annals.ChatUpdate{Title: ptr("kept title"), Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := host.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	writeChat(t, host, "new", 1) // recorded with the outbox on: it has its lane
	rep, err := Backfill(ctx, host, nil)
	if err != nil || rep.Chats != 3 || rep.Queued != 2 || rep.Skipped != 1 {
		t.Fatalf("backfill = %+v, %v; want 3 chats, 2 queued, 1 skipped", rep, err)
	}
	p := newPusher(host, r.url, r.key, func(c *Config) { c.MaxOps = 500 })
	mustVerifyZero(t, p)
	for _, id := range []string{"old1", "old2", "new"} {
		sameTranscript(t, host, r.db, id)
	}
	got, err := r.db.FindChatByID(ctx, "old2")
	if err != nil || got.Title != "kept title" || !got.Pinned || got.Totals.Runs != 1 {
		t.Fatalf("the remote's old2 = %+v, %v; want its title, pinned, one run", got, err)
	}
	if again, err := Backfill(ctx, host, nil); err != nil || again.Queued != 0 || again.Skipped != 3 {
		t.Fatalf("a second backfill = %+v, %v; want nothing queued", again, err)
	}
}

func ptr[T any](v T) *T { return &v }
