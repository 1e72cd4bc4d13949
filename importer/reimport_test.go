package importer_test

import (
	"reflect"
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestIssue31FixturesImportOnce re-imports the fixtures of issue 31's first slice (Cline 3.x
// native calls, a resumed Claude Code session and its commands, a ChatGPT recap and branch,
// Gemini's /init and call order) without the import state, so every source is read again:
// nothing is created, appended or changed, agents and attributes included.
func TestIssue31FixturesImportOnce(t *testing.T) {
	paths := []string{
		"testdata/cline/globalStorage/saoudrizwan.claude-dev/tasks/1767398400000",
		"testdata/claude-code/resumed", "testdata/claude-code/titles",
		"testdata/chatgpt/thoughts-branch.json", "testdata/gemini/session-2025-07-03T10-00-init.json",
	}
	importTwice(t, paths, 6, "cline", "claude-code", "chatgpt", "gemini-cli")
}

// TestIssue31NewReadersImportOnce does the same for the readers of issue 31's tools that were
// missing (iFlow CLI, Hermes sessions and trajectories, gptme, Pi, claude.ai exports, Mistral
// Vibe, Grok Build, Google AI Studio, Copilot CLI before 1.0, Antigravity CLI, Cline 4).
func TestIssue31NewReadersImportOnce(t *testing.T) {
	paths := []string{"testdata/iflow", "testdata/hermes", "testdata/gptme", "testdata/pi", "testdata/claude-ai", "testdata/mistral-vibe", "testdata/grok", "testdata/ai-studio", "testdata/copilot-cli-legacy", "testdata/antigravity", "testdata/cline-session"}
	importTwice(t, paths, 13, "antigravity", "cline-session", "iflow", "hermes", "hermes-trajectory", "gptme", "pi", "claude-ai", "mistral-vibe", "grok", "ai-studio", "copilot-cli-legacy")
}

// importTwice imports paths with the named formats, checks that wantChats chats were made,
// and imports them again without the import state: nothing may change.
func importTwice(t *testing.T, paths []string, wantChats int, formats ...string) {
	t.Helper()
	db := openDB(t)
	opts := importer.Options{Formats: importertest.FormatsNamed(t, formats...), Titles: importertest.Titles{DB: db}}
	first := importertest.ImportAll(t, importer.New(forgetful{db}, opts), paths...).Total()
	if first.Chats != wantChats || first.Entries == 0 || first.Warnings != 0 {
		t.Fatalf("first import %+v, want %d chats and no warnings", first, wantChats)
	}
	before := importertest.TakeSnapshot(t, db)
	again := importertest.ImportAll(t, importer.New(forgetful{db}, opts), paths...).Total()
	if again.Chats != 0 || again.Entries != 0 || again.Removed != 0 || again.Warnings != 0 {
		t.Errorf("second import %+v, want nothing created, appended, removed or warned", again)
	}
	if after := importertest.TakeSnapshot(t, db); !reflect.DeepEqual(before, after) {
		t.Error("the store differs after importing the same sources again")
	}
}
