package bench

import (
	"fmt"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
)

// The queries of the search scenario. The first are the corpus's planted markers, whose hit
// counts are known in advance (docs/BENCHMARKS.md) and which issue 16's targets name. The rest
// are what people type into a search box over agent transcripts (issue 33): the corpus's head
// words (corpus/vocab.go's headWords, which occur in a large share of the entries, as "error"
// and "test" do in real transcripts), two- and three-letter prefixes (what search-as-you-type
// sends), phrases of stop-word-heavy text from the corpus's sentence templates, field filters,
// OR and negation, and entry-level searches; then the same queries again as a member of the
// tenant holding 1% of the chats (share.go), whose cost the report sets beside every tenant's.

// searchCases are the queries of the search scenario, in the order they run.
func searchCases() []searchCase {
	cases := []searchCase{
		{name: "rare term (1 in 100k)", query: corpus.RareTerm, timed: true},
		{name: "scarce term (0.1%)", query: corpus.ScarceTerm, timed: true},
		{name: "medium term (1%)", query: corpus.MediumTerm, timed: true},
		{name: "common term (10%)", query: corpus.CommonTerm, timed: true},
		{name: "two-term AND", query: corpus.MediumTerm + " " + corpus.CommonTerm, timed: true},
		{name: "phrase", query: `"most recent call last"`},
		{name: "prefix", query: "invoic*", timed: true},
		{name: "field filter + term", query: "tool:Bash " + corpus.MediumTerm},
		{name: "entry-level, medium term", query: corpus.MediumTerm, mode: annals.SearchEntriesMode, timed: true},
		{name: "scarce term, one tenant", query: corpus.ScarceTerm, timed: true, scope: annals.ScopeTenant},
		{name: "common term, one tenant", query: corpus.CommonTerm, timed: true, scope: annals.ScopeTenant},
		{name: "common term, one user", query: corpus.CommonTerm, timed: true, scope: annals.ScopeUser},
	}
	typed := typedCases()
	cases = append(cases, typed...)
	for _, c := range typed {
		if c.inShare {
			c.name += ", 1% tenant"
			c.share = true
			cases = append(cases, c)
		}
	}
	return cases
}

// typedCases are the queries people type, over every tenant; those marked inShare run again as
// the 1% tenant.
func typedCases() []searchCase {
	entries := annals.SearchEntriesMode
	return []searchCase{
		{name: "head word timeout", query: "timeout", inShare: true},
		{name: "head word error", query: "error"},
		{name: "head word test", query: "test", inShare: true},
		{name: "two letters re*", query: "re*", inShare: true},
		{name: "two letters te*", query: "te*"},
		{name: "three letters con*", query: "con*", inShare: true},
		{name: "three letters err*", query: "err*"},
		{name: `phrase "the test"`, query: `"the test"`, inShare: true},
		{name: `phrase "of the"`, query: `"of the"`},
		{name: `phrase "fails on main since the"`, query: `"fails on main since the"`},
		{name: "three words fix failing test", query: "fix failing test", inShare: true},
		{name: "three words database connection timeout", query: "database connection timeout"},
		{name: "tool filter tool:Bash timeout", query: "tool:Bash timeout", inShare: true},
		{name: "role filter role:user cache", query: "role:user cache", inShare: true},
		{name: "OR timeout OR retry", query: "timeout OR retry"},
		{name: "negation timeout -cache", query: "timeout -cache"},
		{name: "entry-level timeout", query: "timeout", mode: entries, inShare: true},
		{name: "entry-level re*", query: "re*", mode: entries},
		{name: `entry-level "the test"`, query: `"the test"`, mode: entries},
	}
}

// shareCost sets, on each 1% tenant row of backend, its cost as a share of the same query's
// over every tenant: p50 wall time and median CPU time, in percent.
func shareCost(rows []Row, backend string) {
	all := map[string]Row{}
	for _, r := range rows {
		if r.Backend == backend && r.Scenario == "search" && r.Owner == "" {
			all[r.Mode+"\x00"+r.Query] = r
		}
	}
	for i, r := range rows {
		if r.Backend != backend || r.Owner != shareTenant {
			continue
		}
		ref, ok := all[r.Mode+"\x00"+r.Query]
		if !ok {
			continue
		}
		rows[i].ShareOfAll = percent(r.P50, ref.P50)
		rows[i].ShareCPU = percent(r.CPU50, ref.CPU50)
		rows[i].Note = joinNote(r.Note, fmt.Sprintf("%.1f%% of every tenant's p50, %.1f%% of its CPU", rows[i].ShareOfAll, rows[i].ShareCPU))
	}
}

func percent(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return roundTo(100*a/b, 1)
}
