package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/storetest"
)

// prefixCorpus holds 70 words starting with zqw (more than a search expands a prefix into):
// chat "all" holds every one, "b" and "c" the 64 words zqw06..zqw69, and "rare" only zqw00, so
// the 64 most frequent words are zqw06..zqw69 (3 chats each) and zqw00..zqw05 are rarer.
func prefixCorpus(t *testing.T) *history.Service {
	t.Helper()
	db := openTestDB(t)
	word := func(i int) string { return fmt.Sprintf("zqw%02d", i) }
	words := func(lo, hi int) string {
		var w []string
		for i := lo; i < hi; i++ {
			w = append(w, word(i))
		}
		return strings.Join(w, " ")
	}
	for _, c := range []struct{ id, text string }{
		{"all", words(0, 70)}, {"b", words(6, 70)}, {"c", words(6, 70)}, {"rare", word(0)},
	} {
		if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat(c.id, "A")); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(t.Context(), db, c.id, []*annals.Entry{storetest.TextEntry(c.id+"-1", annals.KindUser, c.text)}); err != nil {
			t.Fatal(err)
		}
	}
	return history.New(history.Config{Store: db})
}

// TestSearchOverItsBudgetAnswersNewestFirst: a search by relevance that runs out of the search
// budget (here one nanosecond, always spent before the store starts) is answered newest first,
// marked partial with the reason, instead of failing.
func TestSearchOverItsBudgetAnswersNewestFirst(t *testing.T) {
	db := openTestDB(t)
	for _, id := range []string{"old", "mid", "new"} {
		if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat(id, "A")); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(t.Context(), db, id, []*annals.Entry{storetest.TextEntry(id+"-1", annals.KindUser, "zqbudget "+id)}); err != nil {
			t.Fatal(err)
		}
	}
	svc := history.New(history.Config{Store: db, SearchBudget: time.Nanosecond})
	for _, mode := range []annals.SearchMode{annals.SearchChatsMode, annals.SearchEntriesMode} {
		page, err := svc.SearchChats(adminCtx(), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "zqbudget", Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v, want the newest matches", mode, err)
		}
		first := ""
		if len(page.Chats) > 0 {
			first = page.Chats[0].Chat.ID
		}
		if len(page.Entries) > 0 {
			first = page.Entries[0].Entry.ChatID
		}
		if page.Total != 3 || first != "new" || !page.Partial || !strings.Contains(page.PartialReason, "search budget (1ns)") {
			t.Errorf("%s: total %d, first %q, partial %v %q; want 3 matches newest first, marked partial for the budget", mode, page.Total, first, page.Partial, page.PartialReason)
		}
	}
}

func adminCtx() context.Context {
	return annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "root", Role: annals.RoleAdmin, Scopes: annals.Scopes})
}

// TestShortPrefixExpandsToTheMostFrequentWords: a prefix standing for more words than a search
// expands is searched as its most frequent words, on every search path (chat documents, the
// entry-level chat ranking of a field filter, entry search), and the page says so: partial, with
// the reason, and the expansion in the explain output.
func TestShortPrefixExpandsToTheMostFrequentWords(t *testing.T) {
	svc := prefixCorpus(t)
	var want []string
	for i := 6; i < 70; i++ {
		want = append(want, fmt.Sprintf("zqw%02d", i))
	}
	for _, tc := range []struct {
		name, q string
		mode    annals.SearchMode
		path    string
	}{
		{"chat documents", "zqw*", annals.SearchChatsMode, "chat documents"},
		{"field filter", "role:user zqw*", annals.SearchChatsMode, "entry index"},
		{"entries", "zqw*", annals.SearchEntriesMode, "entry index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := svc.SearchChats(adminCtx(), annals.SearchParams{Scope: annals.ScopeGlobal, Query: tc.q, Mode: tc.mode, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range page.Chats {
				ids = append(ids, h.Chat.ID)
			}
			for _, h := range page.Entries {
				ids = append(ids, h.Entry.ChatID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, []string{"all", "b", "c"}) || page.Total != 3 {
				t.Errorf("found %v (total %d), want all, b and c: the chat holding only a rare word is not searched", ids, page.Total)
			}
			if !page.Partial || !strings.Contains(page.PartialReason, "zqw* stands for 70 words; searched the 64 most frequent") {
				t.Errorf("partial %v, reason %q; want the page marked partial, naming the prefix and the counts", page.Partial, page.PartialReason)
			}
			if page.Explain == nil || len(page.Explain.Expansions) != 1 {
				t.Fatalf("explain %+v, want one expansion", page.Explain)
			}
			x := page.Explain.Expansions[0]
			if x.Prefix != "zqw*" || !x.Capped || x.Scanned != 70 || x.Vocabulary != 70 || x.Docs != 64*3 || !slices.Equal(x.Words, want) {
				t.Errorf("expansion %+v, want zqw* capped to zqw06..zqw69 (3 documents each) of 70 scanned", x)
			}
			if page.Explain.Path != tc.path {
				t.Errorf("path %q, want %q", page.Explain.Path, tc.path)
			}
		})
	}
}

// TestPrefixWithinTheCapIsExact: a prefix of few words finds exactly what it stands for, is not
// partial, and reports its words only when asked.
func TestPrefixWithinTheCapIsExact(t *testing.T) {
	svc := prefixCorpus(t)
	page, err := svc.SearchChats(adminCtx(), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "zqw0*"})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 4 || page.Partial || page.PartialReason != "" || page.Explain != nil {
		t.Errorf("total %d, partial %v %q, explain %+v; want every chat, not partial, no explain", page.Total, page.Partial, page.PartialReason, page.Explain)
	}
	page, err = svc.SearchChats(adminCtx(), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "zqw0*", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if page.Explain == nil || len(page.Explain.Expansions) != 1 || len(page.Explain.Expansions[0].Words) != 10 || page.Explain.Expansions[0].Capped {
		t.Errorf("explain %+v, want zqw0* expanded to its 10 words, not capped", page.Explain)
	}
}

// TestPrefixNeverExpandsToOwnerTokens: the chat index holds each chat's owner as tokens (t41 for
// tenant "A"); a prefix they start with (t4*) is expanded into the words of the text only, so
// owner tokens, in most documents, never take the places of the words a person typed it for.
func TestPrefixNeverExpandsToOwnerTokens(t *testing.T) {
	db := openTestDB(t)
	for _, id := range []string{"c1", "c2"} {
		if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat(id, "A")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := annals.AppendEntries(t.Context(), db, "c1", []*annals.Entry{storetest.TextEntry("e1", annals.KindUser, "see t4word here")}); err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db})
	page, err := svc.SearchChats(adminCtx(), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "t4*", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if page.Explain == nil || len(page.Explain.Expansions) != 1 || !slices.Equal(page.Explain.Expansions[0].Words, []string{"t4word"}) {
		t.Fatalf("explain %+v, want t4* expanded to t4word alone (t41 is tenant A's owner token)", page.Explain)
	}
	if page.Total != 1 || page.Chats[0].Chat.ID != "c1" {
		t.Errorf("found %d chats, want c1 alone", page.Total)
	}
}
