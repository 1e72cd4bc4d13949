package history

import (
	"fmt"
	"sync"
	"time"
)

// An embedder that failed a search's query is remembered for a while (docs/PROVIDERS.md, "When
// the provider is down"): a default search in that time ranks lexical at once instead of
// waiting out the query's deadline again, and its explain says so and when the embedder is
// tried again. The memory is per model (one provider, or each tenant's own model), lives in the
// service, and ends at the first query embedded.

const (
	// EmbedOutageBackoff is how long a first failure of the query embedding is remembered;
	// each failure in a row doubles it, up to EmbedOutageMaxBackoff.
	EmbedOutageBackoff = 30 * time.Second
	// EmbedOutageMaxBackoff bounds how long a failure is remembered.
	EmbedOutageMaxBackoff = 5 * time.Minute
	// probeGrace is added to a probe's deadline before another search may probe: the probe's
	// own deadline starts a moment after the slot is taken, and its client takes a moment to
	// give up.
	probeGrace = time.Second
)

// embedOutages is the memory of failed query embeddings, by model.
type embedOutages struct {
	mu   sync.Mutex
	now  func() time.Time
	down map[string]*embedOutage
}

// embedOutage is one model's failures in a row.
type embedOutage struct {
	failures int
	// at is when the last failure was seen, why what it was ("did not embed the query within
	// 2s"), until when default searches skip the model.
	at, until time.Time
	why       string
	// probeEnds: once until has passed, one search tries the model again (the probe) while the
	// others keep skipping it, until the probe answers or probeEnds passes (a probe whose caller
	// left).
	probeEnds time.Time
}

func newEmbedOutages(now func() time.Time) *embedOutages {
	return &embedOutages{now: now, down: map[string]*embedOutage{}}
}

// skip says why a default search should not embed its query with model now, or "" when it
// should try. A search told to try after a failure is the probe for probeFor: the searches
// after it skip the model until it answers.
func (o *embedOutages) skip(model string, probeFor time.Duration) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := o.down[model]
	if d == nil {
		return ""
	}
	now := o.now()
	switch {
	case now.Before(d.until):
		return fmt.Sprintf("the embedder failed %s ago (it %s); it will be tried again in %s, at %s",
			roundWait(now.Sub(d.at)), d.why, roundWait(d.until.Sub(now)), d.until.UTC().Format(time.RFC3339))
	case now.Before(d.probeEnds):
		return fmt.Sprintf("the embedder failed %s ago (it %s); another search is trying it again now",
			roundWait(now.Sub(d.at)), d.why)
	}
	d.probeEnds = now.Add(probeFor + probeGrace)
	return ""
}

// failed remembers a failure of model's query embedding, an attempt begun at started: the n-th
// in a row skips it for EmbedOutageBackoff × 2^(n-1), at most EmbedOutageMaxBackoff. An attempt
// begun before the last failure was seen is the same outage, not another failure in a row: the
// searches already waiting when a provider goes down all fail together, and counting each would
// take a short outage straight to the longest wait. It returns until when.
func (o *embedOutages) failed(model, why string, started time.Time) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	for m, d := range o.down { // a model no longer asked for (a learned model refactorised) is forgotten
		if now.Sub(d.until) > EmbedOutageMaxBackoff {
			delete(o.down, m)
		}
	}
	d := o.down[model]
	if d == nil {
		d = &embedOutage{}
		o.down[model] = d
	}
	if d.failures > 0 && started.Before(d.at) {
		return d.until
	}
	d.failures++
	wait := EmbedOutageBackoff
	for i := 1; i < d.failures && wait < EmbedOutageMaxBackoff; i++ {
		wait *= 2
	}
	d.at, d.until, d.why, d.probeEnds = now, now.Add(min(wait, EmbedOutageMaxBackoff)), why, time.Time{}
	return d.until
}

// succeeded forgets model's failures: it embedded a query.
func (o *embedOutages) succeeded(model string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.down, model)
}

// roundWait shows a wait to the second (at least 1s), as people read it.
func roundWait(d time.Duration) time.Duration {
	return max(d.Round(time.Second), time.Second)
}
