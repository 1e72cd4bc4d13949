package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// chatTitles lists id=title of every chat a test main sees, sorted.
func chatTitles(t *testing.T, tm *testMain, args ...string) []string {
	t.Helper()
	var list listJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", append(args, "list", "--json", "--limit", "500")...)), &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list.Chats {
		out = append(out, c.ID+"="+c.Title)
	}
	slices.Sort(out)
	return out
}

// TestImportThroughAServer proves annals --server URL import reads the files here and
// captures them through the server (into the server's database, titled as a local import
// titles them), keeps its import state in a local file of its own, and imports only what
// changed the second time. Nothing is written to the client's local database.
func TestImportThroughAServer(t *testing.T) {
	server := newTestMain(t)
	server.mustRun(twoChats, "ingest") // the server's database exists and holds other chats
	s := startServe(t, server)

	client := newTestMain(t)
	placeImport(t, client.home)
	var first importJSON
	if err := json.Unmarshal([]byte(client.mustRun("", "--server", s.url, "import", "--json")), &first); err != nil {
		t.Fatal(err)
	}
	if first.Entries == 0 || first.Sources != 3 {
		t.Fatalf("first import through the server: %+v", first)
	}
	if _, err := os.Stat(client.env["ANNALS_DB"]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the import through a server wrote the local database (stat: %v)", err)
	}
	states, _ := filepath.Glob(filepath.Join(client.home, "import-state", "127.0.0.1_*-*.db"))
	if len(states) != 1 {
		t.Errorf("import state files: %q, want one for the server", states)
	}

	// The same files imported locally give the same chats with the same titles.
	local := newTestMain(t)
	placeImport(t, local.home)
	local.mustRun("", "import")
	want := chatTitles(t, local)
	got := chatTitles(t, server)
	for _, c := range want {
		if !slices.Contains(got, c) {
			t.Errorf("the server lacks %q after the import through it; it holds %q", c, got)
		}
	}
	if len(got) != len(want)+2 {
		t.Errorf("the server holds %d chats, want the %d imported and its own 2", len(got), len(want))
	}

	var again importJSON
	if err := json.Unmarshal([]byte(client.mustRun("", "--server", s.url, "import", "--json")), &again); err != nil {
		t.Fatal(err)
	}
	if again.Entries != 0 {
		t.Errorf("the second import through the server read %d entries again: %+v", again.Entries, again)
	}
	client.env["ANNALS_SERVER"] = s.url
	if status := client.mustRun("", "import", "--status"); !strings.Contains(status, "sess-main.jsonl") {
		t.Errorf("import --status through the server:\n%s", status)
	}
}

// TestLocalOnlyCommandsRefuseAServer proves that the commands that work on a local database
// itself refuse a configured server, as a usage mistake, instead of using the local database;
// their help still shows.
func TestLocalOnlyCommandsRefuseAServer(t *testing.T) {
	tm := newTestMain(t)
	tm.env["ANNALS_SERVER"] = "http://127.0.0.1:1"
	for _, args := range [][]string{
		{"keys", "list"}, {"keys", "create", "--tenant", "t"}, {"migrate"}, {"redact", "--rescan"},
		{"copy", "--from", filepath.Join(tm.home, "a.db"), "--to", filepath.Join(tm.home, "b.db")},
		{"serve", "--addr", "127.0.0.1:0"}, {"bench", "gen", "--size", "2k"},
	} {
		stderr, code := tm.runFail(args...)
		if code != exitUsage || !strings.Contains(stderr, "needs a local database") || !strings.Contains(stderr, args[0]) {
			t.Errorf("annals %s with ANNALS_SERVER: exit %d, %q; want exit 2 and a refusal", strings.Join(args, " "), code, stderr)
		}
	}
	if entries, _ := os.ReadDir(tm.home); len(entries) != 0 {
		t.Errorf("refused commands created %d files in the home directory", len(entries))
	}
	if out := tm.mustRun("", "migrate", "--help"); !strings.Contains(out, "Usage: annals migrate") {
		t.Errorf("migrate --help with ANNALS_SERVER:\n%s", out)
	}
}
