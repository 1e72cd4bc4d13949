package replicate

import (
	"context"
	"database/sql"
	"testing"

	"github.com/annals-dev/annals"
)

// corruptOp changes a queued operation's payload in the host's database by hand (a damaged
// outbox): the remote finds it does not chain to its lane and refuses it for good.
func corruptOp(t *testing.T, path, chatID string, laneSeq int64) {
	t.Helper()
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	res, err := raw.Exec(`UPDATE replication_outbox SET payload = CAST(replace(CAST(payload AS TEXT), 'entry', 'ENTRY') AS BLOB) WHERE chat_id = ? AND lane_seq = ?`, chatID, laneSeq)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("corrupt op %s/%d: %v (%d rows)", chatID, laneSeq, err, n)
	}
}

// A damaged operation quarantines its lane; retry --drop shows it, drops it, renumbers the
// operations queued after it onto the remote's head, and they flow; the remote then lacks the
// dropped change for good: verify reports it as given up and a repair does not send it.
func TestDropRefusedOperation(t *testing.T) {
	ctx := context.Background()
	r := newRemote(t)
	host, path := newHostAt(t)
	writeChat(t, host, "p", 2)
	writeChat(t, host, "q", 1)
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	for _, id := range []string{"p-x", "p-y", "p-z"} {
		appendText(t, host, "p", id, "entry "+id)
	}
	corruptOp(t, path, "p", 4)
	appendText(t, host, "q", "q-more", "entry q-more")
	rep := mustPush(t, p)
	if !contains(rep.Quarantined, "p") || contains(rep.Quarantined, "q") {
		t.Fatalf("push: %+v; want lane p quarantined, q flowing", rep)
	}
	if _, err := p.PlanDrop(ctx, "q"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("PlanDrop of a lane not quarantined: %v, want not_found", err)
	}
	plan, err := p.PlanDrop(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Op.LaneSeq != 4 || plan.Op.Kind != annals.OpAppend || plan.Later != 2 || plan.RemoteSeq != 3 || plan.Quarantine.Code != annals.ECONFLICT {
		t.Fatalf("plan: %+v (op %+v); want op 4, an append, 2 later, the remote at 3", plan, plan.Op)
	}
	if pendingOps(t, host) != 3 {
		t.Fatal("planning a drop changed the queue")
	}
	res, err := p.Drop(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Push.Pushed != 2 || len(res.Push.Quarantined) != 0 {
		t.Fatalf("the push after the drop: %+v; want the 2 later operations applied", res.Push)
	}
	if q, _ := host.Quarantined(ctx); len(q) != 0 {
		t.Fatalf("quarantines after the drop: %+v", q)
	}
	es, _ := r.db.FindEntries(ctx, annals.EntryFilter{ChatID: "p"})
	if len(es) != 4 || es[2].ID != "p-y" {
		t.Fatalf("the remote's chat p: %d entries; want 4, without the dropped p-x", len(es))
	}
	v := mustVerifyZero(t, p)
	if len(v.GivenUp) != 1 || v.GivenUp[0].ChatID != "p" || v.GivenUp[0].Withheld == nil || v.GivenUp[0].Withheld.Entries != 1 ||
		len(v.GivenUp[0].Ops) != 1 || v.GivenUp[0].Ops[0].OpID != plan.Op.ID || v.GivenUp[0].Ops[0].Code != string(annals.ECONFLICT) {
		t.Fatalf("verify after the drop: given up %+v; want lane p with the dropped append, its diagnostic and 1 entry withheld", v.GivenUp)
	}
	if v, err = p.Verify(ctx, true); err != nil || len(v.Repaired) != 0 || len(v.Differences) != 0 {
		t.Fatalf("verify with repair: %+v, %v; want nothing repaired", v, err)
	}
	if es, _ := r.db.FindEntries(ctx, annals.EntryFilter{ChatID: "p"}); len(es) != 4 {
		t.Fatalf("the remote's chat p after verify: %d entries; want 4, the dropped p-x still left out", len(es))
	}
}

// dropFirstRefused pushes, expects lane chatID quarantined, and drops its refused operation.
func dropFirstRefused(t *testing.T, p *Pusher, chatID string) *DropPlan {
	t.Helper()
	ctx := context.Background()
	if rep := mustPush(t, p); !contains(rep.Quarantined, chatID) {
		t.Fatalf("push: %+v; want lane %s quarantined", rep, chatID)
	}
	plan, err := p.PlanDrop(ctx, chatID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Drop(ctx, plan); err != nil {
		t.Fatal(err)
	}
	return plan
}

// A repair withholds what was given up: the remote loses the chat's rows, verify resets the
// lane from the host's chat less the dropped entry; only verify --reset CHAT sends it whole
// (and forgets the mark).
func TestVerifyRepairWithholdsAGivenUpAppend(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host, path := newHostAt(t)
	writeChat(t, host, "p", 2)
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	appendText(t, host, "p", "p-x", "entry p-x")
	appendText(t, host, "p", "p-y", "entry p-y")
	corruptOp(t, path, "p", 4)
	dropFirstRefused(t, p, "p")
	deleteRemoteChat(t, r.path, "p")

	v, err := p.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Repaired) != 1 || len(v.Differences) != 0 || len(v.GivenUp) != 1 {
		t.Fatalf("verify: repaired %+v, left %+v, given up %+v; want p repaired, given up reported", v.Repaired, v.Differences, v.GivenUp)
	}
	es, _ := r.db.FindEntries(ctx, annals.EntryFilter{ChatID: "p"})
	if len(es) != 3 || es[2].ID != "p-y" {
		t.Fatalf("the remote's chat p after the repair: %d entries; want 3, without the given-up p-x", len(es))
	}
	mustVerifyZero(t, p)

	if v, err = p.VerifyReset(ctx, []string{"p"}); err != nil || len(v.Repaired) != 1 || len(v.Differences) != 0 || len(v.GivenUp) != 0 {
		t.Fatalf("verify --reset p: %+v, %v; want p reset whole and nothing given up", v, err)
	}
	sameTranscript(t, host, r.db, "p")
	if g, _ := host.GivenUp(ctx, "p"); len(g) != 0 {
		t.Fatalf("marks after --reset: %+v; want none", g)
	}
	mustVerifyZero(t, p)
}

// A given-up change a repair cannot leave out (a curation): verify reports it, never resets the
// lane on its own even when the remote lost the chat, and names --reset.
func TestVerifyLeavesALaneThatGaveUpACuration(t *testing.T) {
	ctx := context.Background()
	r := newFileRemote(t)
	host, path := newHostAt(t)
	writeChat(t, host, "c", 1)
	p := newPusher(host, r.url, r.key)
	mustPush(t, p)
	title := "an entry title"
	if _, err := host.UpdateChat(ctx, chatRef(t, host, "c"), annals.ChatUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	corruptOp(t, path, "c", 3)
	dropFirstRefused(t, p, "c")
	v := mustVerifyZero(t, p)
	if len(v.GivenUp) != 1 || v.GivenUp[0].Ops[0].Kind != annals.OpCurate || v.GivenUp[0].Withheld != nil {
		t.Fatalf("given up: %+v; want lane c's curation", v.GivenUp)
	}
	deleteRemoteChat(t, r.path, "c")
	v, err := p.Verify(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := differences(t, v)["c"]; d != nil || len(v.Repaired) != 0 {
		t.Fatalf("verify after the remote lost c: %+v, repaired %+v; want the lane left as given up", d, v.Repaired)
	}
	if _, err := r.db.FindChatByID(ctx, "c"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("verify sent chat c again (its given-up title with it): %v", err)
	}
}

// deleteRemoteChat deletes a chat's rows by hand in a remote's database file.
func deleteRemoteChat(t *testing.T, path, chatID string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`DELETE FROM chats WHERE id = ?`, chatID); err != nil {
		t.Fatal(err)
	}
}
