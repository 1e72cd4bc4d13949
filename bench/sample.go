package bench

import (
	"context"
	"fmt"
	"time"
)

// How many samples a percentile needs before the report states it. A nearest-rank p99 of fewer
// than 100 samples is the worst sample or close to it, and a p95 of fewer than 20 likewise: the
// report gives such a row p50 (and p95) only, says which in Row.Tail, and prints "-" for the rest.
const (
	minP95Samples = 20
	minP99Samples = 100
	// minSamples is the fewest timed rounds of a latency case whatever the budget (unless
	// Options.Iterations asks for fewer): enough to state a p95.
	minSamples = minP95Samples
)

// tailFor names the highest percentile n samples support: "p99", "p95" or "p50".
func tailFor(n int) string {
	switch {
	case n >= minP99Samples:
		return "p99"
	case n >= minP95Samples:
		return "p95"
	}
	return "p50"
}

// percentileRule is the sentence the report prints about tailFor.
var percentileRule = fmt.Sprintf("p99 is reported from at least %d samples and p95 from at least %d; a row with fewer shows '-' there, and TAIL (tail in --json) names the highest percentile it reports", minP99Samples, minP95Samples)

// side is one side of an interleaved measurement: the measured call, or a baseline replaying
// the SQL that call ran. warm runs once, untimed, before the first round; next takes one
// sample; close releases what the side holds.
type side struct {
	name  string
	warm  func(ctx context.Context) error
	next  func(ctx context.Context) (sample, error)
	close func() error
}

// timedSide measures fn in this process.
func timedSide(name string, fn func() error) *side {
	return &side{name: name, next: func(context.Context) (sample, error) { return timeCall(fn) }}
}

// timeCall times one call of fn: wall time and the process's CPU time around it.
func timeCall(fn func() error) (sample, error) {
	c0, t0 := processCPU(), time.Now()
	if err := fn(); err != nil {
		return sample{}, err
	}
	return sample{wall: time.Since(t0), cpu: processCPU() - c0}, nil
}

// sampling is the stopping rule of a latency case: at most iterations rounds; once budget has
// passed, no new round starts after at least min(minSamples, iterations).
type sampling struct {
	iterations int
	budget     time.Duration
}

func (b *runner) sampling() sampling {
	return sampling{iterations: b.opts.Iterations, budget: b.opts.Budget}
}

// interleave warms every side, then takes one sample from each per round, the order rotating
// from round to round, so that a slow spell of a shared machine lands on every side alike and
// none always runs right after another's caches were warmed. It returns each side's samples,
// all of the same length, and closes every side.
func interleave(ctx context.Context, rule sampling, sides []*side) (_ [][]sample, err error) {
	defer func() {
		for _, s := range sides {
			if s.close != nil {
				if cerr := s.close(); err == nil && cerr != nil {
					err = fmt.Errorf("%s: %w", s.name, cerr)
				}
			}
		}
	}()
	for _, s := range sides {
		if s.warm == nil {
			continue
		}
		if err := s.warm(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	out := make([][]sample, len(sides))
	floor := min(minSamples, rule.iterations)
	start := time.Now()
	for round := 0; round < rule.iterations; round++ {
		if round >= floor && time.Since(start) > rule.budget {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for k := range sides {
			i := (round + k) % len(sides)
			x, err := sides[i].next(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sides[i].name, err)
			}
			out[i] = append(out[i], x)
		}
	}
	return out, nil
}

// measure times fn alone under the sampling rule. The caller runs fn once before, untimed, to
// warm the caches.
func (b *runner) measure(ctx context.Context, fn func() error) ([]sample, error) {
	s, err := interleave(ctx, b.sampling(), []*side{timedSide("annals", fn)})
	if err != nil {
		return nil, err
	}
	return s[0], nil
}
