package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"strings"

	"github.com/annals-dev/annals"
)

// An entry's kind and tool are tokens of the entry index (migration 0035, column facets), so
// a search under role: or tool: hands FTS5 one MATCH, its words AND the facets, and FTS5
// intersects the doclists itself: the walk of the newest matching entries then stops after the
// entries that pass instead of looking the kind and tool of every match up (issue 33 item 2).
// The SQL filter on kind and tool still checks the rows the MATCH returns: the tokens narrow,
// the filter decides. bm25 weighs the column 0 (entryWeights), so a score is the words'.

// Each token starts with a character of the supplementary private use area, which the query
// language never puts in a word (query.IndexText hides redaction placeholders the same way):
// U+F0100 before the kind, U+F0101 before the upper-case hex of the lower-cased tool name, so a
// tool name of any characters is one token. The migration's SQL spells the same tokens.
const (
	kindFacet = "\U000F0100"
	toolFacet = "\U000F0101"
	// maxToolFacet bounds the tool names narrowed by a token: FTS5 cuts tokens at 32 KiB.
	maxToolFacet = 8 << 10
)

// facetsIndexed reports whether the entry index holds the facets (an older schema, opened
// read-only before its upgrade, does not: the searches then filter as before).
func facetsIndexed(ctx context.Context, q *sql.DB) (bool, error) {
	return schemaHas(ctx, q, "view", "entries_fts_content")
}

// facetMatch is the FTS5 expression of the plan's role: and tool: filters over the facets
// column, "" when there is none (or a tool name no token stands for: empty or too long).
func (p *searchPlan) facetMatch() string {
	var parts []string
	if len(p.f.Roles) > 0 {
		toks := make([]string, len(p.f.Roles))
		for i, r := range p.f.Roles {
			toks[i] = `"` + kindFacet + string(r) + `"`
		}
		parts = append(parts, `facets : (`+strings.Join(toks, " OR ")+`)`)
	}
	if len(p.f.Tools) > 0 {
		toks := make([]string, len(p.f.Tools))
		for i, t := range p.f.Tools {
			t = strings.ToLower(t)
			if t == "" || len(t) > maxToolFacet {
				toks = nil
				break
			}
			toks[i] = `"` + toolFacet + strings.ToUpper(hex.EncodeToString([]byte(t))) + `"`
		}
		if toks != nil {
			parts = append(parts, `facets : (`+strings.Join(toks, " OR ")+`)`)
		}
	}
	return strings.Join(parts, " AND ")
}

// narrow is an entry MATCH (compiled from the query) with the plan's facets ANDed to it, for
// the statements that walk or count matching entries under the filters without scoring them.
// Snippets and the scoring pass of a small owner's walk keep the words alone.
func (p *searchPlan) narrow(match string) string {
	return p.narrowIf(p.facets, match)
}

// narrowScored is narrow for a walk that scores its entries with bm25, which counts the
// documents of every phrase of its MATCH with a pass over the phrase's whole doclist: a kind or
// a common tool is a phrase of 100,000-200,000 entries at 1M (the user's kind 192k, Bash calls
// 121k), a pass that costs more than the lookups it saves when most of the words' matches pass
// the filter anyway (`tool:Bash timeout`: 72% of the newest). probeFacets decides.
func (p *searchPlan) narrowScored(match string) string {
	return p.narrowIf(p.facets && !p.unselective, match)
}

func (p *searchPlan) narrowIf(on bool, match string) string {
	var parts []string
	if fm := p.facetMatch(); on && fm != "" {
		parts = append(parts, fm)
	}
	if p.owner != "" {
		parts = append(parts, p.owner) // search_owner.go: always, when set
	}
	if len(parts) == 0 {
		return match
	}
	return "(" + match + ") AND " + strings.Join(parts, " AND ")
}

// facetProbe is how many of the newest matching entries probeFacets checks against the filters.
const facetProbe = 256

// probeFacets sets p.unselective when the filters keep at least half of the newest facetProbe
// entries matching the words (match, without the facets), or the words match fewer entries than
// that: a walk then finds its entries among the first few thousand matches by their kind and
// tool at little cost (narrowScored). The tokens are not counted for ranking (rankFunc), and
// keeping them in every scored walk measured the same (docs/BENCHMARKS.md, 2026-12-08).
// The check reads those entries' kind and tool from the entry filter index: a few hundred
// lookups, well under a millisecond at 1M.
func (db *DB) probeFacets(ctx context.Context, p *searchPlan, match string) error {
	if !p.facets || p.facetMatch() == "" {
		return nil
	}
	if p.owner != "" {
		// A small owner's scored walk reads its own matches only (search_owner.go): looking up
		// their kind and tool costs little.
		p.unselective = true
		return nil
	}
	probe := facetProbe
	if db.facetProbe != 0 {
		if db.facetProbe < 0 {
			return nil // tests: the tokens always
		}
		probe = db.facetProbe
	}
	q := `SELECT count(*), total(ok) FROM (SELECT (` + p.entryWhere.SQL() + `) AS ok FROM entries_fts CROSS JOIN ` + p.filtered() + `
		WHERE e.pk = entries_fts.rowid AND entries_fts MATCH ? ORDER BY entries_fts.rowid DESC LIMIT ?)`
	args := append(append([]any{}, p.entryWhere.Args...), match, probe)
	annals.TraceStatement(ctx, q, args)
	var n int
	var kept float64
	if err := db.stmts.queryRow(ctx, q, args...).Scan(&n, &kept); err != nil {
		return ftsErr("probe the entry filters", err)
	}
	p.unselective = n < probe || 2*int(kept) >= n
	return nil
}
