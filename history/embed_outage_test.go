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
	o.failed("m", "was unavailable", now)
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
	now = now.Add(time.Second + probeGrace)
	if why := o.skip("m", time.Second); why != "" {
		t.Fatalf("a search after the probe's deadline passed unanswered is skipped: %s", why)
	}
	o.succeeded("m")
	if why := o.skip("m", time.Second); why != "" {
		t.Fatalf("a search after the probe succeeded is skipped: %s", why)
	}
}

// The searches already waiting on the embedder when it goes down fail together: that is one
// failure, remembered for EmbedOutageBackoff, not one per search (six of them took a short outage
// straight to the five-minute wait). A failure of an attempt begun after it was seen is the next
// in a row and doubles the wait.
func TestSearchesFailingTogetherAreOneFailure(t *testing.T) {
	start := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	now := start
	o := newEmbedOutages(func() time.Time { return now })
	now = start.Add(2 * time.Second) // six searches began at start; their deadlines pass now
	for i := 0; i < 6; i++ {
		if until := o.failed("m", "did not embed the query within 2s", start); !until.Equal(now.Add(EmbedOutageBackoff)) {
			t.Fatalf("search %d of a burst: skipped until %s, want %s (one failure)", i+1, until, now.Add(EmbedOutageBackoff))
		}
	}
	now = now.Add(EmbedOutageBackoff) // the probe begins after the wait and fails too
	probe := now
	now = now.Add(2 * time.Second)
	if until := o.failed("m", "did not embed the query within 2s", probe); !until.Equal(now.Add(2 * EmbedOutageBackoff)) {
		t.Fatalf("the probe's failure: skipped until %s, want %s (the second in a row)", until, now.Add(2*EmbedOutageBackoff))
	}
}
