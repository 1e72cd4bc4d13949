package main

import (
	"strings"
	"testing"
)

// TestImportThroughAServerGivesChatsTheirAgent: chats imported through a server get their
// agent as a local import gives it (listed by agent on the server).
func TestImportThroughAServerGivesChatsTheirAgent(t *testing.T) {
	server := newTestMain(t)
	server.mustRun(twoChats, "ingest")
	s := startServe(t, server)
	client := newTestMain(t)
	placeImport(t, client.home)
	client.mustRun("", "--server", s.url, "import")
	if list := server.mustRun("", "list", "--agent", "codex", "--json"); !strings.Contains(list, "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000") {
		t.Errorf("the server's list --agent codex lacks the codex chat:\n%s", list)
	}
}
