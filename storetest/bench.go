package storetest

import (
	"context"
	"testing"

	annals "github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
)

// BenchSearch times a ranked chat search (top 20, three snippets each, every tenant) for each
// planted marker term of the generated corpus loaded into s, rarest first, and an entry-mode
// search, a two-word phrase, a prefix and a two-term AND. Both backends run it from their
// BenchmarkSearch, so their numbers compare case for case.
func BenchSearch(b *testing.B, s annals.SearchStore) {
	ctx := context.Background()
	term := func(tokens ...string) *annals.TextExpr { return &annals.TextExpr{Op: annals.TextTerm, Tokens: tokens} }
	type benchCase struct {
		name    string
		text    *annals.TextExpr
		entries bool
	}
	var cases []benchCase
	for _, m := range corpus.Markers() {
		cases = append(cases, benchCase{name: m.Term, text: term(m.Term)})
	}
	prefix := term("mediumt")
	prefix.Prefix = true
	cases = append(cases,
		benchCase{name: "entries-" + corpus.CommonTerm, text: term(corpus.CommonTerm), entries: true},
		benchCase{name: "phrase-the-test", text: term("the", "test")},
		benchCase{name: "prefix-mediumt*", text: prefix},
		benchCase{name: "and-" + corpus.MediumTerm + "-" + corpus.CommonTerm, text: &annals.TextExpr{Op: annals.TextAnd, Items: []*annals.TextExpr{term(corpus.MediumTerm), term(corpus.CommonTerm)}}},
	)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Text: c.text, Limit: 20, Snippets: 3}
			var total int
			var err error
			for b.Loop() {
				if c.entries {
					_, total, err = s.SearchEntries(ctx, f)
				} else {
					_, total, err = s.SearchChats(ctx, f)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(total), "matches")
		})
	}
}
