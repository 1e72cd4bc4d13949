package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"strings"
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
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'entries_fts_content'`).Scan(&n)
	if err != nil {
		return false, storeErr("read schema", err)
	}
	return n > 0, nil
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
// the statements that walk or count matching entries under the filters. Snippets and the
// scoring pass of a small owner's walk keep the words alone.
func (p *searchPlan) narrow(match string) string {
	if !p.facets {
		return match
	}
	fm := p.facetMatch()
	if fm == "" {
		return match
	}
	return "(" + match + ") AND " + fm
}
