package historytest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// Prefix terms are searched as the words of the store's vocabulary that start with them, at
// most 64, the most frequent (internal/storecore/prefix.go); both stores give the same answers.

// prefixCorpus holds 70 words starting with zqw (more than a search expands a prefix into):
// chat "all" holds every one, "b" and "c" the 64 words zqw06..zqw69, and "rare" only zqw00, so
// the 64 most frequent words are zqw06..zqw69 (3 chats each) and zqw00..zqw05 are rarer.
func prefixCorpus(t *testing.T, open Opener) *env {
	t.Helper()
	e := newEnv(t, open)
	word := func(i int) string { return fmt.Sprintf("zqw%02d", i) }
	words := func(lo, hi int) string {
		var w []string
		for i := lo; i < hi; i++ {
			w = append(w, word(i))
		}
		return strings.Join(w, " ")
	}
	for i, c := range []struct{ id, text string }{
		{"all", words(0, 70)}, {"b", words(6, 70)}, {"c", words(6, 70)}, {"rare", word(0)},
	} {
		e.chat(c.id, "A", "ua1", "", i, "", c.text)
	}
	return e
}

// testShortPrefixExpandsToTheMostFrequentWords: a prefix standing for more words than a search
// expands is searched as its most frequent words, on every search path (chat documents, the
// entry-level chat ranking of a field filter, entry search), and the page says so: partial, with
// the reason, and the expansion in the explain output.
func testShortPrefixExpandsToTheMostFrequentWords(t *testing.T, open Opener) {
	e := prefixCorpus(t, open)
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
			page, err := e.svc.SearchChats(as(admin(allScopes...)), annals.SearchParams{Scope: annals.ScopeGlobal, Query: tc.q, Mode: tc.mode, Explain: true})
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

// testPrefixWithinTheCapIsExact: a prefix of few words finds exactly what it stands for, on
// every path, is not partial, and reports its words only when asked; a prefix no word starts
// with finds nothing.
func testPrefixWithinTheCapIsExact(t *testing.T, open Opener) {
	e := prefixCorpus(t, open)
	ctx := as(admin(allScopes...))
	for _, tc := range []struct {
		q     string
		mode  annals.SearchMode
		total int
	}{
		{"zqw0*", annals.SearchChatsMode, 4},
		{"role:user zqw0*", annals.SearchChatsMode, 4},
		{"zqw0*", annals.SearchEntriesMode, 4},
		{"zqw00 zqw6*", annals.SearchChatsMode, 1},
		{"zqw6* -zqw00", annals.SearchChatsMode, 2},
		{`"zqw68 zqw6"*`, annals.SearchChatsMode, 3},
		{"zqwx*", annals.SearchChatsMode, 0},
	} {
		page, err := e.svc.SearchChats(ctx, annals.SearchParams{Scope: annals.ScopeGlobal, Query: tc.q, Mode: tc.mode})
		if err != nil {
			t.Fatalf("%s (%s): %v", tc.q, tc.mode, err)
		}
		if page.Total != tc.total || page.Partial || page.PartialReason != "" || page.Explain != nil {
			t.Errorf("%s (%s): total %d, partial %v %q, explain %+v; want %d, not partial, no explain", tc.q, tc.mode, page.Total, page.Partial, page.PartialReason, page.Explain, tc.total)
		}
	}
	page, err := e.svc.SearchChats(ctx, annals.SearchParams{Scope: annals.ScopeGlobal, Query: "zqw0*", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if page.Explain == nil || len(page.Explain.Expansions) != 1 || len(page.Explain.Expansions[0].Words) != 10 || page.Explain.Expansions[0].Capped {
		t.Errorf("explain %+v, want zqw0* expanded to its 10 words, not capped", page.Explain)
	}
}

// testPrefixNeverExpandsToOwnerTokens: both stores' indexes hold each chat's owner as tokens
// (SQLite: t41 for tenant "A"); a prefix they start with (t4*) is expanded into the words of the
// text only, so owner tokens, in most documents, never take the places of the words a person
// typed it for.
func testPrefixNeverExpandsToOwnerTokens(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("c1", "A", "ua1", "", 0, "", "see t4word here")
	e.chat("c2", "A", "ua1", "", 1, "")
	page, err := e.svc.SearchChats(as(admin(allScopes...)), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "t4*", Explain: true})
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

// testExplainNeverShowsOtherTenantsWords: a member's explain output never lists a word only
// another tenant's chats hold, nor the counts of a vocabulary read from every tenant (SQLite's
// is one for the whole index: its expansions are withheld; PostgreSQL's is per tenant). An
// admin sees the words.
func testExplainNeverShowsOtherTenantsWords(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("mine", "A", "ua1", "", 0, "", "the zqkmine word")
	e.chat("theirs", "B", "ub1", "", 1, "", "the zqksecret word")
	page, err := e.svc.SearchChats(as(member("A", "ua1", "", annals.ScopeTenant)), annals.SearchParams{Scope: annals.ScopeTenant, Query: "zqk*", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 1 || page.Chats[0].Chat.ID != "mine" || page.Explain == nil || len(page.Explain.Expansions) != 1 {
		t.Fatalf("member of A: total %d, explain %+v; want mine alone and one expansion", page.Total, page.Explain)
	}
	x := page.Explain.Expansions[0]
	if slices.Contains(x.Words, "zqksecret") || (x.AllTenants && (len(x.Words) != 0 || x.Docs != 0 || x.Scanned != 0 || x.Vocabulary != 0)) {
		t.Errorf("member of A was shown %+v; want no word of B's and nothing counted over every tenant", x)
	}
	page, err = e.svc.SearchChats(as(admin(allScopes...)), annals.SearchParams{Scope: annals.ScopeGlobal, Query: "zqk*", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if x := page.Explain.Expansions[0]; !slices.Equal(x.Words, []string{"zqkmine", "zqksecret"}) {
		t.Errorf("admin, global: words %v; want zqkmine and zqksecret", x.Words)
	}
}
