package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/mcp"
)

// A session handed a member's door (a member key at /mcp) reaches nothing the door refuses:
// no curating tool is offered, the envelope's write ops are refused, the scopes are the
// member's, and nothing is written.
func TestASessionForAMemberCannotReachWhatTheDoorRefuses(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	door := history.For(e.svc, alice(), history.Access{Surface: history.SurfaceAgent})
	srv, err := e.srv.NewMCPServer(mcp.Session{Service: door})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"history_rename", "history_annotate", "history_pin", "history_archive"} {
			if tool.Name == w {
				t.Errorf("a member's session offers %s", w)
			}
		}
	}
	for _, args := range []map[string]any{
		{"op": "pin", "session_id": "alice-1"},
		{"op": "rename", "session_id": "alice-1", "title": "x"},
		{"op": "recap", "session_id": "alice-1"},
	} {
		if r := callTool(t, cs, "history", args); !r.isError {
			t.Errorf("the envelope's %v passed a member's door: %s", args["op"], r.text)
		}
	}
	if r := callTool(t, cs, "history_list", map[string]any{"scope": "global"}); !r.isError || !strings.Contains(r.text, "reserved for admin") {
		t.Errorf("a member listed scope global: %s", r.text)
	}
	if r := callTool(t, cs, "history_read", map[string]any{"id": "bob-1"}); !r.isError || !strings.Contains(r.text, "not found") {
		t.Errorf("a member read another tenant's chat: %s", r.text)
	}
	got, err := e.db.FindChatByID(context.Background(), "alice-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Pinned || got.Title != "Flaky integration test" || got.Summary != "" {
		t.Errorf("a member's session changed the chat: %+v", got)
	}
}
