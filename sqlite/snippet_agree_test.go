package sqlite_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// TestGoSnippetsAgreeWithFTS5: query.Snippet, which cuts the chat search's snippets in Go, gives
// FTS5's snippet() text for every matching entry of a corpus built to tell them apart: long and
// short fields, sentences (snippet() prefers a window at a sentence's start), repeats, hostile
// and unicode text (accents folded, combining marks, CJK, emoji, private use, "emag.ro"),
// redaction placeholders, and queries of words, prefixes, phrases, OR, NOT and column filters.
func TestGoSnippetsAgreeWithFTS5(t *testing.T) {
	db := openTestDB(t)
	if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: "c", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	words := []string{"timeout", "Timeout", "TIMEOUT", "retry", "rebase", "release", "Café", "cafe", "naïve", "e\u0301cole",
		"ecole", "emag.ro", "the", "test", "the test", "日本語", "🙂", "x\U000F0001y", "snake-case", "don't", "c++", "a",
		"of", "database", "connection", "[redacted:aws]", "[private]", "Ωmega", "ßtraße", "İstanbul", "<b>", "&amp;", "\"q\""}
	seps := []string{" ", " ", " ", ", ", ". ", ": ", ".\n", "\t", " — ", "...", ":", "\r\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		if rng.IntN(3) == 0 {
			b.WriteString(".")
		}
		return b.String()
	}
	size := func() int { return []int{0, 1, 3, 8, 15, 16, 17, 30, 60}[rng.IntN(9)] }
	var entries []*annals.Entry
	for i := range 400 {
		e := &annals.Entry{ID: fmt.Sprint(i), Kind: annals.KindAssistant, Text: text(size()), Reasoning: text(size())}
		if i%3 == 0 {
			args, _ := json.Marshal(map[string]string{"cmd": text(size())})
			e.Kind, e.Tool = annals.KindTool, &annals.ToolCall{Name: text(1), Arguments: args, Result: text(size())}
		}
		entries = append(entries, e)
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c", entries); err != nil {
		t.Fatal(err)
	}
	cols := map[string]int{"text": 0, "reasoning": 1, "tool_name": 2, "tool_args": 3, "tool_result": 4}
	for _, c := range []struct {
		q    string
		cols []string
	}{
		{"timeout", nil}, {"cafe", nil}, {"ecole", nil}, {"re*", nil}, {"r*", nil}, {"\"the test\"", nil},
		{"\"emag.ro\"", nil}, {"timeout retry", nil}, {"timeout OR cafe OR 日本語", nil}, {"timeout -retry", nil},
		{"the", nil}, {"\"test the\" OR of", nil}, {"istanbul", nil}, {"strasse OR ßtraße", nil}, {"aws", nil},
		{"timeout", []string{"text", "reasoning"}}, {"timeout retry", []string{"tool_name", "tool_args", "tool_result"}},
	} {
		pq, err := query.Parse(c.q)
		if err != nil {
			t.Fatalf("parse %q: %v", c.q, err)
		}
		e := query.ToTextExpr(pq.Text)
		match, err := query.CompileFTS5(e, c.cols)
		if err != nil {
			t.Fatal(err)
		}
		want, fields, err := db.FTS5SnippetsForTest(t.Context(), match)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if c.q != "aws" && len(want) == 0 {
			t.Errorf("%q matches no entry: the corpus tests nothing", c.q)
		}
		terms := query.PositiveTerms(e, nil)
		for pk, w := range want {
			f := fields[pk]
			if c.cols != nil {
				kept := make([]string, 5)
				for _, name := range c.cols {
					kept[cols[name]] = f[cols[name]]
				}
				f = kept
			}
			if got := query.Snippet(f, terms, query.Fold, "[", "]"); got != w {
				t.Errorf("%q entry %d %q:\n Go   %q\n FTS5 %q", c.q, pk, f, got, w)
			}
		}
	}
}
