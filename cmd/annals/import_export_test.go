package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What `annals export` writes, Markdown or JSON, `annals import` reads back into another
// database as the same chat: exporting it there gives the same transcript.
func TestImportReadsAnnalsExportsBack(t *testing.T) {
	src := newTestMain(t)
	placeImport(t, src.home)
	src.mustRun("", "import", "--quiet")
	const id = "claude-code:sess-main"
	md := src.mustRun("", "export", id)
	dir := t.TempDir()
	mdPath, jsonPath := filepath.Join(dir, "chat.md"), filepath.Join(dir, "chat.json")
	if err := os.WriteFile(mdPath, []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	src.mustRun("", "export", "--format", "json", "--out", jsonPath, id)
	for _, path := range []string{mdPath, jsonPath} {
		dst := newTestMain(t)
		out := dst.mustRun("", "import", path)
		if !strings.Contains(out, "annals") {
			t.Errorf("import of %s:\n%s", path, out)
		}
		back := dst.mustRun("", "export", id)
		if transcript(back) != transcript(md) {
			t.Errorf("%s read back differs:\n%s\n---- want ----\n%s", filepath.Base(path), transcript(back), transcript(md))
		}
	}
}

// transcript is the part of a Markdown export after its ## Transcript heading: the entries.
// Runs are not read back from an export (the JSON export has none, and markdown.Parse does not
// read the runs table), so the runs table, the totals and the model an entry's run line names
// are left out of the comparison.
func transcript(md string) string {
	_, after, _ := strings.Cut(md, "## Transcript")
	lines := strings.Split(after, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "*run `") {
			if j := strings.Index(l, "` ("); j > 0 {
				if k := strings.Index(l[j:], ")"); k > 0 {
					lines[i] = l[:j+1] + l[j+k+1:]
				}
			}
		}
	}
	return strings.Join(lines, "\n")
}
