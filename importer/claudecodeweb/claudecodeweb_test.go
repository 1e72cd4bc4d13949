package claudecodeweb_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture is a Claude Code on the web session as the sessions API returns it,
// {"loglines": [...]}, its loglines of the shape of a local session's .jsonl lines (the shape
// simonw/claude-code-transcripts reads from it: loglines[].type, .message.content, ...).
func TestClaudeCodeWebSessionIsStoredLikeALocalOne(t *testing.T) {
	const id = "claude-code:c3d4e5f6-0a1b-4c2d-8e3f-445566778899"
	path := importertest.Testdata("claude-code-web", "session_walrus.json")
	if !importertest.Format(t, "claude-code-web").Detect(path, importertest.Head(t, path)) {
		t.Fatal("claude-code-web does not claim the session document")
	}
	c, es, rs := importertest.StoredChat(t, openDB(t), id, []string{"claude-code-web"}, path)
	if c.Attributes["source"] != "claude-code" || c.Attributes["cwd"] != "/home/user/walrus" || c.Attributes["git_branch"] != "claude/fix-walrus-clock" {
		t.Errorf("attributes %v", c.Attributes)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 1 {
		t.Errorf("entries by kind %v", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(e.Tool.Result, "got 11, want 12")) {
			t.Errorf("Bash call %+v, want its failed result", e.Tool)
		}
	}
	if len(rs) != 2 || rs[0].OutputTokens != 55 {
		t.Errorf("runs %+v, want 2, the first with the final usage", rs)
	}
}
