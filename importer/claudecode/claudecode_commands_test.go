package claudecode_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestCommandsAreEventsNotPrompts imports a session that starts as Claude Code 1.0.108 writes
// one after /clear (the caveat, the <command-name>/clear</command-name> line, its empty
// <local-command-stdout>, then the prompt): the command and its output are events on
// claude-code/command, not user messages; the prompt is the one user entry and names the chat.
func TestCommandsAreEventsNotPrompts(t *testing.T) {
	c, es, _ := importertest.StoredChat(t, openDB(t), "claude-code:sess-title", []string{"claude-code"}, importertest.Testdata("claude-code", "titles", "sess-title.jsonl"))
	k := importertest.Kinds(es)
	if k[annals.KindUser] != 1 || k[annals.KindEvent] != 2 || k[annals.KindSystem] != 1 {
		t.Errorf("kinds %v, want the caveat (system), /clear and its output (events), one prompt", k)
	}
	var cmd *annals.Entry
	for _, e := range es {
		if e.Kind == annals.KindEvent && e.Text == "/clear" {
			cmd = e
		}
	}
	if cmd == nil || cmd.Channel != "claude-code/command" || importertest.MetaOf(t, cmd)["command"] != "/clear" {
		t.Errorf("the /clear line = %+v, want an event on claude-code/command naming the command", cmd)
	}
	if c.Title == "" || c.Title == "/clear" {
		t.Errorf("title %q, want the first real prompt's", c.Title)
	}
}
