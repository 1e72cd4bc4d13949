package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// annals import --list names every format with its default locations and says which exist.
func TestImportListShowsFormatsLocationsAndWhatExists(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	out := tm.mustRun("", "import", "--list")
	for _, want := range []string{"claude-code", "qwen-code", "kimi-cli", "messages", "~/.claude/projects/**/*.jsonl", "(none: name the files)"} {
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
	if doc.Formats[0].Format != "claude-code" || doc.Formats[0].Locations[0].Matches != 2 {
		t.Errorf("first format %+v, want claude-code with 2 matches", doc.Formats[0])
	}
}
