package history_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// hybridCorpus writes chats of two tenants: tenant A talks about replication, calling the
// replica a replica or a standby and its lag lag or falling behind, and about centering boxes in
// CSS; one chat of A ("meaning") says "standby" and "falls behind" only. Tenant B has a chat
// made of exactly the query's words.
func hybridCorpus(t *testing.T, s annals.Store) {
	t.Helper()
	ctx := t.Context()
	write := func(id, tenant string, texts ...string) {
		if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: id, TenantID: tenant, UserID: "u"}); err != nil {
			t.Fatal(err)
		}
		es := make([]*annals.Entry, len(texts))
		for i, x := range texts {
			kind := annals.KindUser
			if i%2 == 1 {
				kind = annals.KindAssistant
			}
			es[i] = &annals.Entry{ID: fmt.Sprint(i), Kind: kind, Text: x}
		}
		if _, err := annals.AppendEntries(ctx, s, id, es); err != nil {
			t.Fatal(err)
		}
	}
	nodes := []string{"replica", "standby"}
	delays := []string{"lag", "falls behind"}
	for i := range 40 {
		n, d := nodes[i%2], delays[(i/2)%2]
		write(fmt.Sprintf("db-%d", i), "A",
			fmt.Sprintf("the %s %s the primary during bulk loads", n, d),
			fmt.Sprintf("The %s replays the write ahead log slowly, so it %s the primary; check the replay position.", n, d),
			fmt.Sprintf("monitor how far the %s %s after failover", n, d),
			fmt.Sprintf("More apply workers on the %s reduce how much it %s.", n, d))
		write(fmt.Sprintf("css-%d", i), "A",
			"center the div horizontally with flexbox in the container",
			"Use display flex on the parent and justify content center; align items centers vertically.",
			"the box still sticks to the left of the viewport",
			"The parent needs a height before the element can sit in the middle.")
	}
	write("meaning", "A", "our standby falls behind the primary every night", "It replays the write ahead log too slowly.")
	write("other-tenant", "B", "replica lag", "replica lag replica lag")
}

func searchIDs(t *testing.T, svc annals.HistoryService, ctx_ annals.Principal, rank string) []string {
	t.Helper()
	ctx := annals.NewContextWithPrincipal(t.Context(), &ctx_)
	page, err := svc.SearchChats(ctx, annals.SearchParams{Query: "replica lag", Rank: rank, Page: annals.PageParams{Limit: 50}})
	if err != nil {
		t.Fatalf("search rank %q: %v", rank, err)
	}
	var ids []string
	for _, h := range page.Chats {
		ids = append(ids, h.Chat.ID)
	}
	return ids
}

// A chat that matches the query by meaning and shares none of its words is found by hybrid and
// semantic, not by lexical; and no ranking reaches another tenant's chat, however close.
func TestSearchRankFindsMeaningInsideTheOwnerFold(t *testing.T) {
	s := openSQLite(t)
	hybridCorpus(t, s)
	learned, err := embed.NewLearnedTenants(s.(embed.LearnSource), embed.LearnedConfig{Dimension: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: s, Embedders: learned})
	if _, err := svc.Backfill(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if emb, err := learned.ForTenant(t.Context(), "A"); err != nil || !strings.HasPrefix(emb.Model(), "annals-learned-") {
		t.Fatalf("nothing learned from tenant A's corpus: %v", err)
	}
	member := annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	for _, rank := range []string{"", annals.RankLexical, annals.RankHybrid, annals.RankSemantic} {
		ids := searchIDs(t, svc, member, rank)
		if slices.Contains(ids, "other-tenant") {
			t.Errorf("rank %q reached tenant B's chat: %q", rank, ids)
		}
		found := slices.Contains(ids, "meaning")
		// No rank named: plain words, a learned model with vectors in scope, so hybrid.
		if want := rank != annals.RankLexical; found != want {
			t.Errorf("rank %q: the chat that says the query in other words found = %v, want %v (%q)", rank, found, want, ids)
		}
		if rank != annals.RankSemantic && len(ids) == 0 {
			t.Errorf("rank %q found nothing", rank)
		}
	}
	// Tenant B's member sees B's chat and never A's.
	b := annals.Principal{TenantID: "B", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	for _, rank := range []string{annals.RankHybrid, annals.RankSemantic} {
		for _, id := range searchIDs(t, svc, b, rank) {
			if id != "other-tenant" {
				t.Errorf("rank %s as tenant B found %q", rank, id)
			}
		}
	}
	ctx := annals.NewContextWithPrincipal(t.Context(), &member)
	for _, bad := range []annals.SearchParams{
		{Query: "replica", Rank: "fuzzy"},
		{Query: "replica", Rank: annals.RankHybrid, Mode: annals.SearchEntriesMode},
		{Query: "tag:x", Rank: annals.RankSemantic},
		{Query: "-replica", Rank: annals.RankHybrid},
		{Query: "replica", Rank: annals.RankHybrid, Sort: annals.SortRecent},
	} {
		if _, err := svc.SearchChats(ctx, bad); annals.ErrorCode(err) != annals.EINVALID {
			t.Errorf("search %+v: %v, want invalid", bad, err)
		}
	}
}

// A filtered search by meaning checks its candidates a chunk (a store page) at a time: a chat
// that passes the filter below the first chunk's worth of closer chats is still found.
func TestSearchByMeaningFiltersPastTheFirstChunk(t *testing.T) {
	s := openSQLite(t)
	ctx := t.Context()
	write := func(id, text string) {
		if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: id, TenantID: "A", UserID: "u"}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, s, id, []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range annals.MaxListLimit + 10 {
		write(fmt.Sprintf("close-%d", i), "replica lag replica lag")
	}
	write("tagged", "replica maintenance window schedule for the weekend")
	c, err := s.FindChatByID(ctx, "tagged")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateChat(ctx, c.Ref(), annals.ChatUpdate{Tags: &[]string{"ops"}}); err != nil {
		t.Fatal(err)
	}
	hashing, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: s, Embedder: hashing})
	if _, err := svc.Backfill(ctx, nil); err != nil {
		t.Fatal(err)
	}
	member := annals.Principal{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes}
	for _, rank := range []string{annals.RankHybrid, annals.RankSemantic} {
		page, err := svc.SearchChats(annals.NewContextWithPrincipal(ctx, &member), annals.SearchParams{Query: "replica lag tag:ops", Rank: rank})
		if err != nil {
			t.Fatalf("rank %s: %v", rank, err)
		}
		if len(page.Chats) != 1 || page.Chats[0].Chat.ID != "tagged" {
			t.Errorf("rank %s: %d chats, want the tagged one alone", rank, len(page.Chats))
		}
	}
}
