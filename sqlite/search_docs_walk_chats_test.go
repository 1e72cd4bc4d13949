package sqlite_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// walkCorpus is a store of chats of two tenants and three users, some archived, some long enough
// to be split in blocks, over a few words, with a fixed clock (the pages compared must rank with
// the same recency).
func walkCorpus(t *testing.T) *sqlite.DB {
	t.Helper()
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetBlockLimitsForTest(4, 1<<20)
	words := []string{"timeout", "retry", "cache", "fix", "failing", "test", "connection", "database", "tell", "term"}
	for c := 0; c < 30; c++ {
		id := fmt.Sprintf("c%02d", c)
		chat := &annals.Chat{ID: id, TenantID: []string{"acme", "globex"}[c%2], UserID: []string{"ann", "bob", "cy"}[c%3],
			Title: words[(c*7)%len(words)] + " notes", Tags: []string{[]string{"x", "x", "y", "y"}[c%4]}}
		created, err := annals.CreateChat(t.Context(), db, chat)
		if err != nil {
			t.Fatal(err)
		}
		var entries []*annals.Entry
		for e := 0; e < 1+(c*5)%9; e++ {
			text := fmt.Sprintf("%s %s then %s", words[(c+e)%len(words)], words[(c*3+e*e)%len(words)], words[(e*7)%len(words)])
			entries = append(entries, &annals.Entry{ID: fmt.Sprintf("%s-%d", id, e), Kind: annals.KindUser, Text: text})
		}
		if _, err := annals.AppendEntries(t.Context(), db, id, entries); err != nil {
			t.Fatal(err)
		}
		if c%7 == 3 {
			archived := true
			if _, err := db.UpdateChat(t.Context(), created.Ref(), annals.ChatUpdate{Archived: &archived}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db
}

// TestWalkReadsNoChatWhenTheMatchHoldsTheFilter: when a chat search's filter is only its owner
// and archived state, which the walk's MATCH holds as owner tokens, the walk reads no chat row
// (the walked documents' chats come from chat_docs and chat_blocks); every page is the one the
// walk reading each chat gives: the same chats in the same order, scores, matches, snippets and
// totals, for owners of every scope, archived chats in or out, both sorts, few candidates (so
// that the walk stops early and the total is counted) and pages past the end.
func TestWalkReadsNoChatWhenTheMatchHoldsTheFilter(t *testing.T) {
	db := walkCorpus(t)
	owners := []annals.Owner{{AllTenants: true}, {TenantID: "acme"}, {TenantID: "globex", UserID: "bob"}}
	queries := []string{"timeout", "fix failing test", "timeout OR retry", "timeout -cache", `"then test"`, "te*", "t*", "tag:x timeout", "database connection"}
	for _, cands := range []int{0, 3} {
		db.SetCandidatesForTest(cands)
		for _, o := range owners {
			for _, q := range queries {
				for _, archived := range []bool{false, true} {
					for _, sort := range []string{annals.SortRelevance, annals.SortRecent} {
						for _, offset := range []int{0, 2, 40} {
							f := searchFilter(t, q, o)
							f.Chat.IncludeArchived, f.Sort, f.Offset, f.Limit = archived, sort, offset, 5
							var walks []string
							ctx := annals.NewContextWithStatementTrace(t.Context(), func(s annals.Statement) {
								if strings.Contains(s.SQL, "walk(k, bb, pk, long)") {
									walks = append(walks, s.SQL)
								}
							})
							got, gotTotal, err := db.SearchChats(ctx, f)
							if err != nil {
								t.Fatalf("%s: %v", q, err)
							}
							db.SetWalkReadsChatsForTest(true)
							want, wantTotal, err := db.SearchChats(t.Context(), f)
							db.SetWalkReadsChatsForTest(false)
							if err != nil {
								t.Fatalf("%s: %v", q, err)
							}
							name := fmt.Sprintf("candidates %d, owner %v, %q, archived %v, %s, offset %d", cands, o, q, archived, sort, offset)
							if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
								t.Errorf("%s: page (total %d)\n%+v\nwant the page of the walk reading each chat (total %d)\n%+v", name, gotTotal, got, wantTotal, want)
							}
							if offset == 0 && sort == annals.SortRelevance && cands == 0 && len(want) == 0 {
								t.Errorf("%s: no hits; the corpus should match", name)
							}
							for _, w := range walks {
								reads := strings.Contains(w, "CROSS JOIN chats c\n")
								if wantReads := strings.HasPrefix(q, "tag:"); reads != wantReads {
									t.Errorf("%s: the walk reads the chats: %v, want %v", name, reads, wantReads)
								}
							}
						}
					}
				}
			}
		}
	}
}
