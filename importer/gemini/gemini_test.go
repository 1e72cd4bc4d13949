package gemini_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestInitChatInTimeOrderTitledByThePerson imports a legacy Gemini CLI session (the
// ConversationRecord whose message records hold their toolCalls, each with its own timestamp)
// that starts with /init: the prompt /init submits (packages/core/src/commands/init.ts) is a
// system entry, the chat is titled by the first prompt the person typed, and a reply's calls
// (10:00:40, 10:00:50) come before its text, stamped 10:01:00 when the record was written.
func TestInitChatInTimeOrderTitledByThePerson(t *testing.T) {
	c, es, runs := importertest.StoredChat(t, openDB(t), "gemini-cli:gem-init-1", []string{"gemini-cli"}, importertest.Testdata("gemini", "session-2025-07-03T10-00-init.json"))
	if c.Title != "Now add a section about the release process" {
		t.Errorf("title %q, want the first real prompt", c.Title)
	}
	k := importertest.Kinds(es)
	if k[annals.KindSystem] != 1 || k[annals.KindUser] != 1 || k[annals.KindAssistant] != 2 || k[annals.KindTool] != 2 || len(runs) != 2 {
		t.Errorf("kinds %v, %d runs; want the /init prompt as system, one prompt, 2 replies, 2 calls, 2 runs", k, len(runs))
	}
	var order []string
	for i, e := range es {
		if i > 0 && e.Time.Before(es[i-1].Time) {
			t.Errorf("entry %s at %v comes after %s at %v", e.ID, e.Time, es[i-1].ID, es[i-1].Time)
		}
		name := string(e.Kind)
		if e.Tool != nil {
			name = e.Tool.Name + ":" + string(e.Tool.Outcome)
		}
		order = append(order, name)
	}
	want := []string{"system", "list_directory:succeeded", "write_file:succeeded", "assistant", "user", "assistant"}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if at := time.Date(2025, 7, 3, 10, 0, 40, 0, time.UTC); !es[1].Time.Equal(at) {
		t.Errorf("the first call at %v, want %v", es[1].Time, at)
	}
}
