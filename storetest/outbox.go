package storetest

import (
	"context"
	"strconv"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// OutboxStore is what the outbox suite tests: a store with its host id and replication outbox.
type OutboxStore interface {
	Store
	annals.HostStore
	annals.Outbox
}

// RunOutbox runs the replication outbox suite (docs/REPLICATION.md): every kind of change
// records exactly one operation in its own transaction, a rolled-back batch records none, lanes
// are numbered without gaps, operation ids are unique, the digest chain can be recomputed, and
// acknowledged operations leave the queue but not the lane. open returns a fresh, empty store.
func RunOutbox(t *testing.T, open func(tb testing.TB) OutboxStore) {
	t.Helper()
	tests := []test{
		{"DigestChainReproducible", func(t *testing.T, s Store) { testOutboxDigest(t, s, open(t)) }},
		{"OffRecordsNothing", testOutboxOff},
		{"EachChangeOneOperation", testOutboxEachChange},
		{"RolledBackBatchRecordsNothing", testOutboxRollback},
		{"ReadsRecordNothing", testOutboxReads},
		{"LanesPerChatContiguous", testOutboxLanes},
		{"AckDeletesOnlyNamed", testOutboxAck},
		{"NotifiesCommitsThatQueued", testOutboxNotify},
		{"PendingBounds", testOutboxBounds},
		{"HostIDStableAndRenewable", testOutboxHostID},
		{"AgentAdoptedOneOperation", testOutboxAgent},
		{"CurationCarriesTheHostClock", testOutboxCurationClock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			tc.fn(t, s)
		})
	}
}

func outboxOf(t *testing.T, s Store) OutboxStore {
	t.Helper()
	o, ok := s.(OutboxStore)
	if !ok {
		t.Fatalf("%T does not implement the outbox", s)
	}
	return o
}

func mustOutboxOn(t *testing.T, s Store) (OutboxStore, *annals.HostIdentity) {
	t.Helper()
	o := outboxOf(t, s)
	id, err := o.SetOutbox(context.Background(), true)
	if err != nil {
		t.Fatalf("SetOutbox(true): %v", err)
	}
	if !id.Outbox || len(id.ID) != 32 {
		t.Fatalf("SetOutbox(true) = %+v, want the outbox on and a 32-digit host id", id)
	}
	return o, id
}

// laneOps reads every queued operation of a lane, in lane order.
func laneOps(t *testing.T, o OutboxStore, chatID string) []*annals.ReplicationOp {
	t.Helper()
	ops, err := o.PendingOps(context.Background(), annals.OutboxRead{ChatID: chatID})
	if err != nil {
		t.Fatalf("PendingOps(%s): %v", chatID, err)
	}
	return ops
}

func mustLanes(t *testing.T, o OutboxStore, pendingOnly bool) []*annals.LaneStatus {
	t.Helper()
	lanes, err := o.OutboxLanes(context.Background(), pendingOnly)
	if err != nil {
		t.Fatalf("OutboxLanes: %v", err)
	}
	return lanes
}

func opKinds(ops []*annals.ReplicationOp) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = string(op.Kind)
	}
	return out
}

func mustPayload(t *testing.T, op *annals.ReplicationOp) *annals.OpPayload {
	t.Helper()
	p, err := annals.DecodePayload(op.Payload)
	if err != nil {
		t.Fatalf("op %s: %v", op.ID, err)
	}
	if p.Kind() != op.Kind || p.ChatID() != op.ChatID {
		t.Fatalf("op %s: payload holds %s of %s, the op says %s of %s", op.ID, p.Kind(), p.ChatID(), op.Kind, op.ChatID)
	}
	return p
}

func testOutboxOff(t *testing.T, s Store) {
	ctx := context.Background()
	o := outboxOf(t, s)
	mustCreateChat(t, s, NewChat("off", "t1"))
	mustAppend(t, s, "off", Entries("off", 2)...)
	mustUpdate(t, s, "off", annals.ChatUpdate{Title: ptr("x")})
	if lanes := mustLanes(t, o, false); len(lanes) != 0 {
		t.Errorf("with the outbox never turned on, lanes = %d, want none", len(lanes))
	}
	_, err := o.Host(ctx)
	wantCode(t, "Host before any SetOutbox", err, annals.ENOTFOUND)
	// Turned off again: changes record nothing more.
	mustOutboxOn(t, s)
	mustAppend(t, s, "off", Entries("on", 1)...)
	if _, err := o.SetOutbox(ctx, false); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "off", Entries("again", 1)...)
	if got := opKinds(laneOps(t, o, "off")); len(got) != 1 || got[0] != "append" {
		t.Errorf("ops = %v, want the one append made while the outbox was on", got)
	}
}

