package postgres_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/view"
)

// hostileInputs are queries and terms that are syntax somewhere: tsquery operators and quoting,
// FTS5, LIKE, SQL, JSON, and lexemes at PostgreSQL's limits.
var hostileInputs = []string{
	`a & b | !c`, `x <-> y`, `x <2> y`, `'quoted'`, `it's`, `back\slash`, `\'`, `''`, `a:*`, `a:AB`, `a:*ABCD`,
	`!a`, `(a | b) & !c`, `"unbalanced`, `NOT`, `AND OR`, `NEAR(a b)`, `{title}:x`, `title:foo`, `50%_off`,
	`'; DROP TABLE chats; --`, `$1`, `?`, `??`, `$$x$$`, `E'\n'`, `ünïcödé Café ŞTEFAN`, `日本語 テキスト`,
	`emag.ro`, `foo_bar`, `c++`, `file.go:123`, `-deploy`, `+deploy`, `a-b`, `zepp*`, `"release train"`,
	`(emag.ro OR panic) feed`, `kubernetes -upgrade`, `tag:q3 x`, `in:title x`, `role:user x`,
	strings.Repeat("a", 5000), strings.Repeat("é", 3000), strings.Repeat("x ", 200), "a\x00b",
	strings.Repeat("(", 20) + "a" + strings.Repeat(")", 20),
}

// checkQuery runs s through every text path of the store: as a parsed query in chat and entry
// search (restricted to each field too), and as a literal term of MatchEntries, MatchChats,
// MetaTerms and the view's words. Only a refusal as invalid is allowed; a tsquery or SQL syntax
// error would surface as internal.
func checkQuery(t *testing.T, s *postgres.DB, in string) {
	t.Helper()
	ctx := context.Background()
	owner := annals.Owner{TenantID: "A"}
	allowed := func(what string, err error) {
		t.Helper()
		if err != nil && annals.ErrorCode(err) != annals.EINVALID {
			t.Fatalf("%s(%q): %v (code %s), want success or invalid", what, in, err, annals.ErrorCode(err))
		}
	}
	if q, err := query.Parse(in); err == nil && q.Text != nil {
		text := query.ToTextExpr(q.Text)
		for _, fields := range [][]string{nil, {annals.FieldBody}, {annals.FieldTools}, {annals.FieldTitle, annals.FieldTags}} {
			f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: owner}, Text: text, Fields: fields, Snippets: 3}
			_, _, err := s.SearchChats(ctx, f)
			allowed("SearchChats", err)
			_, _, err = s.SearchEntries(ctx, f)
			allowed("SearchEntries", err)
		}
		_, _, err = s.SearchChats(ctx, annals.SearchFilter{Chat: annals.ChatFilter{Owner: owner}, Text: text, Roles: []annals.EntryKind{annals.KindUser}, Snippets: 1})
		allowed("SearchChats with a role", err)
	}
	_, err := s.MatchEntries(ctx, annals.TextMatch{Owner: owner, Terms: []string{in}})
	allowed("MatchEntries", err)
	_, err = s.MatchChats(ctx, annals.TextMatch{Owner: owner, Terms: []string{in, "deploy"}})
	allowed("MatchChats", err)
	_, _, err = s.FindChats(ctx, annals.ChatFilter{Owner: owner, MetaTerms: []string{in}, TitleContains: &in, Tag: &in})
	allowed("FindChats", err)
	if in != "" {
		_, err = s.ViewSearch(ctx, view.Filter{Owner: owner, Words: []string{in}, Channels: []string{in}})
		allowed("ViewSearch", err)
	}
}

func fuzzStore(tb testing.TB) *postgres.DB {
	s := MustOpenDB(tb)
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: "c1", TenantID: "A", Title: `deploy emag.ro and say "hello"`, Tags: []string{"q3-plan"}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, s, "c1", []*annals.Entry{
		{ID: "e1", Kind: annals.KindUser, Text: "deploy to emag.ro today; it's a & b | !c"},
		{ID: "e2", Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "Bash", Arguments: []byte(`{"cmd":"echo 'x' \\ y"}`), Result: "release train"}},
	}); err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestHostileQueriesAreNeverSyntaxErrors(t *testing.T) {
	s := fuzzStore(t)
	for _, in := range hostileInputs {
		checkQuery(t, s, in)
	}
	// And random strings over an alphabet of syntax characters, words and odd runes.
	alphabet := []string{"a", "b", "ro", "emag", ".", "'", "\"", "\\", ":", "*", "&", "|", "!", "<", "->", "(", ")", "-", " ",
		"OR", "AND", "in:title", "tag:", "é", "Ş", "日", "\u0301", "\u00a0", "%", "_", "$1", "?", ";"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		checkQuery(t, s, b.String())
	}
}

// FuzzSearchQuery runs arbitrary input through every text path against a real server.
//
//	ANNALS_TEST_POSTGRES_DSN=... go test ./postgres -run '^$' -fuzz FuzzSearchQuery -fuzztime 60s
func FuzzSearchQuery(f *testing.F) {
	for _, in := range hostileInputs {
		f.Add(in)
	}
	s := fuzzStore(f)
	f.Fuzz(func(t *testing.T, in string) {
		checkQuery(t, s, in)
	})
}
