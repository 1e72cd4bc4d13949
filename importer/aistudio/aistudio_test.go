package aistudio_test

import (
	"os"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// The fixture is an excerpt of a real AI Studio chat saved to Google Drive (Drive file
// 1T4EMjafAz34r_1OVQQcgsjW5cpKlpl6N, archived verbatim in a public notes repository): its run
// settings, the prompt, the thought chunk and the reply, with the thought's and the reply's
// middles cut (marked).
func TestAIStudioChatKeepsThoughtAsReasoning(t *testing.T) {
	path := importertest.Testdata("ai-studio", "Downloads", "Takeout", "Drive", "Google AI Studio", "Google Drive Video Embed Code")
	p := importertest.MustParse(t, "ai-studio", path)
	if len(p.Chats) != 1 {
		t.Fatalf("%d chats", len(p.Chats))
	}
	id := p.Chats[0].ID
	c, es, _ := importertest.StoredChat(t, openDB(t), id, []string{"ai-studio"}, path)
	if c.Title != "Google Drive Video Embed Code" || c.AgentID != "ai-studio" || c.Attributes["model"] != "gemini-2.5-pro-exp-03-25" || !strings.HasPrefix(id, "ai-studio:Google") {
		t.Errorf("chat %s %q agent %q attributes %v", id, c.Title, c.AgentID, c.Attributes)
	}
	kinds := importertest.Kinds(es)
	if len(es) != 2 || kinds[annals.KindUser] != 1 || kinds[annals.KindAssistant] != 1 {
		t.Fatalf("%d entries %v, want the prompt and the reply (the thought is its reasoning, the empty pending input nothing)", len(es), kinds)
	}
	reply := es[1]
	if reply.ID != "c2" || !strings.HasPrefix(reply.Reasoning, "Here's a thinking process") || !strings.Contains(reply.Text, "<iframe") {
		t.Errorf("reply %s: reasoning %.40q text %.40q", reply.ID, reply.Reasoning, reply.Text)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !es[0].Time.Equal(fi.ModTime().UTC()) {
		t.Errorf("prompt at %s, want the file's time %s", es[0].Time, fi.ModTime().UTC())
	}
}
