package query_test

import (
	"reflect"
	"testing"

	"github.com/annals-dev/annals/query"
)

// Ranges finds a query's positive terms in a text by the index's token rules: any case and
// accent, a phrase's words in a row, a prefix, never a term under a negation, never a word that
// only contains a term, never a redaction placeholder's words.
func TestRangesFindTheQuerysWordsAsTheIndexDoes(t *testing.T) {
	for _, c := range []struct {
		q, text string
		want    [][2]int
	}{
		{"deploy", "Deploy, redeploy; DEPLOY.", [][2]int{{0, 6}, {18, 24}}},
		{"cafe", "le Café noir", [][2]int{{3, 8}}},
		{`"staging deploy"`, "deploy staging deploy now", [][2]int{{7, 21}}},
		{"depl*", "deployment deep", [][2]int{{0, 10}}},
		{"deploy -staging", "staging deploy", [][2]int{{8, 14}}},
		{"penguin OR deploy", "deploy penguins penguin", [][2]int{{0, 6}, {16, 23}}},
		{"emag", "emag.ro", [][2]int{{0, 4}}},
		{"nothing", "deploy", nil},
	} {
		pq, err := query.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		terms := query.NewTerms(query.PositiveTerms(query.ToTextExpr(pq.Text), nil), query.Fold)
		if got := terms.Ranges(c.text, query.Fold); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s in %q: %v, want %v", c.q, c.text, got, c.want)
		}
	}
}
