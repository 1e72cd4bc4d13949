package chatgpt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestThoughtsRecapAndBranchTitle imports a conversation written from the export's documented
// shape (mapping nodes; a thoughts node whose text is in parts, as older exports write it, a
// reasoning_recap after it, and a regenerated answer left on an inactive branch): the thoughts
// are the reasoning of their entry and the recap ends it, no event is left, and the branch
// chat is titled.
func TestThoughtsRecapAndBranchTitle(t *testing.T) {
	const id = "chatgpt:6866a1b0-0000-8000-9000-heron0000001"
	path := importertest.Testdata("chatgpt", "thoughts-branch.json")
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"chatgpt"}, path)
	if c.Title != "Heron facts" {
		t.Errorf("title %q", c.Title)
	}
	k := importertest.Kinds(es)
	if k[annals.KindUser] != 1 || k[annals.KindAssistant] != 2 || k[annals.KindEvent] != 0 || len(es) != 3 {
		t.Fatalf("kinds %v, want the prompt, the thoughts, the answer and no event", k)
	}
	th := es[1]
	if th.Reasoning != "Recall the grey heron's standing height, about a metre.\n\nThought for 5s" || th.Text != "" || len(th.SourceIDs) != 2 {
		t.Errorf("thoughts entry reasoning %q text %q sources %v", th.Reasoning, th.Text, th.SourceIDs)
	}
	if !th.Time.Equal(time.Unix(1751536802, 0)) || es[2].Text != "About one metre." {
		t.Errorf("thoughts at %v, answer %q", th.Time, es[2].Text)
	}
	b, bes, _ := importertest.StoredChat(t, openDB(t), id+"/branch-a2", []string{"chatgpt"}, path)
	if b.Title != "Heron facts (other branch)" || len(bes) != 1 || bes[0].Text != "Roughly 90 to 100 cm." {
		t.Errorf("branch %q with %d entries", b.Title, len(bes))
	}
}

// TestThinkingSummariesKeepTheirRecaps reads the real export fixture
// pionxzh__thinking-summaries.json (../shared/fixtures/transcripts/SOURCES.md): both reasoning
// recaps end the reasoning of the thoughts before them, and none is an event.
func TestThinkingSummariesKeepTheirRecaps(t *testing.T) {
	path := filepath.Join(importertest.SrcCorpus, "chatgpt-export", "pionxzh__thinking-summaries.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the shared corpus is not here: %v", err)
	}
	p := importertest.MustParse(t, "chatgpt", path)
	var recaps []string
	for _, es := range p.Entries {
		for _, e := range es {
			if e.Kind == annals.KindEvent {
				t.Errorf("event %s on %s: %q", e.ID, e.Channel, e.Text)
			}
			if strings.HasSuffix(e.Reasoning, "Thought for 29s") || strings.HasSuffix(e.Reasoning, "Thought for 14s") {
				recaps = append(recaps, e.ID)
			}
		}
	}
	if len(recaps) != 2 {
		t.Errorf("entries ending with a recap: %v, want two", recaps)
	}
}
