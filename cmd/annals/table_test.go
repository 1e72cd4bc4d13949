package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const longIDChats = `{"type":"chat","id":"claude-code:7f3c2a10-5b1e-4c3a-9d2f-0e8b7a6c5d4e","title":"Why does \u001b[2J\u001b[2J the deploy fail on the staging cluster every Monday morning","tags":["ops","deploy","staging"]}
{"type":"entry","chat_id":"claude-code:7f3c2a10-5b1e-4c3a-9d2f-0e8b7a6c5d4e","id":"e1","kind":"user","text":"why is staging red"}
{"type":"chat","id":"claude-code:7f3c2a11-0000-4c3a-9d2f-0e8b7a6c5d4e","title":"A sibling whose id shares eight hex digits less one"}
{"type":"chat","id":"codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000","title":"Count the apple trees in orchard.csv"}
`

// TestListFitsTheTerminalWidth proves list fits $COLUMNS: at 80 columns every line is at most
// 80 characters as the terminal shows them (escapes counted as printed), the columns line up
// after escaping, and every shortened id names its chat for the other commands. Without a
// width (a pipe) ids are whole.
func TestListFitsTheTerminalWidth(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(longIDChats, "ingest")
	for _, width := range []string{"80", "100", "60"} {
		tm.env["COLUMNS"] = width
		out := tm.mustRun("", "list")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		at := strings.Index(lines[0], "LAST ACTIVITY")
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); width == "80" && n > 80 || width == "100" && n > 100 {
				t.Errorf("COLUMNS=%s: a line of %d characters:\n%s", width, n, out)
			}
			if l != lines[0] && !strings.HasPrefix(string([]rune(l)[utf8.RuneCountInString(lines[0][:at]):]), "20") {
				t.Errorf("COLUMNS=%s: LAST ACTIVITY is not aligned in %q:\n%s", width, l, out)
			}
		}
		if !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("COLUMNS=%s: the escape is not shown:\n%s", width, out)
		}
		for _, l := range lines[1:] {
			id := strings.Fields(l)[0]
			if len(id) > 24 {
				t.Errorf("COLUMNS=%s: id %q is not shortened", width, id)
			}
			shown := chatJSON(t, tm, id)
			if !strings.HasPrefix(shown["id"].(string), id) {
				t.Errorf("COLUMNS=%s: the shown id %q names %v", width, id, shown["id"])
			}
		}
	}
	delete(tm.env, "COLUMNS")
	if out := tm.mustRun("", "list"); !strings.Contains(out, "claude-code:7f3c2a10-5b1e-4c3a-9d2f-0e8b7a6c5d4e") {
		t.Errorf("without a width the ids are not whole:\n%s", out)
	}
}

// TestSearchSaysWhatMatchedInWords proves the human search output counts entries in English
// ("1 matching entry"), says nothing about entries for a chat found by its title or a filter
// alone, and repeats a query that matched nothing as it was typed.
func TestSearchSaysWhatMatchedInWords(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	if out := tm.mustRun("", "search", "hello"); !strings.Contains(out, "· 1 matching entry\n") {
		t.Errorf("search hello:\n%s", out)
	}
	for _, q := range []string{"emag.ro", "tool:Bash"} {
		if out := tm.mustRun("", "search", q); !strings.Contains(out, "c1  ") || strings.Contains(out, "0 matching") {
			t.Errorf("search %s:\n%s", q, out)
		}
	}
	if out := tm.mustRun("", "search", `"nowhere to be found`); out != "No matches for \"nowhere to be found.\n" {
		t.Errorf("no match: %q", out)
	}
}
