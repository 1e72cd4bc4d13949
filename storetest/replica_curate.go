package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// Curation from several hosts (docs/REPLICATION.md, "Curation from several hosts"): each host
// curates a chat in its own lane, and each field keeps the value of the change with the
// greatest stamp (hybrid logical clock, then host id), whatever order the lanes arrive in.

// curationOp is one host's curation of a chat, at a place in that host's lane.
type curationOp struct {
	host string
	upd  annals.ChatUpdate
	hlc  int64
	at   time.Time
}

// curationScript is the set of concurrent curations delivered in many orders: three hosts (a
// created the chat) setting overlapping fields, with a tie of clocks on the title that the host
// id breaks, and two archives of which the later must give archived_at whichever came first.
func curationScript() []curationOp {
	at := func(min int) time.Time { return BaseTime.Add(time.Duration(min) * time.Minute) }
	return []curationOp{
		{host: "host-a", upd: annals.ChatUpdate{Archived: ptr(true)}, hlc: 150, at: at(15)},
		{host: "host-a", upd: annals.ChatUpdate{Title: ptr("from a"), Tags: &[]string{"x"}}, hlc: 300, at: at(30)},
		{host: "host-a", upd: annals.ChatUpdate{Pinned: ptr(true)}, hlc: 310, at: at(31)},
		{host: "host-b", upd: annals.ChatUpdate{Title: ptr("from b"), Archived: ptr(true)}, hlc: 200, at: at(20)},
		{host: "host-b", upd: annals.ChatUpdate{Summary: ptr("b's summary"), Description: ptr("b")}, hlc: 250, at: at(25)},
		{host: "host-c", upd: annals.ChatUpdate{Archived: ptr(false)}, hlc: 120, at: at(12)},
		{host: "host-c", upd: annals.ChatUpdate{Description: ptr("c"), Tags: &[]string{"y"}}, hlc: 260, at: at(26)},
		{host: "host-c", upd: annals.ChatUpdate{Title: ptr("from c")}, hlc: 300, at: at(10)},
	}
}

// humanLayer is what the conflict rule decides, printed for comparison.
func humanLayer(c *annals.Chat) string {
	return fmt.Sprintf("title=%q description=%q tags=%v pinned=%v archived=%s summary=%q summary_at=%s",
		c.Title, c.Description, c.Tags, c.Pinned, fmtTimePtr(c.ArchivedAt), c.Summary, fmtTimePtr(c.SummaryUpdatedAt))
}

func testReplicaCurationConverges(t *testing.T, s ReplicaStore) {
	ctx := context.Background()
	script := curationScript()
	want := fmt.Sprintf("title=%q description=%q tags=%v pinned=%v archived=%s summary=%q summary_at=%s",
		"from c", "c", []string{"x"}, true, fmtTimePtr(ptr(script[3].at)), "b's summary", fmtTimePtr(ptr(script[4].at)))
	orders := [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {7, 6, 5, 4, 3, 2, 1, 0}}
	rng := rand.New(rand.NewPCG(26, 2))
	for len(orders) < 24 {
		orders = append(orders, rng.Perm(len(script)))
	}
	for trial, order := range orders {
		chatID := fmt.Sprintf("cur-%d", trial)
		// Operation ids are unique per host: each trial has its own hosts, ordered as a < b < c.
		hostOf := func(name string) string { return fmt.Sprintf("%d-%s", trial, name) }
		origin := &replicaLane{chatID: chatID, host: hostOf("host-a")}
		c := NewChat(chatID, "t1")
		c.CreatedAt = BaseTime
		origin.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: c}}}, "chat")
		ref := refOf(t, s, chatID)
		lanes := map[string]*replicaLane{"host-a": origin}
		changes := make([]*annals.ReplicaChange, len(script))
		for i, op := range script {
			l := lanes[op.host]
			if l == nil {
				l = &replicaLane{chatID: chatID, host: hostOf(op.host)}
				lanes[op.host] = l
			}
			upd := op.upd
			ch := l.next(&annals.ReplicaChange{Curate: &upd, Ref: &ref, At: op.at, Stamp: annals.FieldStamp{HLC: op.hlc, Host: hostOf(op.host)}}, fmt.Sprint("curate ", i))
			l.seq, l.digest = ch.LaneSeq, ch.Digest
			changes[i] = ch
		}
		queue := slices.Clone(order)
		for tries := 0; len(queue) > 0; tries++ {
			if tries > 100 {
				t.Fatalf("order %v: the lanes never drained", order)
			}
			i := queue[0]
			queue = queue[1:]
			outcome, _, err := s.ApplyReplica(ctx, changes[i])
			if err != nil {
				t.Fatalf("order %v: ApplyReplica(op %d) = %v", order, i, err)
			}
			if outcome == annals.ReplicaMoved {
				queue = append(queue, i) // its predecessor in the lane has not arrived: resent later
			}
		}
		if got := humanLayer(mustChat(t, s, chatID)); got != want {
			t.Fatalf("delivered in order %v:\n got %s\nwant %s", order, got, want)
		}
		all, err := s.ReplicaLanes(ctx, []string{chatID})
		if err != nil || len(all) != 3 {
			t.Fatalf("ReplicaLanes = %+v, %v; want one lane per host", all, err)
		}
	}
}