func testOutboxEachChange(t *testing.T, s Store) {
	ctx := context.Background()
	o, host := mustOutboxOn(t, s)
	c := NewChat("each", "t1")
	c.CreatedAt = BaseTime
	mustCreateChat(t, s, c)
	mustCreateChat(t, s, NewChat("each", "t1")) // unchanged: no op
	mustAppend(t, s, "each", Entries("e", 3)...)
	mustAppend(t, s, "each", Entries("e", 2)...) // duplicates only: no op
	mustAppend(t, s, "each", append(Entries("e", 1), TextEntry("e-new", annals.KindUser, "new"))...)
	mustTruncate(t, s, "each", annals.TruncatePoint{Seq: 3})
	mustRecordRun(t, s, NewRun("r1", "each", annals.StatusRunning, BaseTime))
	mustUpdate(t, s, "each", annals.ChatUpdate{Title: ptr("renamed")})
	mustUpdate(t, s, "each", annals.ChatUpdate{Description: ptr("note"), Tags: &[]string{"a"}})
	mustUpdate(t, s, "each", annals.ChatUpdate{Pinned: ptr(true)})
	mustUpdate(t, s, "each", annals.ChatUpdate{Archived: ptr(true)})
	mustUpdate(t, s, "each", annals.ChatUpdate{Summary: ptr("sum")})
	if err := s.DeleteChat(ctx, refOf(t, s, "each")); err != nil {
		t.Fatal(err)
	}
	ops := laneOps(t, o, "each")
	want := []string{"chat", "append", "append", "truncate", "run", "curate", "curate", "curate", "curate", "curate", "delete"}
	if got := opKinds(ops); !sameSeq(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
	seen := map[string]bool{}
	for i, op := range ops {
		if op.LaneSeq != int64(i+1) {
			t.Errorf("op %d has lane seq %d, want %d", i, op.LaneSeq, i+1)
		}
		if op.Host != host.ID || op.ID != annals.OpID(host.ID, op.Seq) || seen[op.ID] {
			t.Errorf("op %d: id %q host %q, want a unique id under host %s", i, op.ID, op.Host, host.ID)
		}
		seen[op.ID] = true
	}
	if p := mustPayload(t, ops[0]); !p.Chat.CreatedAt.Equal(BaseTime) || p.Chat.TenantID != "t1" {
		t.Errorf("chat payload = %+v, want the chat as created", p.Chat)
	}
	if p := mustPayload(t, ops[2]); len(p.Append.Entries) != 1 || p.Append.Entries[0].ID != "e-new" || p.Append.Entries[0].Seq != 4 {
		t.Errorf("second append payload carries %v, want only the new entry at seq 4", entryIDs(p.Append.Entries))
	}
	if p := mustPayload(t, ops[3]); p.Truncate.EntryID != "e-3" || p.Truncate.Seq != 3 || p.Truncate.Removed != 2 {
		t.Errorf("truncate payload = %+v, want from e-3 at seq 3, 2 removed", p.Truncate)
	}
	if p := mustPayload(t, ops[8]); p.Curate.Archived == nil || !*p.Curate.Archived || p.Curate.At.IsZero() {
		t.Errorf("archive payload = %+v, want archived with its time", p.Curate)
	}
}

func sameSeq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testOutboxRollback(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	_, err := s.Capture(ctx, []annals.CaptureOp{
		{Chat: NewChat("rb", "t1")},
		{Append: &annals.AppendOp{ChatID: "rb", Entries: Entries("rb", 2)}},
		{Append: &annals.AppendOp{ChatID: "missing", Entries: Entries("m", 1)}},
	})
	wantBatchError(t, err, 2, annals.ENOTFOUND)
	if lanes := mustLanes(t, o, false); len(lanes) != 0 {
		t.Errorf("a rolled-back batch left %d lanes, want none", len(lanes))
	}
	// The failed curation of a chat that is gone records nothing either.
	mustCreateChat(t, s, NewChat("rb2", "t1"))
	ref := refOf(t, s, "rb2")
	ref.Incarnation++
	_, err = s.UpdateChat(ctx, ref, annals.ChatUpdate{Title: ptr("x")})
	wantCode(t, "update of a stale ref", err, annals.ENOTFOUND)
	if got := opKinds(laneOps(t, o, "rb2")); !sameSeq(got, []string{"chat"}) {
		t.Errorf("after a refused update, ops = %v, want only the chat", got)
	}
}

func testOutboxReads(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("rd", "t1"))
	mustAppend(t, s, "rd", Entries("rd", 2)...)
	mustRecordRun(t, s, NewRun("rd-r", "rd", annals.StatusCompleted, BaseTime))
	before := fmtLanes(mustLanes(t, o, false))
	mustChat(t, s, "rd")
	mustEntries(t, s, "rd")
	mustRuns(t, s, "rd")
	mustFindChats(t, s, annals.ChatFilter{Owner: tenant("t1")})
	mustMatchEntries(t, s, tenant("t1"), "rd")
	if _, err := o.PendingOps(ctx, annals.OutboxRead{ChatID: "rd"}); err != nil {
		t.Fatal(err)
	}
	if after := fmtLanes(mustLanes(t, o, false)); after != before {
		t.Errorf("reads changed the lanes: %s, then %s", before, after)
	}
}

