package sqlite_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// TestPageListsAreThePageRows: a one-pass page (one positive term: a word, a phrase, a prefix's
// words) reads each chat's matches as one list, and a page of an AND of terms each term's
// entries in each chat as one list (pageTermMatches) instead of an AND pass and an OR pass; the
// pages are the ones reading the matches a row each gives: the same chats in the same order with
// the same match counts, snippets and totals, for any number of snippets, prefixes narrowed to
// each chat's words or not, long chats' blocks or not. Terms not all ANDed (a OR b) are read as
// lists too, every entry holding some term a match.
func TestPageListsAreThePageRows(t *testing.T) {
	dbs := map[string]*sqlite.DB{"words": wordsCorpus(t, false), "words in blocks": wordsCorpus(t, true), "walk": walkCorpus(t), "interleaved": interleavedCorpus(t)}
	queries := []string{"re*", "co*", "read", "retry", "re* -retry", `"the thing"`, "timeout", "te*", "t*", "fix failing test", "timeout OR retry",
		"timeout -cache", "tag:x timeout", "please thing", "please re* thing", "re* commit", "fix test", "database connection timeout", "then test",
		"fix OR failing", "(fix test) OR timeout", "re* OR commit", "test OR then -cache"}
	rows := map[string]bool{}
	for name, db := range dbs {
		for _, q := range queries {
			for _, snippets := range []int{0, 1, 3} {
				for _, narrow := range []bool{true, false} {
					f := searchFilter(t, q, annals.Owner{AllTenants: true})
					f.Snippets = snippets
					var lists int
					ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
						if strings.Contains(s.SQL, "group_concat(entries_fts.rowid") {
							lists++
						}
					})
					db.SetPageWordsForTest(narrow)
					got, gotTotal, err := db.SearchChats(ctx, f)
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					db.SetPageListsForTest(false)
					want, wantTotal, err := db.SearchChats(t.Context(), f)
					db.SetPageListsForTest(true)
					db.SetPageWordsForTest(true)
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					desc := fmt.Sprintf("%s, %q, %d snippets, narrowed %v", name, q, snippets, narrow)
					if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
						t.Errorf("%s: page read as lists (total %d)\n%+v\nwant the page read a row each (total %d)\n%+v", desc, gotTotal, got, wantTotal, want)
					}
					if len(want) > 0 && rows[q] != (lists == 0) {
						t.Errorf("%s: %d statements read lists, want one", desc, lists)
					}
				}
			}
		}
	}
}

// interleavedCorpus is a store whose chats were written a round at a time, an entry each, so that
// each chat's range of the entry index holds the other chats' entries: a page's passes must
// tell its chat's matches from theirs.
func interleavedCorpus(t *testing.T) *sqlite.DB {
	t.Helper()
	db := walkCorpus(t)
	words := []string{"fix", "failing", "test", "timeout", "retry", "database", "connection", "then", "please", "thing", "read", "commit"}
	for c := 0; c < 8; c++ {
		if _, err := annals.CreateChat(t.Context(), db, &annals.Chat{ID: fmt.Sprintf("i%d", c), TenantID: "acme"}); err != nil {
			t.Fatal(err)
		}
	}
	for r := 0; r < 12; r++ {
		for c := 0; c < 8; c++ {
			text := fmt.Sprintf("%s %s %s", words[(r+c)%len(words)], words[(r*c)%len(words)], words[(r*5+c*3)%len(words)])
			if r%4 == c%4 && (c < 4 || r < 4) {
				text += " fix failing test timeout database connection"
			}
			e := &annals.Entry{ID: fmt.Sprintf("i%d-%d", c, r), Kind: annals.KindUser, Text: text}
			if _, err := annals.AppendEntries(t.Context(), db, fmt.Sprintf("i%d", c), []*annals.Entry{e}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db
}
