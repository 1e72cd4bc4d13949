package mcp_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// TestToolsTakeTheIDsAgentsHave proves an agent reads, resumes and curates its own session by the
// source tool's id (the Claude Code session UUID it knows), under id or session_id, pasted with
// spaces or in upper case; that an empty or contradictory id is refused by name; and that another
// tenant's session is not found by the same forms, exactly as a missing one.
func TestToolsTakeTheIDsAgentsHave(t *testing.T) {
	e := newEnv(t)
	const mine, theirs = "0d5e8c1a-2b3f-4c4d-9e5f-6a7b8c9d0e1f", "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
	e.chat(alice(), "claude-code:"+mine, "My own session", nil)
	e.chat(bob(), "claude-code:"+theirs, "Their session", nil)
	cs := e.connect(alice(), true)

	for _, args := range []map[string]any{
		{"id": mine}, {"session_id": mine}, {"session_id": " " + strings.ToUpper(mine) + "\n"},
		{"id": mine, "session_id": mine}, {"id": "/home/alice/.claude/projects/-src/" + mine + ".jsonl"},
	} {
		r := callTool(t, cs, "history_read", args)
		if r.isError || r.data["id"] != "claude-code:"+mine {
			t.Errorf("history_read %v: error %v, id %v: %.200s", args, r.isError, r.data["id"], r.text)
		}
	}
	if r := callTool(t, cs, "history_resume", map[string]any{"session_id": mine}); r.isError || r.data["session_id"] != "claude-code:"+mine {
		t.Errorf("history_resume by session_id: %.300s", r.text)
	}
	if r := callTool(t, cs, "history_rename", map[string]any{"session_id": mine, "title": "Renamed by its UUID"}); r.isError {
		t.Errorf("history_rename by session_id: %.300s", r.text)
	}
	if c, err := e.db.FindChatByID(t.Context(), "claude-code:"+mine); err != nil || c.Title != "Renamed by its UUID" {
		t.Errorf("after history_rename by the UUID: %v, %v", c, err)
	}
	if r := callTool(t, cs, "history", map[string]any{"op": "get", "session_id": mine}); r.isError || !strings.Contains(r.text, "claude-code:"+mine) {
		t.Errorf("history op get by the UUID: %.300s", r.text)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "id is required"},
		{map[string]any{"id": "   "}, "session_id is required"},
		{map[string]any{"id": mine, "session_id": theirs}, "id and session_id name different sessions"},
	} {
		if r := callTool(t, cs, "history_read", tc.args); !r.isError || !strings.Contains(r.text, tc.want) {
			t.Errorf("history_read %v: %.200s, want an error saying %q", tc.args, r.text, tc.want)
		}
	}

	missing := "5a5a5a5a-0000-4000-8000-000000000000"
	for _, id := range []string{theirs, strings.ToUpper(theirs), "9f8e", "claude-code:" + theirs, missing} {
		for _, tool := range []string{"history_read", "history_resume", "history_recap"} {
			r := callTool(t, cs, tool, map[string]any{"session_id": id})
			if !r.isError || !strings.Contains(r.text, annals.NotFound(id).Message) || strings.Contains(r.text, "Their session") {
				t.Errorf("%s of tenant B's %q as alice: %.300s, want not found as for a missing id", tool, id, r.text)
			}
		}
	}
}
