package history

import (
	"strings"
	"testing"
	"time"
)

// Once a remembered failure's wait has passed, one search tries the embedder again (the probe)
// and the others keep skipping it while the probe runs, until it answers or its deadline passes
// (a probe whose caller left); a model's memory is its own.
func TestOneSearchProbesAnEmbedderThatFailed(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	o := newEmbedOutages(func() time.Time { return now })
	if why := o.skip("m", time.Second); why != "" {
		t.Fatalf("a model that never failed is skipped: %s", why)
	}
	o.failed("m", "was unavailable")
	if why := o.skip("other", time.Second); why != "" {
		t.Fatalf("another model is skipped for m's failure: %s", why)
	}
	now = now.Add(EmbedOutageBackoff)
	if why := o.skip("m", time.Second); why != "" {
		t.Fatalf("the first search after the wait is skipped: %s; want it to try", why)
	}
	if why := o.skip("m", time.Second); !strings.Contains(why, "another search is trying it again now") {
		t.Fatalf("a search while the probe runs: %q; want it skipped, saying another search is trying", why)
	}
	now = now.Add(time.Second)
	if why := o.skip("m", time.Second); why != "" {
		t.Fatalf("a search after the probe's deadline passed unanswered is skipped: %s", why)
	}
	o.succeeded("m")
	if why := o.skip("m", time.Second); why != "" {
		t.Fatalf("a search after the probe succeeded is skipped: %s", why)
	}
}
