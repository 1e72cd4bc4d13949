package query_test

import (
	"testing"

	"github.com/annals-dev/annals/query"
)

// benchQueries are what people type into a search box, from one word to filters, phrases,
// prefixes, exclusions, OR and pasted punctuation.
var benchQueries = []struct{ name, q string }{
	{"word", "invoice"},
	{"two-words", "invoice rounding"},
	{"phrase", `"most recent call last"`},
	{"prefix", "invoic*"},
	{"filters", "tool:Bash role:tool after:2026-01-01 deploy -staging"},
	{"or-groups", "(timeout OR deadline) (retry OR backoff) -flaky"},
	{"pasted-error", `panic: runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x4a2b3c]`},
	{"punctuated", "emag.ro file.go:123 c++ 192.168.0.1 snake-case foo_bar"},
}

// BenchmarkParse times parsing a query of the search language into its tree.
func BenchmarkParse(b *testing.B) {
	for _, c := range benchQueries {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := query.Parse(c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompileFTS5 times compiling a parsed tree to an FTS5 MATCH string (every token
// quoted), restricted to columns as a field filter does, and the same for a PostgreSQL tsquery.
func BenchmarkCompileFTS5(b *testing.B) {
	for _, c := range benchQueries {
		q, err := query.Parse(c.q)
		if err != nil {
			b.Fatal(err)
		}
		if q.Text == nil {
			continue
		}
		text := query.ToTextExpr(q.Text) // what a store is handed
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := query.CompileFTS5(text, []string{"text", "reasoning"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/tsquery", func(b *testing.B) {
			for b.Loop() {
				if _, err := query.CompileTSQuery(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
