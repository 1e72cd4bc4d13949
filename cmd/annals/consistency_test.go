package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchiveOffRestores proves archive --off brings a chat back as pin --off unpins, and that
// --restore still does the same.
func TestArchiveOffRestores(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	for _, flag := range []string{"--off", "--restore"} {
		tm.mustRun("", "archive", "c1")
		if out := tm.mustRun("", "list"); strings.Contains(out, "c1 ") {
			t.Fatalf("c1 is listed after archive:\n%s", out)
		}
		if out := tm.mustRun("", "archive", flag, "c1"); !strings.HasPrefix(out, "restored c1") {
			t.Errorf("archive %s c1 printed %q", flag, out)
		}
		if out := tm.mustRun("", "list"); !strings.Contains(out, "c1 ") {
			t.Errorf("c1 is not listed after archive %s:\n%s", flag, out)
		}
	}
}

// TestAFileGivenToTheWrongCommandNamesTheRightOne proves ingest of another tool's transcript
// says to import it, and import of a capture-format file says to ingest it.
func TestAFileGivenToTheWrongCommandNamesTheRightOne(t *testing.T) {
	tm := newTestMain(t)
	claude := filepath.Join("..", "..", "importer", "testdata", "claude-code", "project", "sess-main.jsonl")
	stderr, code := tm.runFail("ingest", claude)
	if code != exitUsage || !strings.Contains(stderr, "claude-code file") || !strings.Contains(stderr, "annals import --format claude-code "+claude) {
		t.Errorf("ingest of a Claude Code transcript: exit %d, %q", code, stderr)
	}
	capture := filepath.Join("..", "..", "examples", "first-chat.jsonl")
	if _, errOut, err := tm.run("", "import", capture); err != nil || !strings.Contains(errOut, "annals ingest") {
		t.Errorf("import of a capture-format file: %v, stderr %q; want it to name annals ingest", err, errOut)
	}
}

// TestExportOutLeavesTheFilePrivate proves export --out makes even an existing file 0600, as
// its help says.
func TestExportOutLeavesTheFilePrivate(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	path := filepath.Join(t.TempDir(), "c1.md")
	if err := os.WriteFile(path, []byte("old, readable by all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	tm.mustRun("", "export", "--out", path, "c1")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("export --out over an existing 0644 file left it %v, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "Deploy the emag.ro shop") {
		t.Errorf("the export:\n%s", b)
	}
}

// TestReingestingAFileWithARewindReportsNothing proves ingesting the bundled example again, a
// file that replays a rewind, reports nothing appended and nothing removed, and changes nothing.
func TestReingestingAFileWithARewindReportsNothing(t *testing.T) {
	tm := newTestMain(t)
	example := filepath.Join("..", "..", "examples", "first-chat.jsonl")
	tm.mustRun("", "ingest", example)
	before := tm.mustRun("", "show", "--json", "c-2b04d6aa")
	var report struct {
		Appended int `json:"entries_appended"`
		Removed  int `json:"entries_removed"`
		Skipped  int `json:"entries_skipped"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "ingest", "--json", example)), &report); err != nil {
		t.Fatal(err)
	}
	if report.Appended != 0 || report.Removed != 0 || report.Skipped == 0 {
		t.Errorf("re-ingesting the example reported %+v, want nothing appended or removed", report)
	}
	if after := tm.mustRun("", "show", "--json", "c-2b04d6aa"); after != before {
		t.Errorf("the rewound chat changed:\n%s\n%s", before, after)
	}
}
