package droid_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture follows Factory Droid's session files as the tools that read them describe them
// (~/.factory/sessions/<encoded project path>/<uuid>.jsonl: a session_start line {type, id,
// title, sessionTitle, owner, version, cwd}, then {type: message, id, timestamp, message: {role,
// content}} lines with Anthropic-style blocks; <uuid>.settings.json beside it).
func TestFactoryDroidSessionKeepsItsToolCall(t *testing.T) {
	const id = "factory-droid:6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a"
	path := importertest.Testdata("factory-droid", ".factory", "sessions", "-home-u-plover", "6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a.jsonl")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"factory-droid"}, path)
	if c.Title != "Fix the plover lint errors" || c.Attributes["cwd"] != "/home/u/plover" || c.Attributes["model"] != "claude-sonnet-4-5-20250929" {
		t.Errorf("chat %q %v", c.Title, c.Attributes)
	}
	if len(es) != 4 || es[2].Tool == nil || es[2].Tool.Outcome != annals.OutcomeFailed || !strings.Contains(es[2].Tool.Result, "F401") {
		for _, e := range es {
			t.Logf("%s %s %q %+v", e.ID, e.Kind, e.Text, e.Tool)
		}
		t.Fatalf("%d entries, want prompt, reply, the failed ruff call and the answer", len(es))
	}
}
