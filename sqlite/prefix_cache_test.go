package sqlite_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// A prefix's words are read from the chat index's vocabulary once for the index as it is: a
// search of the same prefix by any owner reuses them, and any write to the index (through this
// handle or another, as another process writes) makes the next search read them again, so the
// words are always the index's own. What each owner finds stays its own chats.
func TestPrefixWordsKeptUntilTheIndexChanges(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	refs := map[string]annals.ChatRef{}
	for _, c := range []annals.Chat{{ID: "a1", TenantID: "acme"}, {ID: "o1", TenantID: "other"}} {
		created, err := annals.CreateChat(ctx, db, &c)
		if err != nil {
			t.Fatal(err)
		}
		refs[c.ID] = created.Ref()
	}
	appendWords(t, db, "a1", "render")
	appendWords(t, db, "o1", "renew")

	// search runs q as owner o and says the chats found and the words the prefix stood for.
	search := func(q string, o annals.Owner) (chats, words []string) {
		t.Helper()
		hits, _ := searchAll(t, db, searchFilter(t, q, o), true)
		for _, h := range hits {
			chats = append(chats, h.Chat.ID)
		}
		slices.Sort(chats)
		r := &annals.SearchReport{}
		if _, _, err := db.SearchChats(annals.NewContextWithSearchReport(ctx, r), searchFilter(t, q, o)); err != nil {
			t.Fatal(err)
		}
		for _, x := range r.Explain().Expansions {
			words = append(words, x.Words...)
		}
		slices.Sort(words)
		return chats, words
	}
	// wantReads < 0: the reads are not checked.
	check := func(step string, o annals.Owner, wantChats, wantWords []string, wantReads int) {
		t.Helper()
		q := "re*"
		if w, ok := strings.CutPrefix(step, "prefix "); ok {
			q = w
		}
		chats, words := search(q, o)
		if !slices.Equal(chats, wantChats) || !slices.Equal(words, wantWords) {
			t.Errorf("%s, owner %s: chats %q, words %q; want %q, %q", step, o, chats, words, wantChats, wantWords)
		}
		if got := db.VocabReadsForTest(); wantReads >= 0 && got != wantReads {
			t.Errorf("%s, owner %s: %d vocabulary reads, want %d", step, o, got, wantReads)
		}
	}
	acme, other, all := annals.Owner{TenantID: "acme"}, annals.Owner{TenantID: "other"}, annals.Owner{AllTenants: true}
	check("first search", acme, []string{"a1"}, []string{"render", "renew"}, 1)
	check("the same prefix again", acme, []string{"a1"}, []string{"render", "renew"}, 1)
	check("another tenant", other, []string{"o1"}, []string{"render", "renew"}, 1)
	check("every tenant", all, []string{"a1", "o1"}, []string{"render", "renew"}, 1)
	// re*'s read reached the end of its words, so a longer prefix is answered from it, as
	// search-as-you-type asks re*, ren*, rend*.
	check("prefix ren*", all, []string{"a1", "o1"}, []string{"render", "renew"}, 1)
	check("prefix rend*", other, nil, []string{"render"}, 1)
	check("prefix rend*", acme, []string{"a1"}, []string{"render"}, 1)

	// A write through another handle on the same file, as another process writes.
	db2, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendWords(t, db2, "a1", "reply")
	if err := db2.Close(); err != nil {
		t.Fatal(err)
	}
	check("after another handle's write", acme, []string{"a1"}, []string{"render", "renew", "reply"}, 2)
	check("again", other, []string{"o1"}, []string{"render", "renew", "reply"}, 2)

	// A delete through this handle: the deleted chat's words leave the expansion.
	if err := db.DeleteChat(ctx, refs["o1"]); err != nil {
		t.Fatal(err)
	}
	check("after a delete", all, []string{"a1"}, []string{"render", "reply"}, 3)

	// Searches of every owner at once, beside a write: each sees only its own chats.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, want := acme, "a1"
			if i%2 == 1 {
				o, want = other, "o2"
			}
			hits, _, err := db.SearchChats(ctx, searchFilter(t, "re*", o))
			if err != nil {
				t.Error(err)
				return
			}
			for _, h := range hits {
				if h.Chat.ID != want {
					t.Errorf("owner %s found %s", o, h.Chat.ID)
				}
			}
		}()
	}
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "o2", TenantID: "other"}); err != nil {
		t.Fatal(err)
	}
	appendWords(t, db, "o2", "rewrite")
	wg.Wait()
	check("after the concurrent write", other, []string{"o2"}, []string{"render", "reply", "rewrite"}, -1)
}
