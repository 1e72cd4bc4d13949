package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// A host gives a chat it imported without an agent its agent (annals.AgentAdopter): the
// `agent` operation reaches the remote through POST /v1/replicate, the remote's chat is that
// agent's and is listed under it; an agent operation for a chat that already has one on the
// remote is a conflict.
func TestReplicateCarriesAnAdoptedAgent(t *testing.T) {
	ctx := context.Background()
	host, _ := replicaHost(t)
	remote := newEnv(t, nil)
	key := mustKey(t, remote.db, annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
	for _, id := range []string{"imp", "imp2"} {
		c := storetest.NewChat(id, "laptop")
		c.Attributes = annals.Attributes{"source": "codex"}
		if _, err := annals.CreateChat(ctx, host, c); err != nil {
			t.Fatal(err)
		}
		if _, err := host.AdoptAgent(ctx, mustRef(t, host, id), "codex"); err != nil {
			t.Fatal(err)
		}
	}
	ops := pending(t, host, "imp")
	if len(ops) != 2 || ops[1].Kind != annals.OpAgent {
		t.Fatalf("host lane = %d ops, want chat then agent", len(ops))
	}
	res := remote.replicate(t, http.StatusOK, key, ops)
	if len(res.Acked) != 2 || res.Error != nil {
		t.Fatalf("result = %+v (error %+v), want both acknowledged", res, res.Error)
	}
	got, err := remote.db.FindChatByID(ctx, "imp")
	if err != nil || got.AgentID != "codex" || got.TenantID != "team" {
		t.Fatalf("remote chat = %+v, %v; want team's, agent codex", got, err)
	}
	agent := "codex"
	if chats, _, err := remote.db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{TenantID: "team"}, Agent: &agent}); err != nil || len(chats) != 1 {
		t.Errorf("remote chats of agent codex = %d, %v; want 1", len(chats), err)
	}
	// The remote's chat got an agent of its own before the host's operation arrived.
	ops2 := pending(t, host, "imp2")
	remote.replicate(t, http.StatusOK, key, ops2[:1])
	if _, err := remote.db.AdoptAgent(ctx, mustRef(t, remote.db, "imp2"), "other"); err != nil {
		t.Fatal(err)
	}
	refused := remote.replicate(t, http.StatusConflict, key, ops2[1:])
	if refused.Error == nil || refused.Error.Code != annals.ECONFLICT || refused.Error.OpID != ops2[1].ID {
		t.Errorf("agent op on a chat with an agent = %+v, want a conflict naming it", refused.Error)
	}
}
