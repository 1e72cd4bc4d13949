package query_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// FuzzParseCompile checks, for any input: Parse never panics and fails only with an invalid
// *annals.Error; a query that parses compiles for FTS5 (with and without a column filter) and
// for tsquery, with no syntax outside quoted strings but the compiler's own, and the FTS5 string
// runs on a real FTS5 table without error; and the canonical form parses back to the same query.
//
// Run it with: go test ./query -run '^$' -fuzz FuzzParseCompile -fuzztime 60s
func FuzzParseCompile(f *testing.F) {
	for _, s := range allValidInputs() {
		f.Add(s)
	}
	for _, tc := range invalidCases {
		f.Add(tc.in)
	}
	db := MustOpenFTS(f)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := query.Parse(s)
		if err != nil {
			var ae *annals.Error
			if !errors.As(err, &ae) || ae.Code != annals.EINVALID || ae.Message == "" {
				t.Fatalf("Parse(%q) error = %#v, want an *annals.Error with code invalid and a message", s, err)
			}
			return
		}
		if q.Text == nil && q.Filters.IsZero() {
			t.Fatalf("Parse(%q) = an empty query, want an error", s)
		}
		if q.Text != nil {
			for _, cols := range [][]string{nil, {"text", "tool_name"}} {
				match, err := query.CompileFTS5(query.ToTextExpr(q.Text), cols)
				if err != nil {
					t.Fatalf("Parse(%q) = %s, but CompileFTS5: %v", s, q, err)
				}
				checkFTS5Syntax(t, match, cols)
				if _, err := matchIDs(db, match); err != nil {
					t.Fatalf("Parse(%q): MATCH %q: %v", s, match, err)
				}
			}
			ts, err := query.CompileTSQuery(query.ToTextExpr(q.Text))
			if err != nil {
				t.Fatalf("Parse(%q) = %s, but CompileTSQuery: %v", s, q, err)
			}
			checkTSQuerySyntax(t, ts)
		}
		again, err := query.Parse(q.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", s, q, err)
		}
		if !sameQuery(q, again) {
			t.Fatalf("Parse(%q) = %s, but parsing that gives %s", s, q, again)
		}
	})
}

// checkTSQuerySyntax fails unless everything outside single-quoted lexemes in a tsquery string
// is an operator the compiler writes: & | ! <-> :* and parentheses.
func checkTSQuerySyntax(tb testing.TB, ts string) {
	tb.Helper()
	var outside strings.Builder
	for i := 0; i < len(ts); i++ {
		if ts[i] != '\'' {
			outside.WriteByte(ts[i])
			continue
		}
		for i++; i < len(ts); i++ {
			if ts[i] == '\\' {
				i++
				continue
			}
			if ts[i] == '\'' {
				if i+1 < len(ts) && ts[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		if i >= len(ts) {
			tb.Fatalf("tsquery %q has an unterminated lexeme", ts)
		}
		outside.WriteString(" L ")
	}
	for _, f := range strings.FieldsFunc(outside.String(), func(r rune) bool { return r == ' ' || r == '(' || r == ')' || r == '!' }) {
		switch f {
		case "L", "&", "|", "<->", ":*":
		default:
			tb.Fatalf("tsquery %q has %q outside a lexeme", ts, f)
		}
	}
}
