package tui

import (
	"os"
	"strings"
	"testing"
)

// docs/TUI.md lists every key the browser takes, as ? does.
func TestTheDocNamesEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/TUI.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range newKeyMap().all() {
		for _, k := range strings.Split(b.Help().Key, ", ") {
			if !strings.Contains(string(doc), "`"+k+"`") {
				t.Errorf("docs/TUI.md does not name the key %s (%s)", k, b.Help().Desc)
			}
		}
	}
}
