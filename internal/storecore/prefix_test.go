package storecore

import (
	"context"
	"fmt"
	"testing"

	"github.com/annals-dev/annals"
)

// ExpandCappedPrefixes leaves a prefix of few words as it is (the engine's own prefix finds
// exactly them) and replaces a capped one with its most frequent words; ExpandPrefixes replaces
// both. Each reports its expansion.
func TestExpandCappedPrefixesKeepsPrefixesWithinTheCap(t *testing.T) {
	vocab := func(_ context.Context, prefix string, limit int) ([]VocabWord, error) {
		n := 3
		if prefix == "re" {
			n = MaxPrefixWords + 6
		}
		var out []VocabWord
		for i := range min(n, limit) {
			out = append(out, VocabWord{Word: fmt.Sprintf("%s%03d", prefix, i), Docs: i})
		}
		return out, nil
	}
	few := &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{"con"}, Prefix: true}
	many := &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{"re"}, Prefix: true}
	text := &annals.TextExpr{Op: annals.TextAnd, Items: []*annals.TextExpr{few, many}}
	for _, tc := range []struct {
		name      string
		expand    func(context.Context, Vocabulary, *annals.TextExpr, map[*annals.TextExpr]*annals.TextExpr) (*annals.TextExpr, error)
		fewStays  bool
		wantWords int
	}{
		{"capped only", ExpandCappedPrefixes, true, MaxPrefixWords},
		{"every prefix", func(ctx context.Context, v Vocabulary, e *annals.TextExpr, done map[*annals.TextExpr]*annals.TextExpr) (*annals.TextExpr, error) {
			return ExpandPrefixes(ctx, v, false, e, done)
		}, false, MaxPrefixWords},
	} {
		report := &annals.SearchReport{}
		ctx := annals.NewContextWithSearchReport(context.Background(), report)
		out, err := tc.expand(ctx, vocab, text, map[*annals.TextExpr]*annals.TextExpr{})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Items[0] == few; got != tc.fewStays {
			t.Errorf("%s: con* kept as a prefix: %v, want %v", tc.name, got, tc.fewStays)
		}
		if x := out.Items[1]; x.Op != annals.TextOr || len(x.Items) != tc.wantWords || x.Items[0].Tokens[0] != "re069" {
			t.Errorf("%s: re* became %+v, want the OR of its %d most frequent words, re069 first", tc.name, x, tc.wantWords)
		}
		if xs := report.Explain().Expansions; len(xs) != 2 || xs[0].Capped || !xs[1].Capped {
			t.Errorf("%s: reported %+v, want both expansions, the second capped", tc.name, xs)
		}
	}
}
