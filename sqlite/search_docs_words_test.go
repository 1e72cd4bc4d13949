package sqlite_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// wordsCorpus is a small store where each chat holds a few of the many words starting with "re"
// (and "co"), in its entries or only in its title, some chats long enough to be split in blocks.
func wordsCorpus(t *testing.T, blocks bool) *sqlite.DB {
	t.Helper()
	// A fixed clock: the two searches compared must rank with the same recency.
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if blocks {
		db.SetBlockLimitsForTest(3, 1<<20)
	}
	words := []string{"read", "request", "result", "return", "remove", "retry", "reply", "render", "config", "connect", "commit", "copy"}
	for c := 0; c < 12; c++ {
		title := ""
		if c%4 == 0 {
			title = "report " + words[(c+5)%len(words)] // a word held only by the title
		}
		id := fmt.Sprintf("c%02d", c)
		if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: id, TenantID: "t", Title: title}); err != nil {
			t.Fatal(err)
		}
		var entries []*annals.Entry
		for e := 0; e < 2+c%5; e++ {
			w := words[(c*3+e*e)%len(words)]
			text := fmt.Sprintf("please %s the thing %d", w, e)
			if e%3 == 2 {
				text += " and " + words[(c+e)%len(words)] + " it again, " + w
			}
			en := &annals.Entry{ID: fmt.Sprintf("%s-e%d", id, e), Kind: annals.KindUser, Text: text}
			if e == 1 {
				en.Kind, en.Text, en.Tool = annals.KindTool, "", &annals.ToolCall{Name: "Read", Result: text}
			}
			entries = append(entries, en)
		}
		if _, err := annals.AppendEntries(t.Context(), db, id, entries); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestPagePassesSeekOnlyTheWordsAChatHolds: a page's matches of a prefix search seek, in each
// chat, only the words of the prefix's expansion its chat document holds (at 1M
// entries the 64 words of re* in 50 page chats were 65–160 ms of the search), and the page is
// the one the passes over every word give: the same chats in the same order, with the same
// match counts and snippets, and the same total.
func TestPagePassesSeekOnlyTheWordsAChatHolds(t *testing.T) {
	for _, blocks := range []bool{false, true} {
		db := wordsCorpus(t, blocks)
		for _, q := range []string{"re*", "co*", "r*", "re* -retry", "rep*", "re* in:tools", "re* OR co*", "re* commit", "c*"} {
			f := searchFilter(t, q, annals.Owner{AllTenants: true})
			var narrowed, words []annals.Statement
			ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
				if strings.Contains(s.SQL, "MATCH g.m") {
					narrowed = append(narrowed, s)
				}
				if strings.Contains(s.SQL, "SELECT d.chat_pk, j.key") {
					words = append(words, s)
				}
			})
			db.SetPageWordsForTest(true)
			got, gotTotal, err := db.SearchChats(ctx, f)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			db.SetPageWordsForTest(false)
			want, wantTotal, err := db.SearchChats(t.Context(), f)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if len(want) == 0 {
				t.Fatalf("%s: no hits; the corpus should match", q)
			}
			if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
				t.Errorf("blocks %v, %s: narrowed page (total %d)\n%+v\nwant the page over every word (total %d)\n%+v", blocks, q, gotTotal, got, wantTotal, want)
			}
			// One expanded prefix alone (with or without an exclusion) is narrowed when no page
			// chat is long; an OR of two prefixes, or a prefix and a word, is not.
			single := !strings.Contains(q, " OR ") && !strings.Contains(q, "commit")
			if wantNarrowed := single && !blocks; (len(narrowed) == 1) != wantNarrowed {
				t.Errorf("blocks %v, %s: %d narrowed statements, want narrowed %v (the matches; the snippets read their entries by pk)", blocks, q, len(narrowed), wantNarrowed)
			}
			// The pass that finds which words each page chat holds reads each word's postings
			// between the page's documents' rowids only (its chats' last activity), not all.
			for _, s := range words {
				if !strings.Contains(s.SQL, "chat_fts.rowid BETWEEN (SELECT min(doc) FROM pd) AND (SELECT max(doc) FROM pd)") {
					t.Errorf("%s: the words' pass is not bounded by the page's documents: %s", q, s.SQL)
				}
			}
			if wantNarrowed := single && !blocks; wantNarrowed && len(words) != 1 {
				t.Errorf("blocks %v, %s: %d passes for the words each chat holds, want 1", blocks, q, len(words))
			}
			checked := 0
			for _, s := range narrowed {
				checked += checkChatWords(t, db, q, s)
			}
			if len(narrowed) > 0 && checked == 0 {
				t.Errorf("%s: no per-chat words found in the narrowed statements", q)
			}
		}
	}
}

// checkChatWords checks that a narrowed statement's per-chat MATCH lists only words the chat holds.
// It returns how many chats' words it checked.
func checkChatWords(t *testing.T, db *sqlite.DB, q string, s annals.Statement) int {
	t.Helper()
	checked := 0
	for _, a := range s.Args {
		str, ok := a.(string)
		if !ok || !strings.HasPrefix(str, "[[") || !strings.Contains(str, `\"`) {
			continue
		}
		var list [][2]any
		if err := json.Unmarshal([]byte(str), &list); err != nil {
			t.Fatalf("%s: per-chat words %q: %v", q, str, err)
		}
		for _, pm := range list {
			checked++
			pk, m := int64(pm[0].(float64)), pm[1].(string)
			var text string
			if err := db.QueryRowForTest(t.Context(), fmt.Sprintf(`SELECT group_concat(c.title || ' ' || coalesce(e.text, '') || ' ' || coalesce(e.tool_name, '') || ' ' || coalesce(e.tool_result, ''), ' ') FROM chats c JOIN entries e ON e.chat_pk = c.pk WHERE c.pk = %d`, pk), &text); err != nil {
				t.Fatal(err)
			}
			text = strings.ToLower(text)
			for _, w := range strings.Split(m, `"`) {
				if w = strings.TrimSpace(w); w == "" || strings.ContainsAny(w, "(){}:") || w == "OR" {
					continue
				}
				if !slices.Contains(strings.Fields(strings.NewReplacer(",", " ").Replace(text)), w) {
					t.Errorf("%s: chat %d's cursor seeks %q, which it does not hold (%q)", q, pk, w, text)
				}
			}
		}
	}
	return checked
}