// A version 1 curation (no clock) is ordered by its time: a later one wins over a stamped one
// whose clock is earlier, an earlier one loses.
func testReplicaCurationWithoutClock(t *testing.T, s ReplicaStore) {
	l := newReplicaLane("v1")
	c := NewChat("v1", "t1")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: c}}}, "chat")
	ref := refOf(t, s, "v1")
	t0 := BaseTime.Add(time.Hour)
	l.apply(t, s, &annals.ReplicaChange{Curate: &annals.ChatUpdate{Title: ptr("stamped")}, Ref: &ref, At: t0,
		Stamp: annals.FieldStamp{HLC: annals.HLCOf(t0), Host: l.host}}, "stamped")
	v1 := annals.CurateChange{Title: ptr("earlier"), At: t0.Add(-time.Minute)}
	l.apply(t, s, &annals.ReplicaChange{Curate: &annals.ChatUpdate{Title: v1.Title}, Ref: &ref, At: v1.At, Stamp: v1.Stamp("host-old")}, "v1 earlier")
	if got := mustChat(t, s, "v1").Title; got != "stamped" {
		t.Fatalf("title after an earlier unstamped change = %q, want stamped", got)
	}
	v1 = annals.CurateChange{Title: ptr("later"), At: t0.Add(time.Minute)}
	l.apply(t, s, &annals.ReplicaChange{Curate: &annals.ChatUpdate{Title: v1.Title}, Ref: &ref, At: v1.At, Stamp: v1.Stamp("host-old")}, "v1 later")
	if got := mustChat(t, s, "v1").Title; got != "later" {
		t.Fatalf("title after a later unstamped change = %q, want later", got)
	}
}

// A lane continued under a new host id (a copy that took one) is handed over: the new host's
// lane goes on from the old one's head, and the old host can no longer write it.
func testReplicaHandOver(t *testing.T, s ReplicaStore) {
	ctx := context.Background()
	old := newReplicaLane("ho")
	old.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("ho", "t1")}}}, "chat")
	old.apply(t, s, replicaAppend("ho", Entries("e", 1)...), "append")
	moved := &replicaLane{chatID: "ho", host: "host-new", seq: old.seq, digest: old.digest}
	ch := moved.next(replicaAppend("ho", Entries("f", 1)...), "append 2")
	ch.From = old.host
	outcome, head, err := s.ApplyReplica(ctx, ch)
	if err != nil || outcome != annals.ReplicaApplied || head.Host != "host-new" || head.Seq != 3 {
		t.Fatalf("hand-over = %v, %+v, %v; want applied, host-new at seq 3", outcome, head, err)
	}
	if got := mustReplicaLane(t, s, "ho"); got.Host != "host-new" || got.Seq != 3 {
		t.Fatalf("lanes after the hand-over: %+v, want only host-new's at 3", got)
	}
	stale := old.next(replicaAppend("ho", Entries("g", 1)...), "append from the old host")
	if outcome, _, err := s.ApplyReplica(ctx, stale); err != nil || outcome != annals.ReplicaMoved {
		t.Fatalf("the old host after the hand-over = %v, %v; want moved", outcome, err)
	}
	wantTranscript(t, mustEntries(t, s, "ho"), "e-1", "f-1")
}
