package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// annals import --list names every format with its default locations and says which exist.
func TestImportListShowsFormatsLocationsAndWhatExists(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	out := tm.mustRun("", "import", "--list")
	for _, want := range []string{"claude-code", "qwen-code", "kimi-cli", "messages", "~/.claude/projects/**/*.jsonl", "(none: name the files)", "RESUME", "hermes --resume <session id>"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "~/.claude/projects/") && !strings.Contains(line, "found (2)") {
			t.Errorf("claude-code line %q, want the two placed sessions found", line)
		}
		if strings.Contains(line, "~/.gemini/") && !strings.Contains(line, "not found") {
			t.Errorf("gemini line %q, want not found", line)
		}
	}
	var doc struct {
		Formats []importFormatInfo `json:"formats"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "import", "--list", "--json")), &doc); err != nil || len(doc.Formats) < 10 {
		t.Fatalf("--list --json: %v %+v", err, doc)
	}
	if doc.Formats[0].Format != "claude-code" || doc.Formats[0].Locations[0].Matches != 2 || doc.Formats[0].Resume != "claude --resume <session id>" {
		t.Errorf("first format %+v, want claude-code with 2 matches and its resume command", doc.Formats[0])
	}
}

// The new formats are found at their default locations by a plain `annals import`, and a
// directory holding other files lists those once as files no format reads.
func TestImportFindsTheNewFormatsAtTheirDefaultLocations(t *testing.T) {
	tm := newTestMain(t)
	for src, dst := range map[string]string{
		"../../importer/testdata/qwen-code/projects/-home-dev-zoo/chats/7b1e0c9a-5d2f-4c8e-9a41-3f6d2b8e1c07.jsonl":                     ".qwen/projects/-home-dev-zoo/chats/7b1e0c9a-5d2f-4c8e-9a41-3f6d2b8e1c07.jsonl",
		"../../importer/testdata/kimi-cli/sessions/4b9d3c1e8f7a6b5c4d3e2f1a0b9c8d7e/2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50/context.jsonl": ".kimi/sessions/4b9d3c1e8f7a6b5c4d3e2f1a0b9c8d7e/2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50/context.jsonl",
		"../../importer/testdata/amp/.local/share/amp/threads/T-019b9d03-62e3-772f-9780-3e637f90eaec.json":                              ".local/share/amp/threads/T-019b9d03-62e3-772f-9780-3e637f90eaec.json",
		"../../importer/testdata/continue/.continue/sessions/8e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b.json":                                 ".continue/sessions/8e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b.json",
		"../../importer/testdata/cline/globalStorage/saoudrizwan.claude-dev/tasks/1767225600000/api_conversation_history.json":          ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1767225600000/api_conversation_history.json",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(tm.home, dst)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := tm.mustRun("", "import", "--json")
	var rep importJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	got := map[string]int{}
	for _, f := range rep.Formats {
		got[f.Format] = f.Chats
	}
	for name, chats := range map[string]int{"qwen-code": 2, "kimi-cli": 1, "amp": 1, "continue": 1, "cline": 1} {
		if got[name] != chats {
			t.Errorf("%s: %d chats, want %d (report %s)", name, got[name], chats, out)
		}
	}
	other := filepath.Join(tm.home, "notes")
	for _, name := range []string{"a.json", "b.txt"} {
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, name), []byte(`{"x": 1}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, err := tm.run("", "import", other)
	if err != nil || strings.Count(errOut, "not a format annals imports") != 2 {
		t.Errorf("import of a folder of other files: %v\n%s", err, errOut)
	}
}
