package query_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// parseCases are valid queries and their canonical form (Query.String): the parsed tree written
// back with explicit grouping, filters last. They double as seeds for the fuzzer and as inputs
// for the FTS5 syntax test.
var parseCases = []struct {
	name, in, want string
}{
	// Words, phrases, prefixes.
	{"one word", "deploy", "deploy"},
	{"words are ANDed", "deploy staging", "deploy staging"},
	{"case folds to lower", "Deploy STAGING", "deploy staging"},
	{"phrase", `"exact phrase"`, `"exact phrase"`},
	{"phrase beside words", `fix "null pointer" crash`, `fix "null pointer" crash`},
	{"unclosed quote runs to the end", `error "index out of`, `error "index out of"`},
	{"phrase glued to a word", `foo"bar baz"`, `foo "bar baz"`},
	{"prefix", "deplo*", "deplo*"},
	{"several stars are one prefix", "deplo**", "deplo*"},
	{"phrase prefix", `"emag r"*`, `"emag r"*`},
	{"star inside a word is punctuation", "fo*o", `"fo o"`},
	{"lone star is nothing", "deploy *", "deploy"},
	{"duplicate words kept", "go go", "go go"},

	// Punctuated tokens split like the engine's tokenizer.
	{"domain", "emag.ro", `"emag ro"`},
	{"underscore", "foo_bar", `"foo bar"`},
	{"hyphen inside a word is not negation", "snake-case", `"snake case"`},
	{"file and line", "file.go:123", `"file go 123"`},
	{"symbols dropped", "c++", "c"},
	{"ip address", "192.168.0.1", `"192 168 0 1"`},
	{"url", "http://example.com/a?b=c", `"http example com a b c"`},
	{"apostrophe", "don't", `"don t"`},
	{"pasted error message", "panic: runtime error: index out of range [3] with length 3",
		"panic runtime error index out of range 3 with length 3"},
	{"brackets are text", "a[0] [x]", `"a 0" x`},
	{"call with parentheses is one word", "fmt.Println(x)", `"fmt println x"`},
	{"call inside a group", "(fmt.Println(x) OR log)", `"fmt println x" OR log`},
	{"accents kept in tokens", "Café", "café"},
	{"cli flag is a word", "--force", "force"},
	{"pasted name: value is text", "tool: Bash", "tool bash"},
	{"unknown field is text", "foo:bar", `"foo bar"`},
	{"json pasted", `{"key": "value"}`, "key value"},
	{"non latin", "Привет мир 你好", "привет мир 你好"},

	// Negation.
	{"exclude a word", "deploy -staging", "deploy -staging"},
	{"exclusion first", "-staging deploy", "-staging deploy"},
	{"exclude a phrase", `deploy -"dry run"`, `deploy -"dry run"`},
	{"exclude a group", "deploy -(staging OR test)", "deploy -(staging OR test)"},
	{"exclude a prefix", "deploy -stag*", "deploy -stag*"},
	{"exclude a punctuated word", "deploy -emag.ro", `deploy -"emag ro"`},
	{"dash alone is text", "a - b", "a b"},
	{"double exclusion cancels", "-(-a) b", "a b"},
	{"nested exclusion", "x -(a -b)", "x -(a -b)"},
	{"exclusion of a group with a positive word", "x -(a -(b))", "x -(a -b)"},
	{"exclusion in a group", "x (a -b)", "x a -b"},
	{"exclusion of empty group dropped", "x -()", "x"},
	{"exclusion of the word or", "-OR x", "-or x"},

	// OR, AND and precedence: OR binds tighter than AND.
	{"or", "a OR b", "a OR b"},
	{"or binds tighter than and", "a b OR c", "a (b OR c)"},
	{"or chain", "a OR b OR c", "a OR b OR c"},
	{"or of phrases", `"a b" OR c*`, `"a b" OR c*`},
	{"and keyword", "a AND b", "a b"},
	{"and keyword with or", "a AND b OR c", "a (b OR c)"},
	{"lowercase or is a word", "this or that", "this or that"},
	{"mixed case Or is a word", "this Or that", "this or that"},
	{"parentheses group", "(a b) OR c", "(a b) OR c"},
	{"parentheses nest", "((a OR b) c) OR d", "((a OR b) c) OR d"},
	{"group of one is its item", "(a)", "a"},
	{"dangling or dropped", "a OR", "a"},
	{"leading or dropped", "OR a", "a"},
	{"doubled or", "a OR OR b", "a OR b"},
	{"dangling and dropped", "AND a AND", "a"},
	{"or then and", "a OR AND b", "a b"},
	{"or before a close", "(a OR) b", "a b"},
	{"or in a phrase is a word", `"a OR b"`, `"a or b"`},
	{"nested ors flatten", "a OR (b OR c)", "a OR b OR c"},
	{"nested ands flatten", "a (b c)", "a b c"},

	// Forgiving parentheses.
	{"unclosed parenthesis closes at the end", "(a OR b", "a OR b"},
	{"stray close ignored", "a) b", "a b"},
	{"many stray closes", "a)) (b", "a b"},
	{"empty group dropped", "() a", "a"},

	// Filters.
	{"role", "deploy role:user", "deploy role:user"},
	{"role in capitals", "deploy role:Assistant", "deploy role:assistant"},
	{"field name in capitals", "deploy ROLE:user", "deploy role:user"},
	{"several roles", "x role:user role:tool role:user", "x role:user role:tool"},
	{"tool", "tool:Bash rm", "rm tool:Bash"},
	{"agent", "agent:reviewer", "agent:reviewer"},
	{"tag", "tag:release notes", "notes tag:release"},
	{"quoted tag", `tag:"release notes"`, `tag:"release notes"`},
	{"unclosed quoted tag", `tag:"release notes`, `tag:"release notes"`},
	{"tags are all required", "tag:a tag:b", "tag:a tag:b"},
	{"attribute", "attr.repository:github.com/o/r x", "x attr.repository:github.com/o/r"},
	{"attribute value with colons", "attr.url:http://x.io/a:b", "attr.url:http://x.io/a:b"},
	{"attribute key keeps case", "ATTR.Repo:x", "attr.Repo:x"},
	{"after date", "after:2026-01-01", "after:2026-01-01T00:00:00Z"},
	{"before date-time", "before:2026-01-01T10:00:00+02:00", "before:2026-01-01T10:00:00+02:00"},
	{"date range", "x after:2026-01-01 before:2026-02-01", "x after:2026-01-01T00:00:00Z before:2026-02-01T00:00:00Z"},
	{"in", "in:title deploy", "deploy in:title"},
	{"in list", "in:body,TITLE deploy", "deploy in:title,body"},
	{"in repeated", "in:tools in:summary x", "x in:summary,tools"},
	{"filter in a group", "(tag:x deploy) staging", "deploy staging tag:x"},
	{"filter after a word in a group", "a (b role:tool)", "a b role:tool"},
	{"filter name without value is text", "role: user", "role user"},
	{"filter value in parentheses", "(deploy tag:x)", "deploy tag:x"},
	{"quoted filter is text", `"tag:x"`, `"tag x"`},
	{"filter value with parentheses", "tool:f(x)", `tool:"f(x)"`},
	{"only filters", "role:user tag:x", "role:user tag:x"},
}

