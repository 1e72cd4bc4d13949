package claudecode_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestResumedSessionIsKeyedOnItsOwnID imports a resumed session's file as Claude Code writes it
// (anthropics/claude-code#4926: `claude --resume <A>` starts session C in C.jsonl, whose first
// lines are A's, copied with sessionId A, and whose later lines carry C): the chat is C's, the
// resume command names C, resumed_from names A, and nothing of either part is lost.
func TestResumedSessionIsKeyedOnItsOwnID(t *testing.T) {
	const a, c = "3f1c9a2e-5b7d-4e8f-9a01-2b3c4d5e6f70", "8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f"
	path := importertest.Testdata("claude-code", "resumed", c+".jsonl")
	chat, es, runs := importertest.StoredChat(t, openDB(t), "claude-code:"+c, []string{"claude-code"}, path)
	if chat.Attributes["resumed_from"] != a || chat.Attributes[importer.SessionIDAttr] != c || chat.Attributes[importer.ResumeCommandAttr] != "claude --resume "+c {
		t.Errorf("attributes %v, want resumed_from %s and the resume of %s", chat.Attributes, a, c)
	}
	if k := importertest.Kinds(es); k[annals.KindUser] != 2 || k[annals.KindAssistant] != 2 || len(es) != 4 || len(runs) != 2 {
		t.Fatalf("kinds %v (%d entries), %d runs; want both parts: 2 prompts, 2 replies, 2 runs", k, len(es), len(runs))
	}
	if want := time.Date(2025, 8, 1, 13, 47, 12, 0, time.UTC); !es[3].Time.Equal(want) || es[3].Text != "To keep the other leg warm." {
		t.Errorf("last entry %q at %v, want the resumed reply at %v", es[3].Text, es[3].Time, want)
	}
	// A file named by its first lines' session is that session, as before.
	old, _, _ := importertest.StoredChat(t, openDB(t), "claude-code:sess-old", []string{"claude-code"}, importertest.Testdata("claude-code", "project", "sess-old.jsonl"))
	if old.Attributes["resumed_from"] != "" {
		t.Errorf("a plain session has resumed_from %q", old.Attributes["resumed_from"])
	}
}
