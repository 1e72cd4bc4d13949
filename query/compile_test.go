package query_test

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

func TestCompileFTS5QuotesEveryToken(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"deploy", `"deploy"`},
		{"emag.ro", `"emag ro"`},
		{`"null pointer" crash`, `"null pointer" AND "crash"`},
		{"deplo* -staging", `"deplo"* NOT "staging"`},
		{`"emag r"*`, `"emag r"*`},
		{"a b OR c", `("b" OR "c") AND "a"`},
		{"a -b -c", `"a" NOT "b" NOT "c"`},
		{"a b -c", `("a" AND "b") NOT "c"`},
		{"(a OR b) -(c d)", `("a" OR "b") NOT ("c" AND "d")`},
		{"x -(a -b)", `"x" NOT ("a" NOT "b")`},
		{"a OR (b c)", `("b" AND "c") OR "a"`},
		{"AND OR NOT", `"not"`},
		{"this NOT that", `"this" AND "not" AND "that"`},
		{"NEAR(a b)", `"near a" AND "b"`},
		{`{text}: a`, `"text" AND "a"`},
		{`col:x ^a`, `"col x" AND "a"`},
	} {
		got, err := query.CompileFTS5(query.ToTextExpr(mustParse(t, tc.in).Text), nil)
		if err != nil || got != tc.want {
			t.Errorf("CompileFTS5(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestCompileFTS5RestrictsColumns(t *testing.T) {
	got, err := query.CompileFTS5(query.ToTextExpr(mustParse(t, "a -b").Text), []string{"text", "tool_name"})
	if want := `{text tool_name} : ("a" NOT "b")`; err != nil || got != want {
		t.Errorf("CompileFTS5 = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"", "1col", "te xt", `text"`, "a-b", "{x}"} {
		_, err := query.CompileFTS5(query.ToTextExpr(mustParse(t, "a").Text), []string{bad})
		checkInvalid(t, bad, err, "not a plain identifier")
	}
}

// TestCompiledQueriesRunOnSQLite is the engine half of "no query can raise an engine syntax
// error": every test query, compiled with and without a column filter, runs on a real FTS5 table
// without error, and holds no syntax outside quoted strings but what the compiler writes.
func TestCompiledQueriesRunOnSQLite(t *testing.T) {
	db := MustOpenFTS(t)
	for _, in := range allValidInputs() {
		q, err := query.Parse(in)
		if err != nil || q.Text == nil {
			continue
		}
		for _, cols := range [][]string{nil, {"text"}, {"text", "tool_name"}} {
			match, err := query.CompileFTS5(query.ToTextExpr(q.Text), cols)
			if err != nil {
				t.Errorf("CompileFTS5(%q, %q): %v", in, cols, err)
				continue
			}
			checkFTS5Syntax(t, match, cols)
			if _, err := matchIDs(db, match); err != nil {
				t.Errorf("MATCH %q (from %q): %v", match, in, err)
			}
		}
	}
}

// allValidInputs gathers the test queries of this package that are meant to parse.
func allValidInputs() []string {
	var out []string
	for _, tc := range parseCases {
		out = append(out, tc.in)
	}
	for _, tc := range matchCases {
		out = append(out, tc.in)
	}
	return append(out, extraSeeds...)
}

// extraSeeds are further odd inputs: FTS5 and tsquery syntax typed as text, and pasted material.
var extraSeeds = []string{
	`NEAR("a" "b", 3)`, `a NOT b`, `"a" + "b"`, `^start`, `{text tool_name}: x`, `- col : x`,
	`text:foo`, `tool_name:Bash`, `a AND NOT b`, `'quoted' & !x | y:* <-> z`, `\"`, `""""`,
	`x "" y`, `a"b"c"d`, `'; DROP TABLE t; --`, `%_*`, "tab\there", "line\nbreak", "nul\x00byte",
	`((((((((((((((((a))))))))))))))))`, `a OR (b OR (c OR (d OR e)))`, `-(-(-(a))) b`,
	`emoji 🤔 test 👍`, `₿100 ₽`, `ﬁle ﬂow`, `Straße`, `x -"" y`, `*`, `a* b** *c`,
	`tag:"unclosed`, `attr.k:"v w" z`, `IN:TITLE x`, `role:SYSTEM x`,
}

// matchCases check what a compiled query finds in ftsRows, on a real FTS5 table.
var matchCases = []struct {
	name, in string
	want     []int64
}{
	{"domain", "emag.ro", []int64{1}},
	{"domain in capitals", "EMAG.RO", []int64{1}},
	{"domain as phrase", `"emag ro"`, []int64{1}},
	{"domain parts in order only", "ro.emag", nil},
	{"hyphenated", "snake-case", []int64{2}},
	{"underscore", "foo_bar", []int64{2}},
	{"file and line", "file.go:123", []int64{4}},
	{"url", "http://example.com/a?b=c", []int64{4}},
	{"pasted error", "panic: runtime error: index out of range [3] with length 3", []int64{3}},
	{"pasted error quoted", `"runtime error: index out of range [3]"`, []int64{3}},
	{"c++ finds the token c", "c++", []int64{4, 5}},
	{"ip", "192.168.0.1", []int64{5}},
	{"apostrophe", "don't", []int64{5}},
	{"accent insensitive", "cafe", []int64{6}},
	{"accent insensitive the other way", "CAFÉ stefan", []int64{6}},
	{"prefix", "foo*", []int64{2, 7}},
	{"prefix matches the word itself", "fool*", []int64{7}},
	{"word is not a prefix", "foo", []int64{2, 7}},
	{"words are anded", "brown fox", []int64{8}},
	{"or", "fox OR bear", []int64{8, 9}},
	{"or binds tighter than and", "brown fox OR bear", []int64{8, 9}},
	{"exclusion", "brown -fox", []int64{9}},
	{"exclusion of a phrase", `brown -"quick brown"`, []int64{9}},
	{"exclusion of a group", "brown -(quick OR nothing)", []int64{9}},
	{"exclusions stack", "foo* -bar -fool", nil},
	{"nested exclusion", "brown -(fox -quick)", []int64{8, 9}},
	{"lowercase or is a word", "this or that", []int64{11}},
	{"cli flag", "--force", []int64{10}},
	{"tool name column is searched", "bash", []int64{7}},
	{"fts5 syntax is text", "NEAR(brown fox)", nil},
	{"unknown field is text", "http:example", []int64{4}},
}

func TestCompiledQueriesMatchOnSQLite(t *testing.T) {
	db := MustOpenFTS(t)
	for _, tc := range matchCases {
		t.Run(tc.name, func(t *testing.T) {
			match, err := query.CompileFTS5(query.ToTextExpr(mustParse(t, tc.in).Text), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := matchIDs(db, match)
			if err != nil {
				t.Fatalf("MATCH %q: %v", match, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q (MATCH %s) found rows %v, want %v", tc.in, match, got, tc.want)
			}
		})
	}
}

func TestCompileFTS5ColumnsNarrowMatching(t *testing.T) {
	db := MustOpenFTS(t)
	text, err := query.CompileFTS5(query.ToTextExpr(mustParse(t, "bash OR bear").Text), []string{"text"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := matchIDs(db, text); err != nil || !reflect.DeepEqual(got, []int64{9}) {
		t.Errorf("in text: rows %v, %v; want [9]", got, err)
	}
	tools, err := query.CompileFTS5(query.ToTextExpr(mustParse(t, "bash OR bear").Text), []string{"tool_name"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := matchIDs(db, tools); err != nil || !reflect.DeepEqual(got, []int64{7}) {
		t.Errorf("in tool_name: rows %v, %v; want [7]", got, err)
	}
}

// TestCompileFTS5DeepestQueriesRunOnSQLite builds queries nested to MaxDepth from every kind of
// level (group, OR, exclusion, mixes) and runs them: FTS5's parser has a fixed-size stack, and
// the nesting limit must keep every compiled query inside it.
func TestCompileFTS5DeepestQueriesRunOnSQLite(t *testing.T) {
	db := MustOpenFTS(t)
	levels := []struct{ open, close string }{
		{"(", ")"},
		{"a (", ")"},
		{"(", " a)"},
		{"a OR (", ")"},
		{"(", ") OR a"},
		{"a -(", ")"},
		{"(", ") -a"},
		{"a b OR (", ") c"},
		{`"p q" -x OR (`, `) -"r s"`},
		{"a -(b OR (", "))"},
	}
	build := func(pick func(int) int) string {
		var open, close strings.Builder
		closes := make([]string, 0, query.MaxDepth)
		for d := 0; d < query.MaxDepth; {
			l := levels[pick(d)]
			if strings.Count(l.open, "(")+d > query.MaxDepth {
				l = levels[0]
			}
			open.WriteString(l.open)
			closes = append(closes, l.close)
			d += strings.Count(l.open, "(")
		}
		for i := len(closes) - 1; i >= 0; i-- {
			close.WriteString(closes[i])
		}
		return open.String() + "z w" + close.String()
	}
	var inputs []string
	for i := range levels {
		inputs = append(inputs, build(func(int) int { return i }))
	}
	rng := rand.New(rand.NewSource(1))
	mixes := 300
	if raceEnabled {
		mixes = 30 // SQLite runs about 35 times slower under the race detector
	}
	for range mixes {
		inputs = append(inputs, build(func(int) int { return rng.Intn(len(levels)) }))
	}
	for _, in := range inputs {
		q, err := query.Parse(in)
		if err != nil {
			// Some mixes put an exclusion under OR: refused by Parse, so never compiled.
			checkInvalid(t, in, err)
			continue
		}
		for _, cols := range [][]string{nil, {"text", "tool_name"}} {
			match, err := query.CompileFTS5(query.ToTextExpr(q.Text), cols)
			if err != nil {
				t.Fatalf("CompileFTS5(%q): %v", in, err)
			}
			if _, err := matchIDs(db, match); err != nil {
				t.Fatalf("MATCH %q (from %q): %v", match, in, err)
			}
		}
	}
}

// TestCompileFTS5DeepestHandBuiltTreesRunOnSQLite deepens hand-built trees of several shapes
// until the compilers refuse them; every tree they accept must run on FTS5.
func TestCompileFTS5DeepestHandBuiltTreesRunOnSQLite(t *testing.T) {
	db := MustOpenFTS(t)
	a := &query.Term{Tokens: []string{"a"}}
	b := &query.Term{Tokens: []string{"b", "c"}}
	shapes := map[string]func(query.Expr) query.Expr{
		"exclusions": func(e query.Expr) query.Expr { return &query.And{Items: []query.Expr{a, &query.Not{Item: e}}} },
		"and in or": func(e query.Expr) query.Expr {
			return &query.Or{Items: []query.Expr{a, &query.And{Items: []query.Expr{b, e}}}}
		},
		"or in and": func(e query.Expr) query.Expr {
			return &query.And{Items: []query.Expr{a, &query.Or{Items: []query.Expr{b, e}}}}
		},
		"positive before": func(e query.Expr) query.Expr { return &query.And{Items: []query.Expr{e, &query.Not{Item: a}}} },
		"or then exclude": func(e query.Expr) query.Expr {
			return &query.And{Items: []query.Expr{a, &query.Not{Item: &query.Or{Items: []query.Expr{b, e}}}}}
		},
	}
	for name, wrap := range shapes {
		e := query.Expr(a)
		accepted := 0
		var deepest string
		for range 200 {
			e = wrap(e)
			match, err := query.CompileFTS5(query.ToTextExpr(e), []string{"text", "tool_name"})
			if err != nil {
				checkInvalid(t, name, err, "nested too deeply")
				break
			}
			accepted++
			deepest = match
			// The deepest tree matters most; shallower ones are sampled to keep the test quick.
			if accepted%4 == 0 {
				if _, err := matchIDs(db, match); err != nil {
					t.Fatalf("%s, %d levels: MATCH %q: %v", name, accepted, match, err)
				}
			}
		}
		if _, err := matchIDs(db, deepest); err != nil {
			t.Fatalf("%s, %d levels: MATCH %q: %v", name, accepted, deepest, err)
		}
		// Each wrap is at most two parentheses deep in the query language.
		if accepted < query.MaxDepth/2 {
			t.Errorf("%s: only %d levels accepted, want at least %d", name, accepted, query.MaxDepth/2)
		}
	}
}

func TestCompileRefusesTreesNoEngineCanRun(t *testing.T) {
	a := &query.Term{Tokens: []string{"a"}}
	b := &query.Term{Tokens: []string{"b"}}
	deep := query.Expr(a)
	for range 2*query.MaxDepth + 4 {
		deep = &query.And{Items: []query.Expr{b, &query.Or{Items: []query.Expr{a, deep}}}}
	}
	for _, tc := range []struct {
		name string
		e    query.Expr
		want string
	}{
		{"nil", nil, "no words"},
		{"exclusion alone", &query.Not{Item: a}, "besides exclusions"},
		{"only exclusions", &query.And{Items: []query.Expr{&query.Not{Item: a}}}, "besides exclusions"},
		{"exclusion in or", &query.Or{Items: []query.Expr{a, &query.Not{Item: b}}}, "alternative of OR"},
		{"double exclusion", &query.And{Items: []query.Expr{a, &query.Not{Item: &query.Not{Item: b}}}}, "besides exclusions"},
		{"term without tokens", &query.Term{}, "without searchable characters"},
		{"empty token", &query.Term{Tokens: []string{"a", ""}}, "empty word"},
		{"empty or", &query.Or{}, "empty OR"},
		{"empty and", &query.And{}, "besides exclusions"},
		{"nil item", &query.And{Items: []query.Expr{a, nil}}, "no words"},
		{"too deep", deep, "nested too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := query.CompileFTS5(query.ToTextExpr(tc.e), nil)
			checkInvalid(t, tc.name, err, tc.want)
			_, err = query.CompileTSQuery(query.ToTextExpr(tc.e))
			checkInvalid(t, tc.name, err, tc.want)
		})
	}
}

// A tree built by hand may hold tokens that Tokenize never makes; the quoting still holds.
func TestCompileEscapesHandBuiltTokens(t *testing.T) {
	db := MustOpenFTS(t)
	e := &query.And{Items: []query.Expr{
		&query.Term{Tokens: []string{`visit`}},
		&query.Term{Tokens: []string{`a"b`, `it's`, `back\slash`, `) OR (`}, Prefix: true},
	}}
	match, err := query.CompileFTS5(query.ToTextExpr(e), nil)
	if want := `"visit" AND "a""b it's back\slash ) OR ("*`; err != nil || match != want {
		t.Fatalf("CompileFTS5 = %q, %v; want %q", match, err, want)
	}
	checkFTS5Syntax(t, match, nil)
	if _, err := matchIDs(db, match); err != nil {
		t.Errorf("MATCH %q: %v", match, err)
	}
	ts, err := query.CompileTSQuery(query.ToTextExpr(e))
	if want := `'visit' & ('a"b' <-> 'it''s' <-> 'back\\slash' <-> ') or (':*)`; err != nil || ts != want {
		t.Errorf("CompileTSQuery = %q, %v; want %q", ts, err, want)
	}
}

func TestCompileTSQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"deploy", `'deploy'`},
		{"Café", `'cafe'`},
		{"emag.ro", `'emag' <-> 'ro'`},
		{"deplo*", `'deplo':*`},
		{`"emag r"*`, `'emag' <-> 'r':*`},
		{"a b", `'a' & 'b'`},
		{"a b OR c", `'a' & ('b' | 'c')`},
		{"a -b", `'a' & !'b'`},
		{"-b a", `!'b' & 'a'`},
		{"emag.ro -(x OR y.z)", `('emag' <-> 'ro') & !('x' | ('y' <-> 'z'))`},
		{"(a b) OR c", `('a' & 'b') | 'c'`},
		{"x -(a -b)", `'x' & !('a' & !'b')`},
		{"ŞTEFAN", `'stefan'`},
	} {
		got, err := query.CompileTSQuery(query.ToTextExpr(mustParse(t, tc.in).Text))
		if err != nil || got != tc.want {
			t.Errorf("CompileTSQuery(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestToTextExprKeepsTheTree(t *testing.T) {
	q := mustParse(t, `emag.ro -spam (a* OR b)`)
	got := query.ToTextExpr(q.Text)
	want := &annals.TextExpr{Op: annals.TextAnd, Items: []*annals.TextExpr{
		{Op: annals.TextTerm, Tokens: []string{"emag", "ro"}},
		{Op: annals.TextNot, Items: []*annals.TextExpr{{Op: annals.TextTerm, Tokens: []string{"spam"}}}},
		{Op: annals.TextOr, Items: []*annals.TextExpr{
			{Op: annals.TextTerm, Tokens: []string{"a"}, Prefix: true},
			{Op: annals.TextTerm, Tokens: []string{"b"}},
		}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToTextExpr = %+v, want %+v", got, want)
	}
	if query.ToTextExpr(nil) != nil {
		t.Error("ToTextExpr(nil) is not nil")
	}
}