func TestParseGivesCanonicalForm(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			q := mustParse(t, tc.in)
			if got := q.String(); got != tc.want {
				t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// Parsing the canonical form again must give the same query: String is a faithful rendering.
func TestParseCanonicalFormRoundTrips(t *testing.T) {
	for _, tc := range parseCases {
		q := mustParse(t, tc.in)
		again := mustParse(t, q.String())
		if !sameQuery(q, again) {
			t.Errorf("Parse(%q) = %s, but Parse of that = %s", tc.in, q, again)
		}
	}
}

// sameQuery compares two queries on what matters for matching: tree shape, tokens, prefixes,
// filters and fields (not Raw or Phrase, which only record how a term was typed).
func sameQuery(a, b *query.Query) bool {
	if a.String() != b.String() || !reflect.DeepEqual(a.Fields, b.Fields) {
		return false
	}
	fa, fb := a.Filters, b.Filters
	sameTime := func(x, y *time.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	if !sameTime(fa.After, fb.After) || !sameTime(fa.Before, fb.Before) {
		return false
	}
	fa.After, fa.Before, fb.After, fb.Before = nil, nil, nil, nil
	return reflect.DeepEqual(fa, fb) && sameExpr(a.Text, b.Text)
}

func sameExpr(a, b query.Expr) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case *query.Term:
		b, ok := b.(*query.Term)
		return ok && reflect.DeepEqual(a.Tokens, b.Tokens) && a.Prefix == b.Prefix
	case *query.Not:
		b, ok := b.(*query.Not)
		return ok && sameExpr(a.Item, b.Item)
	case *query.And:
		b, ok := b.(*query.And)
		return ok && sameItems(a.Items, b.Items)
	case *query.Or:
		b, ok := b.(*query.Or)
		return ok && sameItems(a.Items, b.Items)
	}
	return false
}

func sameItems(a, b []query.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameExpr(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestParseBuildsTree(t *testing.T) {
	term := func(raw string, tokens ...string) *query.Term { return &query.Term{Tokens: tokens, Raw: raw} }
	q := mustParse(t, `a "b c"* -d (e OR f.g)`)
	want := &query.And{Items: []query.Expr{
		term("a", "a"),
		&query.Term{Tokens: []string{"b", "c"}, Prefix: true, Phrase: true, Raw: "b c"},
		&query.Not{Item: term("d", "d")},
		&query.Or{Items: []query.Expr{term("e", "e"), term("f.g", "f", "g")}},
	}}
	if !reflect.DeepEqual(q.Text, want) {
		t.Errorf("Parse tree = %s, want %s", q.Text, want)
	}
}

func TestParseFilters(t *testing.T) {
	q := mustParse(t, `deploy role:user role:TOOL tool:Bash tool:Read agent:rev tag:"my tag" tag:b `+
		`attr.repository:github.com/o/r attr.source:claude-code after:2026-01-01 before:2026-02-01T12:00:00Z in:title,body`)
	jan1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	feb1 := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	want := query.Filters{
		Roles:  []annals.EntryKind{annals.KindUser, annals.KindTool},
		Tools:  []string{"Bash", "Read"},
		Agents: []string{"rev"},
		Tags:   []string{"my tag", "b"},
		Attrs:  map[string]string{"repository": "github.com/o/r", "source": "claude-code"},
	}
	got := q.Filters
	if got.After == nil || !got.After.Equal(jan1) {
		t.Errorf("After = %v, want %v", got.After, jan1)
	}
	if got.Before == nil || !got.Before.Equal(feb1) {
		t.Errorf("Before = %v, want %v", got.Before, feb1)
	}
	got.After, got.Before = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Filters = %+v, want %+v", got, want)
	}
	if want := []string{annals.FieldTitle, annals.FieldBody}; !reflect.DeepEqual(q.Fields, want) {
		t.Errorf("Fields = %q, want %q", q.Fields, want)
	}
	if got, want := q.Text.String(), "deploy"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestParseOnlyFiltersHasNoText(t *testing.T) {
	q := mustParse(t, "tag:x role:user")
	if q.Text != nil {
		t.Errorf("Text = %s, want nil", q.Text)
	}
	if got := q.Terms(); len(got) != 0 {
		t.Errorf("Terms() = %q, want none", got)
	}
}

func TestTermsAreThePositiveTokensOnce(t *testing.T) {
	q := mustParse(t, `emag.ro -spam (deploy OR "Deploy now") -(x y) tag:z`)
	want := []string{"emag", "ro", "deploy", "now"}
	if got := q.Terms(); !reflect.DeepEqual(got, want) {
		t.Errorf("Terms() = %q, want %q", got, want)
	}
}

// invalidCases are queries Parse refuses, with what its message must say.
var invalidCases = []struct {
	name, in string
	want     []string
}{
	{"empty", "", []string{"no searchable words"}},
	{"blank", " \t\n", []string{"no searchable words"}},
	{"punctuation only", `... +++ "" () -- -`, []string{"no searchable words"}},
	{"keywords only", "OR AND OR", []string{"no searchable words"}},
	{"only an exclusion", "-foo", []string{"at least one word", "besides exclusions"}},
	{"only exclusions", `-foo -"bar baz" -(x OR y)`, []string{"besides exclusions"}},
	{"exclusions and filters only", "-foo tag:x", []string{"besides exclusions"}},
	{"group of exclusions in an or", "a OR (-b -c)", []string{"besides exclusions"}},
	{"exclusion inside or", "a OR -b", []string{"cannot be an alternative of OR", "(a OR b) -c"}},
	{"exclusion group inside or", "a OR -(b c)", []string{"cannot be an alternative of OR"}},
	{"exclusion in parentheses inside or", "a OR (-b)", []string{"cannot be an alternative of OR"}},
	{"unknown role", "x role:bot", []string{`unknown role "bot"`, "user, assistant, tool, system, event"}},
	{"bad date", "after:yesterday", []string{"after:yesterday is not a date", "2026-01-31", `"after:yesterday"`}},
	{"bad date-time", "before:2026-13-01", []string{"before:2026-13-01 is not a date"}},
	{"date without zone", "before:2026-01-01T10:00:00", []string{"is not a date"}},
	{"zero date as before", "x before:0001-01-01", []string{"before: 0001-01-01T00:00:00Z is outside the range annals stores", "1900-01-01"}},
	{"zero time as after", "x after:0001-01-01T00:00:00Z", []string{"after: 0001-01-01T00:00:00Z is outside the range"}},
	{"empty range", "x after:2026-02-01 before:2026-01-01", []string{"is not earlier than", "nothing could match"}},
	{"equal bounds", "x after:2026-02-01 before:2026-02-01", []string{"is not earlier than"}},
	{"after twice", "x after:2026-01-01 after:2026-01-02", []string{"after: is given twice"}},
	{"unknown field in in", "x in:title,everything", []string{`unknown field "everything"`, "title, description, summary, tags, body, tools"}},
	{"in without field", "x in:,", []string{"in: needs a field"}},
	{"in without words", "in:title tag:x", []string{"no words to search for"}},
	{"filter in or", "deploy OR tag:x", []string{"tag:x cannot be an alternative of OR", `"tag:x"`}},
	{"filter in or group", "(tag:x deploy) OR y", []string{"cannot be an alternative of OR"}},
	{"negated filter", "deploy -tag:x", []string{"-tag:x cannot be negated", `-"tag:x"`}},
	{"filter in exclusion", "deploy -(tag:x y)", []string{"cannot be inside an exclusion"}},
	{"negated group of a filter", "deploy -(tag:x)", []string{"cannot be negated"}},
	{"doubly negated filter", "deploy -(-tag:x)", []string{"cannot be negated"}},
	{"empty quoted value", `x tag:""`, []string{"tag: needs a value", "tag:"}},
	{"attr without key", "x attr.:v", []string{"needs an attribute name", "attr.repository:"}},
	{"attr key too long", "x attr." + strings.Repeat("k", 129) + ":v", []string{"at most 128"}},
	{"attr conflicting values", "x attr.a:1 attr.a:2", []string{"given twice with different values"}},
	{"invalid utf-8", "caf\xe9", []string{"not valid UTF-8"}},
}

func TestParseRefusesInvalidQueries(t *testing.T) {
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := query.Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want an error", tc.in, q)
			}
			checkInvalid(t, tc.in, err, tc.want...)
		})
	}
}

