package importer_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/annals-dev/annals/importer"
)

// TestFormatIndexMatchesTheRegistry holds docs/IMPORT.md's format index to the registry that
// `annals import --list` prints: the same formats in the same order, each with its default
// locations (under ~), its resume command (importer.ResumeTemplate) and a fixture that exists.
func TestFormatIndexMatchesTheRegistry(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "IMPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin, end := strings.Index(text, "<!-- format-index:begin -->"), strings.Index(text, "<!-- format-index:end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/IMPORT.md has no format index between its markers")
	}
	var rows [][]string
	for _, line := range strings.Split(text[begin:end], "\n")[3:] {
		if strings.HasPrefix(line, "|") {
			cells := strings.Split(strings.Trim(line, "|"), " | ")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, cells)
		}
	}
	formats := importer.Formats()
	if len(rows) != len(formats) {
		t.Fatalf("the index has %d rows, the registry %d formats", len(rows), len(formats))
	}
	code := regexp.MustCompile("`([^`]*)`")
	for i, f := range formats {
		row := rows[i]
		if len(row) != 5 {
			t.Errorf("row %d: %d cells, want 5: %v", i, len(row), row)
			continue
		}
		if row[0] != "`"+f.Name()+"`" {
			t.Errorf("row %d names %s, the registry %s", i, row[0], f.Name())
		}
		var locs []string
		for _, m := range code.FindAllStringSubmatch(row[2], -1) {
			locs = append(locs, m[1])
		}
		want := f.DefaultPaths("~")
		if strings.Join(locs, "\n") != strings.Join(want, "\n") || (len(want) == 0 && row[2] != "by path") {
			t.Errorf("%s: locations %q, the registry %q", f.Name(), row[2], want)
		}
		resume := importer.ResumeTemplate(f)
		if (resume == "" && row[3] != "—") || (resume != "" && row[3] != "`"+resume+"`") {
			t.Errorf("%s: resume %q, the registry %q", f.Name(), row[3], resume)
		}
		fixture := code.FindStringSubmatch(row[4])
		if fixture == nil {
			t.Errorf("%s: no fixture named", f.Name())
			continue
		}
		if _, err := os.Stat(filepath.Join("..", fixture[1])); err != nil {
			t.Errorf("%s: fixture %s: %v", f.Name(), fixture[1], err)
		}
	}
}
