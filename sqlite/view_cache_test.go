package sqlite_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/queryview"
)

// The query view's kept answers (queryview.Cache) last until anything is committed to the file
// by any connection: another process's append shows in the next answer of a server that kept
// the page before it (ViewGeneration is the change watch's).
func TestViewCachedAnswerEndsAtAnotherProcessCommit(t *testing.T) {
	a, b := frozenDBs(t)
	ctx := annals.NewContextWithPrincipal(t.Context(), &annals.Principal{TenantID: "T", UserID: "u", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser}})
	if _, err := annals.CreateChat(ctx, a, &annals.Chat{ID: "talk", TenantID: "T", UserID: "u"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, a, "talk", []*annals.Entry{{ID: "m1", Kind: annals.KindUser, Text: "first words"}}); err != nil {
		t.Fatal(err)
	}
	v := queryview.NewCached(history.New(history.Config{Store: a, View: a}), queryview.NewCache(1<<20))
	ask := func() string {
		t.Helper()
		ans, err := v.Query(ctx, strings.NewReader(`{"kind":"transcript","session":"talk"}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(ans.(queryview.Encoded))
	}
	if first := ask(); !strings.Contains(first, "first words") || ask() != first {
		t.Fatalf("answers %s and then another: want the page, twice", first)
	}
	if _, err := annals.AppendEntries(ctx, b, "talk", []*annals.Entry{{ID: "m2", Kind: annals.KindAssistant, Text: "second words"}}); err != nil {
		t.Fatal(err)
	}
	if got := ask(); !strings.Contains(got, "second words") {
		t.Errorf("after another handle's commit: %s, want its message", got)
	}
}
