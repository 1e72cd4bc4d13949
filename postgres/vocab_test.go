package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

// vocabChat creates a chat of tenant with one user entry holding text.
func vocabChat(t *testing.T, db *postgres.DB, id, tenant, text string) {
	t.Helper()
	if _, err := annals.CreateChat(t.Context(), db, storetest.NewChat(id, tenant)); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(t.Context(), db, id, []*annals.Entry{storetest.TextEntry(id+"-1", annals.KindUser, text)}); err != nil {
		t.Fatal(err)
	}
}

func memberOf(tenant string) context.Context {
	return annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: tenant, UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes})
}

// expansionOf searches q as the principal of ctx in scope and returns the page and its one
// expansion's words.
func expansionOf(t *testing.T, svc *history.Service, ctx context.Context, scope annals.Scope, q string) (*annals.SearchPage, []string) {
	t.Helper()
	page, err := svc.SearchChats(ctx, annals.SearchParams{Scope: scope, Query: q, Explain: true})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if page.Explain == nil || len(page.Explain.Expansions) != 1 {
		t.Fatalf("%s: explain %+v, want one expansion", q, page.Explain)
	}
	return page, page.Explain.Expansions[0].Words
}

// A prefix is expanded from the words of the caller's tenant: another tenant's frequent words
// neither take the places of the tenant's own (it finds its chat, not partial) nor show in its
// explain output; a global search expands from every tenant's.
func TestPrefixExpandsFromTheCallersTenant(t *testing.T) {
	db := MustOpenDB(t)
	var many []string
	for i := range 70 {
		many = append(many, fmt.Sprintf("zqt%02d", i))
	}
	for i := range 3 {
		vocabChat(t, db, fmt.Sprintf("b%d", i), "B", strings.Join(many, " "))
	}
	vocabChat(t, db, "a1", "A", "the zqtown word")
	svc := history.New(history.Config{Store: db})
	page, words := expansionOf(t, svc, memberOf("A"), annals.ScopeTenant, "zqt*")
	if !slices.Equal(words, []string{"zqtown"}) || page.Partial || page.Total != 1 || page.Chats[0].Chat.ID != "a1" {
		t.Errorf("tenant A: expansion %v, partial %v, total %d; want zqtown alone, a1 found, not partial", words, page.Partial, page.Total)
	}
	page, words = expansionOf(t, svc, memberOf("B"), annals.ScopeTenant, "zqt*")
	if len(words) != 64 || slices.Contains(words, "zqtown") || !page.Partial || page.Total != 3 {
		t.Errorf("tenant B: %d words (zqtown among them: %v), partial %v, total %d; want B's 64 most frequent, partial, 3 chats", len(words), slices.Contains(words, "zqtown"), page.Partial, page.Total)
	}
	admin := annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "A", Role: annals.RoleAdmin, Scopes: annals.Scopes})
	page, words = expansionOf(t, svc, admin, annals.ScopeGlobal, "zqt*")
	if x := page.Explain.Expansions[0]; len(words) != 64 || x.Vocabulary != 71 || !page.Partial {
		t.Errorf("global: %d words of %d, partial %v; want 64 of every tenant's 71", len(words), x.Vocabulary, page.Partial)
	}
}

// Writers append the vocabulary's changes as deltas; a fold moves them into the counts without
// changing what a search reads, and the index check compares the sum with a rebuild (a delta
// that does not belong fails it). A deleted chat's words leave the vocabulary.
func TestVocabularyFoldKeepsWhatSearchesRead(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	vocabChat(t, db, "c1", "A", "zqfold zqfirst")
	vocabChat(t, db, "c2", "A", "zqfold zqsecond")
	svc := history.New(history.Config{Store: db})
	admin := annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "A", Role: annals.RoleAdmin, Scopes: annals.Scopes})
	_, before := expansionOf(t, svc, admin, annals.ScopeGlobal, "zqf*")
	n, err := db.FoldVocabForTest(ctx)
	if err != nil || n == 0 {
		t.Fatalf("fold: %d rows, %v; want the captures' deltas folded", n, err)
	}
	page, after := expansionOf(t, svc, admin, annals.ScopeGlobal, "zqf*")
	if !slices.Equal(before, []string{"zqfirst", "zqfold"}) || !slices.Equal(after, before) || page.Explain.Expansions[0].Docs != 3 {
		t.Errorf("expansion %v before the fold, %v (%d documents) after; want zqfirst, zqfold (3 documents) both times", before, after, page.Explain.Expansions[0].Docs)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("after the fold: %v", annals.ErrorDetail(err))
	}
	c1, err := db.FindChatByID(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteChat(ctx, c1.Ref()); err != nil {
		t.Fatal(err)
	}
	if _, words := expansionOf(t, svc, admin, annals.ScopeGlobal, "zqf*"); !slices.Equal(words, []string{"zqfold"}) {
		t.Errorf("after deleting c1: %v, want zqfold alone", words)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("after the delete: %v", annals.ErrorDetail(err))
	}
	if err := db.ExecForTest(ctx, `INSERT INTO chat_vocab_delta (tenant_id, word, docs) VALUES ('A', 'zqstray', 1)`); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err == nil || !strings.Contains(annals.ErrorDetail(err), "zqstray") {
		t.Errorf("a stray delta: check says %v, want it named", err)
	}
}

// The vocabulary read of an expansion is a range scan of an index of the folded words (the
// tenant's, or every tenant's), never a sequential scan of them; only the deltas not folded yet
// are scanned whole.
func TestVocabularyReadIsAnIndexRangeScan(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	vocabChat(t, db, "c1", "A", "zqplan")
	for _, tc := range []struct {
		name    string
		owner   annals.Owner
		indexes []string
	}{
		{"tenant", annals.Owner{TenantID: "A"}, []string{"chat_vocab_pkey"}},
		{"every tenant", annals.Owner{AllTenants: true}, []string{"chat_vocab_word"}},
	} {
		plan, err := db.VocabPlanForTest(ctx, tc.owner, "re")
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range tc.indexes {
			if !strings.Contains(plan, ix) {
				t.Errorf("%s: the plan does not use %s:\n%s", tc.name, ix, plan)
			}
		}
		if strings.Contains(plan, "Seq Scan on chat_vocab ") || !strings.Contains(plan, "Index Cond: (") {
			t.Errorf("%s: the plan scans the folded words, or not by a range:\n%s", tc.name, plan)
		}
	}
}
