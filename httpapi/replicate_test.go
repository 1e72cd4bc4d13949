package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// replicaHost is a host database with its outbox on.
func replicaHost(t *testing.T) (*sqlite.DB, *annals.HostIdentity) {
	t.Helper()
	db, _ := mustOpenDB(t)
	id, err := db.SetOutbox(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	return db, id
}

func pending(t *testing.T, host *sqlite.DB, chatID string) []*annals.ReplicationOp {
	t.Helper()
	ops, err := host.PendingOps(context.Background(), annals.OutboxRead{ChatID: chatID})
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func replicateBody(t *testing.T, ops []*annals.ReplicationOp) string {
	t.Helper()
	b, err := json.Marshal(annals.ReplicateRequest{Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (e *env) replicate(t *testing.T, want int, key string, ops []*annals.ReplicationOp) *annals.ReplicateResult {
	t.Helper()
	r := e.must(want, "POST", "/v1/replicate", key, replicateBody(t, ops))
	var res annals.ReplicateResult
	r.json(t, &res)
	return &res
}

// A host's lane, every kind of change, applied by a remote through POST /v1/replicate with an
// operator key: the remote's chat is in the key's tenant with the host of origin, its lane head
// is the host's, an entry over 1 MiB is cut in the middle with a marker (the host's stays
// whole), and a redelivery acknowledges the same ids and changes nothing.
func TestReplicateAppliesAHostLane(t *testing.T) {
	ctx := context.Background()
	host, id := replicaHost(t)
	remote := newEnv(t, nil)
	key := mustKey(t, remote.db, annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})

	c := storetest.NewChat("h1", "laptop")
	c.UserID = "ana"
	if _, err := annals.CreateChat(ctx, host, c); err != nil {
		t.Fatal(err)
	}
	big := "HEAD-" + strings.Repeat("é", 300<<10) + strings.Repeat("x", 900<<10) + "-TAIL"
	entries := append(storetest.Entries("e", 3), storetest.ToolEntry("tool-1", "read", `{}`, big))
	if _, err := annals.AppendEntries(ctx, host, "h1", entries); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.TruncateChat(ctx, host, "h1", annals.TruncatePoint{EntryID: "e-3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, host, "h1", []*annals.Entry{storetest.ToolEntry("tool-1", "read", `{}`, big)}); err != nil {
		t.Fatal(err)
	}
	if _, err := host.UpdateChat(ctx, mustRef(t, host, "h1"), annals.ChatUpdate{Title: ptr("replicated title"), Archived: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	ops := pending(t, host, "h1")
	res := remote.replicate(t, http.StatusOK, key, ops)
	if len(res.Acked) != len(ops) || res.Error != nil || res.Head.Seq != ops[len(ops)-1].LaneSeq || res.Head.Digest != ops[len(ops)-1].Digest {
		t.Fatalf("result = %+v (error %+v); want every op acknowledged and the host's head", res, res.Error)
	}
	got, err := remote.db.FindChatByID(ctx, "h1")
	if err != nil {
		t.Fatal(err)
	}
	if got.TenantID != "team" || got.UserID != "ana" || got.Attributes[history.OriginHostAttr] != id.ID || got.Title != "replicated title" || got.ArchivedAt == nil {
		t.Fatalf("remote chat = tenant %q user %q attrs %v title %q archived %v; want team, ana, the host of origin, the title, archived",
			got.TenantID, got.UserID, got.Attributes, got.Title, got.ArchivedAt)
	}
	local, _ := host.FindChatByID(ctx, "h1")
	if !got.ArchivedAt.Equal(*local.ArchivedAt) || !got.CreatedAt.Equal(local.CreatedAt) {
		t.Errorf("remote times = created %v archived %v; want the host's %v and %v", got.CreatedAt, got.ArchivedAt, local.CreatedAt, local.ArchivedAt)
	}
	remoteEntries, _ := remote.db.FindEntries(ctx, annals.EntryFilter{ChatID: "h1"})
	localEntries, _ := host.FindEntries(ctx, annals.EntryFilter{ChatID: "h1"})
	if len(remoteEntries) != 3 || len(localEntries) != 3 {
		t.Fatalf("entries: remote %d, local %d; want 3 each", len(remoteEntries), len(localEntries))
	}
	cut := remoteEntries[2].Tool.Result
	if localEntries[2].Tool.Result != big {
		t.Error("the host's own copy of the large entry was changed")
	}
	if remoteEntries[2].Size() > history.MaxReplicaEntryBytes || !strings.HasPrefix(cut, "HEAD-éé") || !strings.HasSuffix(cut, "xx-TAIL") ||
		!strings.Contains(cut, "bytes from the middle of this text") || !utf8.ValidString(cut) {
		t.Errorf("remote copy of the large result: %d bytes, starts %q, ends %q; want at most 1 MiB, both ends and the marker",
			len(cut), cut[:12], cut[len(cut)-12:])
	}
	// Redelivered: the same acknowledgements, nothing applied twice.
	again := remote.replicate(t, http.StatusOK, key, ops)
	if len(again.Acked) != len(ops) || again.Head.Seq != res.Head.Seq {
		t.Fatalf("redelivery = %+v, want every id acknowledged again at the same head", again)
	}
	if n, _ := remote.db.FindEntries(ctx, annals.EntryFilter{ChatID: "h1"}); len(n) != 3 {
		t.Errorf("after a redelivery the remote holds %d entries, want 3", len(n))
	}
}

// The refusals: a member key, an operation whose predecessor is missing (out_of_order, with the
// head to resend from), a payload that does not chain to the remote's head, and any operation
// after a chat's tombstone.
func TestReplicateRefusals(t *testing.T) {
	ctx := context.Background()
	host, _ := replicaHost(t)
	remote := newEnv(t, nil)
	key := mustKey(t, remote.db, annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
	member := mustKey(t, remote.db, annals.Principal{TenantID: "team", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	if _, err := annals.CreateChat(ctx, host, storetest.NewChat("r1", "laptop")); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := annals.AppendEntries(ctx, host, "r1", storetest.Entries("e"+string(rune('a'+i)), 1)); err != nil {
			t.Fatal(err)
		}
	}
	ops := pending(t, host, "r1")
	if code := remote.must(http.StatusForbidden, "POST", "/v1/replicate", member, replicateBody(t, ops)).errorOf(t).Code; code != annals.EFORBIDDEN {
		t.Fatalf("member key: code %s", code)
	}
	gap := remote.replicate(t, http.StatusConflict, key, ops[2:])
	if gap.Error == nil || gap.Error.Code != annals.EOUTOFORDER || gap.Head.Seq != 0 || len(gap.Acked) != 0 {
		t.Fatalf("a lane sent from seq 3 = %+v; want out_of_order at head 0", gap)
	}
	if res := remote.replicate(t, http.StatusOK, key, ops[:2]); len(res.Acked) != 2 {
		t.Fatalf("first two = %+v", res)
	}
	tampered := *ops[2]
	tampered.Digest = strings.Repeat("0", 64)
	bad := remote.replicate(t, http.StatusConflict, key, []*annals.ReplicationOp{&tampered})
	if bad.Error == nil || bad.Error.Code != annals.ECONFLICT || bad.Error.OpID != tampered.ID || bad.Head.Seq != 2 {
		t.Fatalf("a digest that does not chain = %+v; want conflict naming the op, head at 2", bad)
	}
	// Sent with the two before it: those acknowledged again, this one applied.
	if res := remote.replicate(t, http.StatusOK, key, ops); len(res.Acked) != 4 || res.Head.Seq != 4 {
		t.Fatalf("the whole lane = %+v", res)
	}
	if err := host.DeleteChat(ctx, mustRef(t, host, "r1")); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, host, storetest.NewChat("r1", "laptop")); err != nil {
		t.Fatal(err)
	}
	ops = pending(t, host, "r1")
	res := remote.replicate(t, http.StatusConflict, key, ops)
	if len(res.Acked) != 5 || res.Error == nil || res.Error.Code != annals.ECONFLICT || !strings.Contains(res.Error.Message, "deleted") || !res.Head.Deleted {
		t.Fatalf("after the tombstone = %+v (error %+v); want the delete applied and the new chat refused", res, res.Error)
	}
	if _, err := remote.db.FindChatByID(ctx, "r1"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the remote still holds the deleted chat: %v", err)
	}
}

func mustRef(t *testing.T, db *sqlite.DB, id string) annals.ChatRef {
	t.Helper()
	c, err := db.FindChatByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c.Ref()
}

func ptr[T any](v T) *T { return &v }
