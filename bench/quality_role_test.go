package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestRoleUserJudgedSetAsksByTheUsersWords: the role:user set asks for each target by the most
// frequent word of its user's entries (not of the whole chat, where an assistant's word is more
// frequent), under role:user, and the target is found by it.
func TestRoleUserJudgedSetAsksByTheUsersWords(t *testing.T) {
	ctx, store, tg := qualityTestTarget(t)
	users := []string{"alphas", "bravos", "charlies", "deltas", "echoes", "foxtrots", "golfers", "hotels", "indias", "juliets"}
	bots := []string{"kilos", "limas", "mikes", "novembers", "oscars", "papas", "quebecs", "romeos", "sierras", "tangos"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range users {
		id := fmt.Sprintf("c%d", i)
		at := base.Add(time.Duration(i) * time.Hour)
		if _, err := annals.CreateChat(ctx, store, &annals.Chat{ID: id, TenantID: "t", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for j := range 5 {
			kind, text := annals.KindAssistant, "answer "+bots[i]
			if j < 2 {
				kind, text = annals.KindUser, "please "+users[i]
			}
			es = append(es, &annals.Entry{ID: fmt.Sprint(j), Kind: kind, Text: text, Time: at.Add(time.Duration(j) * time.Second)})
		}
		if _, err := annals.AppendEntries(ctx, store, id, es); err != nil {
			t.Fatal(err)
		}
	}
	set, err := judgedSet(tg)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, j := range set {
		if j.set != roleUserSet {
			continue
		}
		n++
		var i int
		if _, err := fmt.Sscanf(j.target, "c%d", &i); err != nil {
			t.Fatal(err)
		}
		if want := "role:user " + users[i]; j.query != want {
			t.Errorf("%s: asked by %q, want %q", j.target, j.query, want)
		}
		res, err := tg.svc.SearchChats(tg.ctx, annals.SearchParams{Scope: annals.ScopeGlobal, Query: j.query, Page: annals.PageParams{Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Chats) == 0 || res.Chats[0].Chat.ID != j.target {
			t.Errorf("%q: the target %s is not first", j.query, j.target)
		}
	}
	if n == 0 {
		t.Fatal("no role:user query was built")
	}
}
