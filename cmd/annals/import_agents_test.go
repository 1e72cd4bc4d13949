package main

import (
	"database/sql"
	"strings"
	"testing"
)

// Chats imported before imported chats had agents (simulated by clearing the agents in the
// database file, as such a database holds them) get their agent when `annals import` runs again
// over the same, unchanged files: listed by agent, and the report says so.
func TestImportAgainGivesOldImportsTheirAgent(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	tm.mustRun("", "import")
	raw, err := sql.Open("sqlite", tm.env["ANNALS_DB"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE chats SET agent_id = ''`); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	if list := tm.mustRun("", "list", "--agent", "codex", "--json"); strings.Contains(list, "codex:0197aaaa") {
		t.Fatalf("the cleared agent still lists:\n%s", list)
	}
	out := tm.mustRun("", "import")
	if !strings.Contains(out, "4 chats imported before chats had agents got their agent") {
		t.Errorf("report does not say the agents were given:\n%s", out)
	}
	if list := tm.mustRun("", "list", "--agent", "codex", "--json"); !strings.Contains(list, "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000") {
		t.Errorf("list --agent codex lacks the codex chat:\n%s", list)
	}
	if found := tm.mustRun("", "search", "agent:claude-code zebrafish"); !strings.Contains(found, "claude-code:sess-main") {
		t.Errorf("search agent:claude-code zebrafish:\n%s", found)
	}
}
