package main

import (
	"encoding/json"
	"errors"
	"fmt"
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

// TestChatIDsResolveTheSameLocallyAndThroughAServer proves the CLI takes what people paste for a
// chat (a Claude Code transcript path, upper-case hex) on a local database and through a server
// alike, because the service resolves it; an ambiguous prefix and an empty id are usage
// mistakes (exit 2) both ways, and the server's other tenant is not found (exit 3).
func TestChatIDsResolveTheSameLocallyAndThroughAServer(t *testing.T) {
	const sid = "7f3c2a10-1111-4222-8333-444455556666"
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"claude-code:`+sid+`","tenant_id":"local","user_id":"me","title":"from claude"}
{"type":"chat","id":"claude-code:7f3d9999-0000","tenant_id":"local","user_id":"me","title":"another"}
{"type":"chat","id":"claude-code:7f3e0000-0000","tenant_id":"other","user_id":"me","title":"elsewhere"}
`, "ingest", "-")
	// Locally the owner of the file reaches every chat in it; through the server, only its key's.
	check := func(mode string, matches int) {
		t.Helper()
		for _, given := range []string{"/home/me/.claude/projects/-home-me-shop/" + sid + ".jsonl", strings.ToUpper(sid), " " + sid + " "} {
			if out, _, err := tm.run("", "show", given); err != nil || !strings.Contains(out, "from claude") {
				t.Errorf("%s: show %q: %v %.100q", mode, given, err, out)
			}
		}
		_, _, err := tm.run("", "pin", "7f3")
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "claude-code:"+sid) || !strings.Contains(err.Error(), fmt.Sprintf(`"7f3" matches %d chats`, matches)) || strings.Contains(err.Error(), "7f3e") != (matches == 3) {
			t.Errorf("%s: an ambiguous prefix: %v (exit %d), want exit 2 listing the %d chats in reach", mode, err, exitCode(err), matches)
		}
		if _, _, err := tm.run("", "show", " "); exitCode(err) != exitUsage || !strings.Contains(err.Error(), "required") {
			t.Errorf("%s: a blank id: %v (exit %d), want exit 2, required", mode, err, exitCode(err))
		}
	}
	check("local", 3)

	var key struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--json", "--name", "me", "--tenant", "local", "--user", "me")), &key); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, tm)
	tm.env["ANNALS_SERVER"], tm.env["ANNALS_KEY"] = s.url, key.Secret
	check("remote", 2)
	if _, _, err := tm.run("", "show", "7f3e0000-0000"); exitCode(err) != exitNotFound {
		t.Errorf("remote: another tenant's chat by its source id: %v (exit %d), want exit 3", err, exitCode(err))
	}
}
