package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestSearchSaysATotalIsALowerBound: an entry search over more matches than it ranks (1,000)
// stops after its page; the CLI says "of at least N" with the cursor, and --json carries
// total_is_lower_bound.
func TestSearchSaysATotalIsALowerBound(t *testing.T) {
	tm := newTestMain(t)
	var in strings.Builder
	in.WriteString(`{"type":"chat","id":"c1","title":"Many"}` + "\n")
	for i := range 1100 {
		fmt.Fprintf(&in, `{"type":"entry","chat_id":"c1","id":"e%d","kind":"user","text":"zqlb again"}`+"\n", i)
	}
	tm.mustRun(in.String(), "ingest", "-")
	out := tm.mustRun("", "search", "--entries", "--limit", "5", "zqlb")
	if !strings.Contains(out, "5 of at least 1000 shown (--offset 5 or --cursor ") {
		t.Errorf("the text does not say the total is a lower bound:\n%s", out)
	}
	js := tm.mustRun("", "search", "--entries", "--limit", "5", "--json", "zqlb")
	if !strings.Contains(js, `"total":1000,"total_is_lower_bound":true`) {
		t.Errorf("--json lacks the lower bound: %.300s", js)
	}
	// The page reaching past the ranked candidates ranks every match: the total is exact.
	if js := tm.mustRun("", "search", "--entries", "--limit", "5", "--offset", "1098", "--json", "zqlb"); !strings.Contains(js, `"total":1100,"limit":5`) {
		t.Errorf("past the ranked candidates the total should be exact: %.300s", js)
	}
}
