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
	db := importertest.MustOpenDB(t)
	opts := importer.Options{Formats: importertest.FormatsNamed(t, "cline", "claude-code", "chatgpt", "gemini-cli"), Titles: importertest.Titles{DB: db}}
	first := importertest.ImportAll(t, importer.New(forgetful{db}, opts), paths...).Total()
	if first.Chats != 6 || first.Entries == 0 {
		t.Fatalf("first import %+v, want 6 chats (cline, claude-code ×2, chatgpt and its branch, gemini)", first)
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
