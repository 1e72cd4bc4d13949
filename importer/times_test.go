package importer_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// cgNoConversationTimes is a ChatGPT conversation object in the export's shape (the fields of
// mitkury/chatgpt-export-parser tests/example-conversation.json) whose conversation-level
// create_time and update_time are null, as the conversation objects some exporters save carry:
// only the messages know when they were written, and the last one only by its update_time.
const cgNoConversationTimes = `{
  "id": "conv-times", "title": "Watering schedule", "create_time": null, "update_time": null,
  "current_node": "m3",
  "mapping": {
    "m1": {"id": "m1", "parent": null, "children": ["m2"], "message": {"id": "m1", "author": {"role": "user", "name": null, "metadata": {}},
      "create_time": 1704067300.5, "update_time": null, "content": {"content_type": "text", "parts": ["How often should tomatoes be watered?"]},
      "status": "finished", "end_turn": null, "weight": 1, "metadata": {}, "recipient": "all"}},
    "m2": {"id": "m2", "parent": "m1", "children": ["m3"], "message": {"id": "m2", "author": {"role": "assistant", "name": null, "metadata": {}},
      "create_time": 1704067360, "update_time": null, "content": {"content_type": "text", "parts": ["Deeply, about twice a week."]},
      "status": "finished", "end_turn": true, "weight": 1, "metadata": {"model_slug": "gpt-4o"}, "recipient": "all"}},
    "m3": {"id": "m3", "parent": "m2", "children": [], "message": {"id": "m3", "author": {"role": "user", "name": null, "metadata": {}},
      "create_time": null, "update_time": 1704070800, "content": {"content_type": "text", "parts": ["And in August?"]},
      "status": "finished", "end_turn": null, "weight": 1, "metadata": {}, "recipient": "all"}}
  }
}`

func TestChatGPTTimesComeFromTheMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conversations.json")
	importertest.WriteFile(t, path, []byte(cgNoConversationTimes))
	c, es, _ := importertest.StoredChat(t, openDB(t), "chatgpt:conv-times", []string{"chatgpt"}, path)
	first := time.Unix(1704067300, 5e8).UTC()
	last := time.Unix(1704070800, 0).UTC()
	if !c.CreatedAt.Equal(first) {
		t.Errorf("created %s, want the first message's time %s (not the import time)", c.CreatedAt, first)
	}
	if !c.LastActivity.Equal(last) {
		t.Errorf("last activity %s, want the last message's update_time %s", c.LastActivity, last)
	}
	if len(es) != 3 || !es[2].Time.Equal(last) {
		t.Errorf("entries %d, last at %v; want 3, the last at its update_time", len(es), es[len(es)-1].Time)
	}
}

// TestHeaderlessAiderChatKeepsItsTimeWhenTouched imports an Aider history without a
// "# aider chat started at" header (the shape of Aider's tests/fixtures/chat-history.md, cut
// before its first header), touches the file and imports again: the chat and its entries keep
// the time of the first import.
func TestHeaderlessAiderChatKeepsItsTimeWhenTouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".aider.chat.history.md")
	importertest.WriteFile(t, path, []byte("#### add a frost warning to garden.py  \n\nI'll add a check for temperatures below 2°C.\n\n> Applied edit to garden.py  \n> Commit 1a2b3c4 feat: warn about frost  \n"))
	found := time.Date(2025, 3, 10, 14, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, found, found); err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "aider")})
	importertest.ImportAll(t, im, path)
	before := importertest.TakeSnapshot(t, db)
	if len(before.Chats) != 1 || !before.Chats[0].CreatedAt.Equal(found) {
		t.Fatalf("chats %+v, want one dated by the file's time", before.Chats)
	}
	touched := found.Add(48 * time.Hour)
	if err := os.Chtimes(path, touched, touched); err != nil {
		t.Fatal(err)
	}
	importertest.ImportAll(t, im, path)
	after := importertest.TakeSnapshot(t, db)
	c := after.Chats[0]
	if !c.CreatedAt.Equal(found) || !c.LastActivity.Equal(found) {
		t.Errorf("after a touch: created %s, last activity %s; want both still %s", c.CreatedAt, c.LastActivity, found)
	}
	for _, e := range after.Entries[c.ID] {
		if !e.Time.Equal(found) {
			t.Errorf("entry %s at %s after a touch, want %s", e.ID, e.Time, found)
		}
	}
	if len(after.Entries[c.ID]) != len(before.Entries[c.ID]) || len(after.Entries[c.ID]) != 3 {
		t.Errorf("%d entries after, %d before; want 3", len(after.Entries[c.ID]), len(before.Entries[c.ID]))
	}
}
