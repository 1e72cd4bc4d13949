package historytest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// Search ranked by meaning (hybrid, semantic) applies every filter a lexical search does, the
// store's own filter SQL, inside the owner fold.
func testMeaningRanksWithFilters(t *testing.T, open Opener) {
	e := newEnv(t, open)
	ctx := context.Background()
	text := []string{"the replica lags behind the primary during bulk loads", "Replay of the write ahead log is slow on the standby."}
	e.chat("ops-1", "A", "ua1", "aa1", 10, "replica lag at night", text...)
	e.chat("ops-2", "A", "ua1", "aa2", 20, "standby lag", text...)
	e.chat("dev-1", "A", "ua2", "aa2", 30, "replica lag in staging", text...)
	e.chat("css", "A", "ua1", "aa1", 40, "center a div", "center the div with flexbox", "Use justify content center.")
	e.chat("b-ops", "B", "ub1", "ab1", 50, "replica lag", text...)
	for id, tags := range map[string][]string{"ops-1": {"ops"}, "ops-2": {"ops", "db"}, "b-ops": {"ops"}} {
		if _, err := e.store.UpdateChat(ctx, mustFind(t, e.store, id).Ref(), annals.ChatUpdate{Tags: &tags}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := annals.AppendEntries(ctx, e.store, "ops-2", []*annals.Entry{{ID: "t1", Kind: annals.KindTool, Time: base.Add(time.Hour),
		Tool: &annals.ToolCall{Name: "Bash", Arguments: []byte(`{"cmd":"pg_stat_replication"}`), Result: "lag 3s", Outcome: annals.OutcomeSucceeded}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Backfill(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tenantA := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	search := func(rank, q string, filter annals.ChatQuery) []string {
		t.Helper()
		page, err := e.svc.SearchChats(tenantA, annals.SearchParams{Query: q, Rank: rank, Filter: filter})
		if err != nil {
			t.Fatalf("search %q rank %s: %v", q, rank, err)
		}
		got := hitIDs(page.Chats)
		slices.Sort(got)
		return got
	}
	after := base.Add(25 * time.Minute)
	for _, c := range []struct {
		name, q string
		filter  annals.ChatQuery
		want    []string
	}{
		{"tag", "replica lag tag:ops", annals.ChatQuery{}, []string{"ops-1", "ops-2"}},
		{"two tags", "replica lag tag:ops tag:db", annals.ChatQuery{}, []string{"ops-2"}},
		{"agent", "replica lag agent:aa2", annals.ChatQuery{}, []string{"dev-1", "ops-2"}},
		{"tool", "replica lag tool:Bash", annals.ChatQuery{}, []string{"ops-2"}},
		{"entry time", "replica lag after:" + base.Add(35*time.Minute).Format(time.RFC3339), annals.ChatQuery{}, []string{"ops-2"}},
		{"activity time", "replica lag", annals.ChatQuery{From: &after}, []string{"dev-1", "ops-2"}},
		{"filter tag", "replica lag", annals.ChatQuery{Tag: "db"}, []string{"ops-2"}},
		{"title", "replica lag", annals.ChatQuery{TitleContains: "staging"}, []string{"dev-1"}},
		{"nothing passes", "replica lag tag:none", annals.ChatQuery{}, nil},
	} {
		for _, rank := range []string{annals.RankHybrid, annals.RankSemantic} {
			// css shares no word with the queries; whether a ranking by meaning keeps it at a
			// small positive similarity depends on the embedder, so it is not compared.
			got := slices.DeleteFunc(search(rank, c.q, c.filter), func(id string) bool { return id == "css" })
			if !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
				t.Errorf("%s: rank %s %q = %q, want %q", c.name, rank, c.q, got, c.want)
			}
		}
	}
	for _, rank := range []string{annals.RankHybrid, annals.RankSemantic} {
		_, err := e.svc.SearchChats(tenantA, annals.SearchParams{Query: "tag:ops", Rank: rank})
		wantCode(t, "rank "+rank+" with filters and no words", err, annals.EINVALID)
	}
}
