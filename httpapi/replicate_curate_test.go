package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// Curation of one chat from several hosts, through POST /v1/replicate: the host that created the
// chat and a host that holds it without having created it each curate the title, in their own
// lanes; a third, older host sends a version 1 payload (no clock). Two remotes that receive the
// lanes in opposite orders hold the same human layer, the one the conflict rule names; each
// remote keeps one lane per host, and a second host's chat creation is still refused.
func TestReplicateCurationFromSeveralHosts(t *testing.T) {
	ctx := context.Background()
	a, _ := replicaHost(t)
	if _, err := annals.CreateChat(ctx, a, storetest.NewChat("shared", "laptop")); err != nil {
		t.Fatal(err)
	}
	// b holds the chat without having recorded its creation (it came from elsewhere).
	b, _ := mustOpenDB(t)
	if _, err := annals.CreateChat(ctx, b, storetest.NewChat("shared", "laptop")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpdateChat(ctx, mustRef(t, a, "shared"), annals.ChatUpdate{Title: ptr("a's title"), Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.UpdateChat(ctx, mustRef(t, b, "shared"), annals.ChatUpdate{Title: ptr("b's title"), Tags: &[]string{"b"}}); err != nil {
		t.Fatal(err)
	}
	opsA, opsB := pending(t, a, "shared"), pending(t, b, "shared")
	if len(opsA) != 2 || len(opsB) != 1 {
		t.Fatalf("lanes: a %d ops, b %d; want a's creation and curation, b's curation", len(opsA), len(opsB))
	}
	stampA, stampB := curateStamp(t, opsA[1]), curateStamp(t, opsB[0])
	wantTitle := "a's title"
	if stampB.After(stampA) {
		wantTitle = "b's title"
	}
	// A version 1 curation from an old host, an hour after the others: its time orders it.
	v1 := []byte(fmt.Sprintf(`{"v":1,"curate":{"chat_id":"shared","description":"from an old host","at":%q}}`, time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)))
	old := &annals.ReplicationOp{ID: "oldhost.7", Host: "oldhost", Seq: 7, ChatID: "shared", LaneSeq: 1, Kind: annals.OpCurate,
		Payload: v1, Digest: annals.LaneDigest("", "shared", 1, annals.OpCurate, v1)}

	want := fmt.Sprintf("title=%q description=%q tags=[b] pinned=true", wantTitle, "from an old host")
	for name, order := range map[string][][]*annals.ReplicationOp{
		"a first": {opsA, opsB, {old}},
		"b first": {opsA[:1], {old}, opsB, opsA[1:]},
	} {
		remote := newEnv(t, nil)
		key := mustKey(t, remote.db, annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
		for _, ops := range order {
			if res := remote.replicate(t, http.StatusOK, key, ops); len(res.Acked) != len(ops) {
				t.Fatalf("%s: %+v (error %+v)", name, res, res.Error)
			}
		}
		c, err := remote.db.FindChatByID(ctx, "shared")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("title=%q description=%q tags=%v pinned=%v", c.Title, c.Description, c.Tags, c.Pinned); got != want {
			t.Errorf("%s: remote holds %s, want %s", name, got, want)
		}
		// A third database that creates the chat itself writes another chat under its id: refused.
		other, _ := replicaHost(t)
		if _, err := annals.CreateChat(ctx, other, storetest.NewChat("shared", "desktop")); err != nil {
			t.Fatal(err)
		}
		if res := remote.replicate(t, http.StatusConflict, key, pending(t, other, "shared")); res.Error == nil || res.Error.Code != annals.ECONFLICT {
			t.Errorf("%s: another host's creation of the chat = %+v, want a conflict", name, res)
		}
		var heads annals.ReplicaHeads
		remote.must(http.StatusOK, "POST", "/v1/replicate/heads", key, `{"chat_ids":["shared"]}`).json(t, &heads)
		if len(heads.Lanes) != 3 {
			t.Errorf("%s: heads = %d lanes, want one per host (3)", name, len(heads.Lanes))
		}
	}
}

// curateStamp is the stamp of a queued curation.
func curateStamp(t *testing.T, op *annals.ReplicationOp) annals.FieldStamp {
	t.Helper()
	p, err := annals.DecodePayload(op.Payload)
	if err != nil || p.Curate == nil || p.V != 2 || p.Curate.HLC == 0 {
		t.Fatalf("payload %s: %v; want a version 2 curation with a clock", op.Payload, err)
	}
	return p.Curate.Stamp(op.Host)
}