func testOutboxLanes(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	_, err := s.Capture(ctx, []annals.CaptureOp{
		{Chat: NewChat("a", "t1")}, {Chat: NewChat("b", "t1")},
		{Append: &annals.AppendOp{ChatID: "a", Entries: Entries("a", 2)}},
		{Append: &annals.AppendOp{ChatID: "b", Entries: Entries("b", 1)}},
		{Append: &annals.AppendOp{ChatID: "a", Entries: Entries("a2", 1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "b", Entries("b2", 1)...)
	lanes := mustLanes(t, o, true)
	if len(lanes) != 2 || lanes[0].ChatID != "a" || lanes[0].HeadSeq != 3 || lanes[0].Pending != 3 ||
		lanes[1].ChatID != "b" || lanes[1].HeadSeq != 3 || lanes[1].Pending != 3 || lanes[0].OldestAt.IsZero() {
		t.Fatalf("lanes = %s, want a and b, each 3 ops", fmtLanes(lanes))
	}
	ids := map[string]bool{}
	for _, chat := range []string{"a", "b"} {
		for i, op := range laneOps(t, o, chat) {
			if op.LaneSeq != int64(i+1) || ids[op.ID] {
				t.Errorf("lane %s op %d: lane seq %d id %s, want %d and a fresh id", chat, i, op.LaneSeq, op.ID, i+1)
			}
			ids[op.ID] = true
		}
	}
}

func fmtLanes(lanes []*annals.LaneStatus) string {
	s := ""
	for _, l := range lanes {
		s += l.ChatID + "(head " + itoa(l.HeadSeq) + ", pending " + itoa(int64(l.Pending)) + ") "
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// changesWithFixedTimes are changes whose payloads carry no time a store stamps.
func changesWithFixedTimes(t *testing.T, s Store) {
	c := NewChat("dg", "t1")
	c.CreatedAt = BaseTime
	c.Attributes = annals.Attributes{"source": "test"}
	mustCreateChat(t, s, c)
	mustAppend(t, s, "dg", Entries("dg", 4)...)
	mustRecordRun(t, s, NewRun("dg-r", "dg", annals.StatusCompleted, BaseTime))
	mustTruncate(t, s, "dg", annals.TruncatePoint{EntryID: "dg-3"})
	mustAppend(t, s, "dg", Entries("dg2", 2)...)
}

// testOutboxDigest recomputes the chain from the queued operations, and checks that a second
// store given the same changes under another host id holds the same chain: the digest depends
// on what the lane holds, not on the host id or the local sequence.
func testOutboxDigest(t *testing.T, s Store, other OutboxStore) {
	o, _ := mustOutboxOn(t, s)
	changesWithFixedTimes(t, s)
	ops := laneOps(t, o, "dg")
	if len(ops) != 5 {
		t.Fatalf("ops = %v, want 5", opKinds(ops))
	}
	prev := ""
	for _, op := range ops {
		d := annals.LaneDigest(prev, op.ChatID, op.LaneSeq, op.Kind, op.Payload)
		if d != op.Digest {
			t.Fatalf("op %d: digest %s, recomputed %s", op.LaneSeq, op.Digest, d)
		}
		prev = d
	}
	lanes := mustLanes(t, o, false)
	if len(lanes) != 1 || lanes[0].HeadDigest != prev || lanes[0].HeadSeq != int64(len(ops)) {
		t.Fatalf("lane head = %s %q, want %d %q", fmtLanes(lanes), lanes[0].HeadDigest, len(ops), prev)
	}
	o2, _ := mustOutboxOn(t, other)
	// Another lane written first, so the local sequences differ from the first store's.
	mustCreateChat(t, other, NewChat("unrelated", "t1"))
	mustAppend(t, other, "unrelated", Entries("u", 2)...)
	changesWithFixedTimes(t, other)
	ops2 := laneOps(t, o2, "dg")
	if len(ops2) != len(ops) {
		t.Fatalf("second store: %d ops, want %d", len(ops2), len(ops))
	}
	for i := range ops {
		if ops2[i].Digest != ops[i].Digest || ops2[i].Host == ops[i].Host {
			t.Errorf("op %d: digest %s under host %s, first store %s under %s; want equal digests under different hosts",
				i+1, ops2[i].Digest, ops2[i].Host, ops[i].Digest, ops[i].Host)
		}
	}
}

func testOutboxAck(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("ack", "t1"))
	mustAppend(t, s, "ack", Entries("x", 1)...)
	mustAppend(t, s, "ack", Entries("y", 1)...)
	ops := laneOps(t, o, "ack")
	ps, ok := any(s).(annals.PushStateStore)
	if !ok {
		t.Fatalf("%T does not keep the push state (annals.PushStateStore)", s)
	}
	if n, err := o.AckOps(ctx, []string{annals.OpID("otherhost", ops[2].Seq)}, BaseTime); err != nil || n != 0 {
		t.Fatalf("AckOps of another host's id = %d, %v; want 0", n, err)
	}
	if last, err := ps.LastPush(ctx); err != nil || !last.IsZero() {
		t.Fatalf("after an ack that deleted nothing, LastPush = %v, %v; want none", last, err)
	}
	at := BaseTime.Add(time.Minute)
	n, err := o.AckOps(ctx, []string{ops[0].ID, ops[1].ID, ops[1].ID, annals.OpID("otherhost", ops[2].Seq)}, at)
	if err != nil || n != 2 {
		t.Fatalf("AckOps = %d, %v; want 2 deleted (a repeat and another host's id ignored)", n, err)
	}
	if last, err := ps.LastPush(ctx); err != nil || !last.Equal(at) {
		t.Fatalf("LastPush after the ack = %v, %v; want %v (recorded with it)", last, err, at)
	}
	left := laneOps(t, o, "ack")
	if len(left) != 1 || left[0].ID != ops[2].ID {
		t.Fatalf("after the ack, queued = %v, want only %s", opKinds(left), ops[2].ID)
	}
	mustAppend(t, s, "ack", Entries("z", 1)...)
	left = laneOps(t, o, "ack")
	if len(left) != 2 || left[1].LaneSeq != 4 || left[1].Seq <= ops[2].Seq {
		t.Fatalf("after a new change, lane seqs %v, want 3 then 4 with a higher local seq", left)
	}
	_, err = o.AckOps(ctx, []string{"no-dot"}, time.Time{})
	wantCode(t, "AckOps of a malformed id", err, annals.EINVALID)
	if lanes := mustLanes(t, o, false); len(lanes) != 1 || lanes[0].HeadSeq != 4 || lanes[0].Pending != 2 {
		t.Errorf("lanes = %s, want head 4 with 2 pending", fmtLanes(lanes))
	}
}

func testOutboxBounds(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("bd", "t1"))
	for i := range 4 {
		mustAppend(t, s, "bd", Entries("bd"+itoa(int64(i)), 1)...)
	}
	ops, err := o.PendingOps(ctx, annals.OutboxRead{ChatID: "bd", MaxOps: 2})
	if err != nil || len(ops) != 2 || ops[0].LaneSeq != 1 {
		t.Fatalf("MaxOps 2: %d ops, %v", len(ops), err)
	}
	ops, err = o.PendingOps(ctx, annals.OutboxRead{ChatID: "bd", MaxBytes: 1})
	if err != nil || len(ops) != 1 {
		t.Fatalf("MaxBytes 1: %d ops, %v; want the first alone", len(ops), err)
	}
	all := laneOps(t, o, "bd")
	budget := int64(len(all[0].Payload) + len(all[1].Payload) + len(all[2].Payload) - 1)
	ops, err = o.PendingOps(ctx, annals.OutboxRead{ChatID: "bd", MaxBytes: budget})
	if err != nil || len(ops) != 2 {
		t.Fatalf("MaxBytes of three payloads less one: %d ops, %v; want 2", len(ops), err)
	}
	_, err = o.PendingOps(ctx, annals.OutboxRead{ChatID: ""})
	wantCode(t, "PendingOps without a chat", err, annals.EINVALID)
}

func testOutboxHostID(t *testing.T, s Store) {
	ctx := context.Background()
	o, first := mustOutboxOn(t, s)
	again, err := o.SetOutbox(ctx, true)
	if err != nil || again.ID != first.ID {
		t.Fatalf("second SetOutbox = %+v, %v; want the same host id %s", again, err, first.ID)
	}
	check, err := o.CheckHost(ctx)
	if err != nil || check.Moved || check.Reason != "" {
		t.Fatalf("CheckHost where the id was created = %+v, %v; want not moved", check, err)
	}
	mustCreateChat(t, s, NewChat("h", "t1"))
	renewed, err := o.NewHostID(ctx)
	if err != nil || renewed.ID == first.ID || len(renewed.ID) != 32 || !renewed.Outbox {
		t.Fatalf("NewHostID = %+v, %v; want a new id, outbox still on", renewed, err)
	}
	mustAppend(t, s, "h", Entries("h", 1)...)
	ops := laneOps(t, o, "h")
	if len(ops) != 2 || ops[0].Host != first.ID || ops[1].Host != renewed.ID {
		t.Fatalf("ops hosts = %v, want the old id kept and the new id on the new op", ops)
	}
}

// testOutboxNotify: a listener (annals.OutboxNotifier) is woken by every commit that queued
// operations, by the time the write returns, and not by a refused batch, a write that queued
// nothing (an acknowledgement) or a read; after it stops listening it is not woken.
func testOutboxNotify(t *testing.T, s Store) {
	ctx := context.Background()
	n, ok := any(s).(annals.OutboxNotifier)
	if !ok {
		t.Fatalf("%T does not notify its outbox's commits (annals.OutboxNotifier)", s)
	}
	o, _ := mustOutboxOn(t, s)
	wake, stop := n.NotifyOutbox()
	woken := func() bool {
		select {
		case <-wake:
			return true
		default:
			return false
		}
	}
	woken() // turning the outbox on may have queued
	mustCreateChat(t, s, NewChat("nt", "t1"))
	if !woken() {
		t.Fatal("a chat created with the outbox on did not wake the listener")
	}
	mustAppend(t, s, "nt", Entries("a", 1)...)
	mustAppend(t, s, "nt", Entries("b", 1)...)
	if !woken() || woken() {
		t.Fatal("two appends: want one pending wake (coalesced), then none")
	}
	_, err := s.Capture(ctx, []annals.CaptureOp{
		{Append: &annals.AppendOp{ChatID: "nt", Entries: Entries("c", 1)}},
		{Append: &annals.AppendOp{ChatID: "missing", Entries: Entries("m", 1)}},
	})
	wantBatchError(t, err, 1, annals.ENOTFOUND)
	ops := laneOps(t, o, "nt")
	if _, err := o.AckOps(ctx, []string{ops[0].ID}, BaseTime); err != nil {
		t.Fatal(err)
	}
	mustChat(t, s, "nt")
	if woken() {
		t.Error("a refused batch, an acknowledgement or a read woke the listener")
	}
	stop()
	mustAppend(t, s, "nt", Entries("d", 1)...)
	if woken() {
		t.Error("a listener that stopped was woken")
	}
}
