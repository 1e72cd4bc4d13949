package mcp_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsNameHistoryReadsModes proves docs/MCP.md's history_read row names exactly the modes
// the tool's input schema offers, each as `mode: NAME`.
func TestDocsNameHistoryReadsModes(t *testing.T) {
	e := newEnv(t)
	tool := toolNames(t, e.connect(alice(), false))["history_read"]
	if tool == nil {
		t.Fatal("no history_read tool")
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(tool.InputSchema)
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	offered := schema.Properties["mode"].Enum
	if len(offered) == 0 {
		t.Fatalf("history_read's schema offers no modes: %s", b)
	}
	doc, err := os.ReadFile("../docs/MCP.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `history_read` |") {
			row = line
		}
	}
	var documented []string
	for _, m := range regexp.MustCompile("`mode: ([a-z_]+)`").FindAllStringSubmatch(row, -1) {
		documented = append(documented, m[1])
	}
	slices.Sort(offered)
	slices.Sort(documented)
	if !slices.Equal(offered, documented) {
		t.Errorf("docs/MCP.md names the history_read modes %q; the tool offers %q:\n%s", documented, offered, row)
	}
}
