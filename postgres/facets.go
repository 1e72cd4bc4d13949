package postgres

import (
	"strings"

	"github.com/annals-dev/annals"
)

// An entry's kind and tool are lexemes of the entry index (migration 0031): its second column is
// annals_entry_facets(kind, tool_name), 'k:<kind>' and 't:<tool name lower-cased>', computed by
// PostgreSQL from the row. A search under role: or tool: adds facetQuery's match on it to its
// conditions, so GIN intersects the words' postings with the filter's in the same scan and reads
// only the entries that pass both: the plan does not depend on the planner guessing how many
// entries `lower(tool_name) = 'bash'` keeps (it has no statistics for the expression and took
// 0.5% for 12%). The SQL conditions on kind and tool stay, so the lexemes only narrow.

// entryFacets is the index's expression, written as the index defines it so the planner
// matches the two.
const entryFacets = "annals_entry_facets(e.kind, e.tool_name)"

// maxFacetTool is the longest tool name (bytes) with a lexeme, as annals_entry_facets decides:
// a tsvector lexeme holds at most 2,047 bytes.
const maxFacetTool = 1000

// facetQuery is the tsquery of role: and tool: filters over annals_entry_facets: any of the
// kinds and any of the tools. tool_name is COLLATE "C", so lower() folds ASCII only and the
// search compares it with the Go-lowered name (as the SQL filter does); the index's lexeme is
// that lower(). A tool with no lexeme (empty, or over maxFacetTool bytes) leaves the tools out of
// the match: the SQL filter alone decides them. "" when nothing narrows.
func facetQuery(roles []annals.EntryKind, tools []string) string {
	var parts []string
	if len(roles) > 0 {
		lex := make([]string, len(roles))
		for i, r := range roles {
			lex[i] = facetLexeme("k:" + string(r))
		}
		parts = append(parts, "("+strings.Join(lex, " | ")+")")
	}
	if len(tools) > 0 {
		lex := make([]string, 0, len(tools))
		for _, t := range tools {
			t = strings.ToLower(t)
			if t == "" || len(t) > maxFacetTool {
				lex = nil
				break
			}
			lex = append(lex, facetLexeme("t:"+t))
		}
		if len(lex) > 0 {
			parts = append(parts, "("+strings.Join(lex, " | ")+")")
		}
	}
	return strings.Join(parts, " & ")
}

// facetLexeme quotes one lexeme for a tsquery (tsLexeme): a tool name may hold any character.
func facetLexeme(s string) string {
	var b strings.Builder
	tsLexeme(&b, s)
	return b.String()
}
