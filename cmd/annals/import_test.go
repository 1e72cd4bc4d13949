package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// placeImport puts the importer's test fixtures where Claude Code and Codex keep their files.
func placeImport(t *testing.T, home string) {
	t.Helper()
	for src, dst := range map[string]string{
		"../../importer/testdata/claude-code/project/sess-main.jsonl":                                          ".claude/projects/-home-dev-zoo/sess-main.jsonl",
		"../../importer/testdata/claude-code/project/sess-old.jsonl":                                           ".claude/projects/-home-dev-zoo/sess-old.jsonl",
		"../../importer/testdata/codex/rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl": ".codex/sessions/2025/06/01/rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, dst)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type importJSON struct {
	Sources int `json:"sources"`
	Formats []struct {
		Format    string `json:"format"`
		Files     int    `json:"files"`
		Unchanged int    `json:"unchanged"`
		Chats     int    `json:"chats"`
		Entries   int    `json:"entries"`
	} `json:"formats"`
	Entries  int `json:"entries"`
	Warnings int `json:"warnings"`
	Titled   int `json:"titled"`
}

func TestImportFindsDefaultLocationsAndMakesThemSearchable(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)

	out := tm.mustRun("", "import")
	for _, want := range []string{"claude-code", "codex", "format", "entries", "total"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	list := tm.mustRun("", "list", "--json")
	for _, id := range []string{"claude-code:sess-main", "claude-code:sess-old", "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"} {
		if !strings.Contains(list, id) {
			t.Errorf("list lacks %s", id)
		}
	}
	// The summary line in sess-main titles sess-old; the custom title names sess-main.
	if !strings.Contains(list, "Otters and their sleeping habits") || !strings.Contains(list, "Zebrafish flake") {
		t.Errorf("titles missing from list:\n%s", list)
	}
	if found := tm.mustRun("", "search", "zebrafish"); !strings.Contains(found, "claude-code:sess-main") {
		t.Errorf("search zebrafish:\n%s", found)
	}

	var rep importJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "import", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Entries != 0 || rep.Sources != 3 {
		t.Errorf("second import %+v, want 3 sources and nothing new", rep)
	}
	for _, f := range rep.Formats {
		if f.Unchanged != f.Files {
			t.Errorf("%s: %d of %d files unchanged, want all", f.Format, f.Unchanged, f.Files)
		}
	}

	status := tm.mustRun("", "import", "--status")
	if !strings.Contains(status, "sess-main.jsonl") || !strings.Contains(status, "ok") {
		t.Errorf("status:\n%s", status)
	}
	if err := os.Remove(filepath.Join(tm.home, ".claude/projects/-home-dev-zoo/sess-old.jsonl")); err != nil {
		t.Fatal(err)
	}
	tm.mustRun("", "import")
	status = tm.mustRun("", "import", "--status")
	if !strings.Contains(status, "gone since") {
		t.Errorf("status after a source vanished:\n%s", status)
	}
	if show := tm.mustRun("", "show", "claude-code:sess-old"); !strings.Contains(show, "Otters hold hands") {
		t.Errorf("the chat of a vanished source:\n%s", show)
	}
}

func TestImportOneFormatAndPathAndDryRun(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	var rep importJSON
	out := tm.mustRun("", "import", "--dry-run", "--json", "codex")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Formats) != 1 || rep.Formats[0].Format != "codex" || rep.Entries == 0 {
		t.Errorf("dry run of codex: %+v", rep)
	}
	if list := tm.mustRun("", "list"); strings.Contains(list, "codex:") {
		t.Errorf("a dry run stored chats:\n%s", list)
	}
	path := filepath.Join(tm.home, ".claude/projects/-home-dev-zoo/sess-old.jsonl")
	tm.mustRun("", "import", "claude-code", path)
	list := tm.mustRun("", "list")
	if !strings.Contains(list, "claude-code:sess-old") || strings.Contains(list, "claude-code:sess-main") {
		t.Errorf("import of one path:\n%s", list)
	}
	if _, _, err := tm.run("", "import", "not-a-format"); err == nil || exitCode(err) != 2 {
		t.Errorf("unknown format: %v, want a usage error", err)
	}
}
