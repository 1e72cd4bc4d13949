package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// TestReadCommandsRefuseAMissingDatabaseAndCreateNothing proves every command that only reads,
// given a --db path that does not exist, names the path, says how to create a database, and
// leaves neither the file nor its directory behind.
func TestReadCommandsRefuseAMissingDatabaseAndCreateNothing(t *testing.T) {
	tm := newTestMain(t)
	dir := filepath.Join(t.TempDir(), "typo")
	db := filepath.Join(dir, "annals.db")
	for _, args := range [][]string{
		{"list"}, {"search", "deploy"}, {"show", "c1"}, {"export", "c1"}, {"related", "c1"},
		{"pin", "c1"}, {"rename", "c1", "x"},
	} {
		_, _, err := tm.run("", append(args, "--db", db)...)
		if err == nil || !strings.Contains(err.Error(), "no database at "+db) || !strings.Contains(err.Error(), "annals import") {
			t.Errorf("%v on a missing --db: %v, want a refusal naming the path and how to create one", args, err)
		}
		if exitCode(err) != exitError {
			t.Errorf("%v on a missing --db: exit %d, want %d", args, exitCode(err), exitError)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%v on a missing --db created %s: %v", args, dir, err)
		}
	}
}
