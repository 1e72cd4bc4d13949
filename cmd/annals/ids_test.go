package main

import (
	"encoding/json"
	"testing"
)

// TestListTakesPlainDatesAsWholeDays proves --from and --to take a date alone as the whole day
// in UTC: a chat active that evening is inside --to of the same day, and the day before is not.
func TestListTakesPlainDatesAsWholeDays(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"before","created_at":"2025-03-13T23:59:59Z"}
{"type":"chat","id":"evening","created_at":"2025-03-14T21:30:00Z"}
{"type":"chat","id":"after","created_at":"2025-03-15T00:00:00Z"}
`, "ingest", "-")
	var page struct {
		Chats []struct {
			ID string `json:"id"`
		} `json:"chats"`
	}
	out := tm.mustRun("", "list", "--from", "2025-03-14", "--to", "2025-03-14", "--json")
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(page.Chats) != 1 || page.Chats[0].ID != "evening" {
		t.Errorf("list --from 2025-03-14 --to 2025-03-14 = %+v, want only the chat of that evening", page.Chats)
	}
}