func TestParseLimits(t *testing.T) {
	words := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "w" + strings.Repeat("x", i%5)
		}
		return strings.Join(parts, " ")
	}
	nest := func(n int) string { return strings.Repeat("(a ", n) + "b" + strings.Repeat(")", n) }
	for _, tc := range []struct {
		name, in string
		want     string // "" means valid
	}{
		{"longest query", strings.Repeat("a", query.MaxQueryBytes), ""},
		{"query too long", strings.Repeat("a", query.MaxQueryBytes+1), "at most 4096 allowed"},
		{"most terms", words(query.MaxTerms), ""},
		{"too many terms", words(query.MaxTerms + 1), "at most 64 allowed"},
		{"filters count as terms", words(query.MaxTerms-1) + " tag:x tag:y", "65 words, phrases and filters"},
		{"punctuation does not count", words(query.MaxTerms) + strings.Repeat(" ...", 100), ""},
		{"a long phrase is one term", `"` + words(query.MaxTokens) + `"`, ""},
		{"too many words in phrases", `"` + words(200) + `" "` + words(57) + `"`, "257 words in all"},
		{"deepest nesting", nest(query.MaxDepth), ""},
		{"too deep", nest(query.MaxDepth + 1), "more than 16 deep (at position 49)"},
		{"depth counts open parentheses only", strings.Repeat("(a) ", 40), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := query.Parse(tc.in)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v, want it valid", err)
				}
				if _, err := query.CompileFTS5(query.ToTextExpr(q.Text), nil); err != nil {
					t.Fatalf("CompileFTS5: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse = %s, want an error", q)
			}
			checkInvalid(t, tc.in[:min(len(tc.in), 40)], err, tc.want)
		})
	}
}
