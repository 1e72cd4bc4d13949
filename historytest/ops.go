package historytest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

func testReviewFixes(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("a1", "A", "ua1", "aa1", 1, "alpha")
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))

	t.Run("TagWithQuoteAndBackslashMatchesExactly", func(t *testing.T) {
		tag := `project:jobember-"emag"\x`
		if _, err := e.svc.Annotate(ctx, &envelope.Request{SessionID: "a1", Tags: &[]string{tag, "q3-plan"}}); err != nil {
			t.Fatal(err)
		}
		res, err := e.svc.List(ctx, &envelope.Request{Tag: tag})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(res.Chats), []string{"a1"}) {
			t.Errorf("tag %q matched %v, want [a1]", tag, ids(res.Chats))
		}
		res, err = e.svc.List(ctx, &envelope.Request{Tag: "q3"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Chats) != 0 {
			t.Errorf("tag q3 matched %v; it must not match q3-plan", ids(res.Chats))
		}
	})
	t.Run("UnknownStatusRefusedNotEmptyPage", func(t *testing.T) {
		_, err := e.svc.List(ctx, &envelope.Request{Status: "done"})
		wantCode(t, "status done", err, annals.EINVALID)
	})
}

func testList(t *testing.T, open Opener) {
	e := newEnv(t, open)
	bg := context.Background()
	e.chat("c1", "A", "ua1", "aa1", 1, "first deploy")
	e.chat("c2", "A", "ua1", "aa2", 2, "second")
	e.chat("c3", "A", "ua2", "aa1", 3, "Third DEPLOY")
	e.chat("c4", "A", "ua1", "aa1", 4, "fourth")
	if _, err := annals.RecordRun(bg, e.store, &annals.Run{ID: "r2", ChatID: "c2", Status: annals.StatusFailed, StartedAt: base, InputTokens: 10, CostUSD: 0.25}); err != nil {
		t.Fatal(err)
	}
	ctx := as(member("A", "ua1", "aa1", allScopes...))
	list := func(req *envelope.Request) []string {
		t.Helper()
		res, err := e.svc.List(ctx, req)
		if err != nil {
			t.Fatalf("list %+v: %v", req, err)
		}
		return ids(res.Chats)
	}

	t.Run("MostRecentFirstAndPinnedFirst", func(t *testing.T) {
		if got := list(&envelope.Request{Scope: "tenant"}); !slices.Equal(got, []string{"c4", "c3", "c2", "c1"}) {
			t.Errorf("order = %v", got)
		}
		if _, err := e.svc.Pin(ctx, &envelope.Request{SessionID: "c1"}); err != nil {
			t.Fatal(err)
		}
		if got := list(&envelope.Request{Scope: "tenant"}); !slices.Equal(got, []string{"c1", "c4", "c3", "c2"}) {
			t.Errorf("order after pinning c1 = %v, want c1 first", got)
		}
		if got := list(&envelope.Request{Scope: "tenant", PinnedOnly: true}); !slices.Equal(got, []string{"c1"}) {
			t.Errorf("pinned_only = %v", got)
		}
		if _, err := e.svc.Pin(ctx, &envelope.Request{SessionID: "c1", Pinned: ptr(false)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ScopesNarrow", func(t *testing.T) {
		// self is the caller's agent in its tenant, whichever user the chat was for.
		if got := list(&envelope.Request{Scope: "self"}); !slices.Equal(got, []string{"c4", "c3", "c1"}) {
			t.Errorf("self (tenant A, agent aa1) = %v, want [c4 c3 c1]", got)
		}
		if got := list(&envelope.Request{Scope: "user"}); !slices.Equal(got, []string{"c4", "c2", "c1"}) {
			t.Errorf("user (tenant A, user ua1) = %v, want [c4 c2 c1]", got)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		if got := list(&envelope.Request{Scope: "tenant", Status: "failed"}); !slices.Equal(got, []string{"c2"}) {
			t.Errorf("status failed = %v", got)
		}
		if got := list(&envelope.Request{Scope: "tenant", TitleContains: "deploy"}); !slices.Equal(got, []string{"c3", "c1"}) {
			t.Errorf("title_contains deploy = %v", got)
		}
		if got := list(&envelope.Request{Scope: "tenant", Agent: "aa2"}); !slices.Equal(got, []string{"c2"}) {
			t.Errorf("agent aa2 = %v", got)
		}
		from := base.Add(2 * time.Minute).Format(time.RFC3339)
		to := base.Add(3*time.Minute + 30*time.Second).Format(time.RFC3339)
		if got := list(&envelope.Request{Scope: "tenant", From: from, To: to}); !slices.Equal(got, []string{"c3", "c2"}) {
			t.Errorf("from %s to %s = %v", from, to, got)
		}
		_, err := e.svc.List(ctx, &envelope.Request{From: "yesterday"})
		wantCode(t, "bad from", err, annals.EINVALID)
	})
	t.Run("RowsCarryTotals", func(t *testing.T) {
		res, err := e.svc.List(ctx, &envelope.Request{Scope: "tenant", Agent: "aa2"})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Chats[0]
		if c.Totals.Runs != 1 || c.Totals.InputTokens != 10 || c.Totals.CostUSD != 0.25 {
			t.Errorf("totals = %+v", c.Totals)
		}
	})
	t.Run("CursorWalkVisitsEveryChatOnce", func(t *testing.T) {
		var seen []string
		req := &envelope.Request{Scope: "tenant", Limit: 3}
		for page := 0; page < 5; page++ {
			res, err := e.svc.List(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 4 {
				t.Errorf("total = %d, want 4", res.Total)
			}
			seen = append(seen, ids(res.Chats)...)
			if res.NextCursor == "" {
				break
			}
			req = &envelope.Request{Scope: "tenant", Limit: 3, Cursor: res.NextCursor}
		}
		if !slices.Equal(seen, []string{"c4", "c3", "c2", "c1"}) {
			t.Errorf("cursor walk = %v", seen)
		}
		_, err := e.svc.List(ctx, &envelope.Request{Cursor: "garbage!"})
		wantCode(t, "bad cursor", err, annals.EINVALID)
	})
	t.Run("ArchiveHidesUnlessIncluded", func(t *testing.T) {
		res, err := e.svc.Archive(ctx, &envelope.Request{SessionID: "c4"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Chat.ArchivedAt == nil {
			t.Error("archive returned a chat without archived_at")
		}
		if got := list(&envelope.Request{Scope: "tenant"}); slices.Contains(got, "c4") {
			t.Errorf("archived c4 still listed: %v", got)
		}
		if got := list(&envelope.Request{Scope: "tenant", IncludeArchived: true}); !slices.Contains(got, "c4") {
			t.Errorf("include_archived lacks c4: %v", got)
		}
		if _, err := e.svc.Archive(ctx, &envelope.Request{SessionID: "c4", Archived: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		if got := list(&envelope.Request{Scope: "tenant"}); !slices.Contains(got, "c4") {
			t.Errorf("restored c4 not listed: %v", got)
		}
	})
	t.Run("AttributesExactAndContains", func(t *testing.T) {
		if _, err := annals.CreateChat(bg, e.store, &annals.Chat{ID: "c5", TenantID: "A", UserID: "ua1", Attributes: annals.Attributes{"repository": "github.com/o/r1,github.com/o/r2"}, CreatedAt: base}); err != nil {
			t.Fatal(err)
		}
		if got := list(&envelope.Request{Scope: "tenant", Attributes: map[string]envelope.AttrValue{"repository": {Value: "github.com/o/r2", Contains: true}}}); !slices.Equal(got, []string{"c5"}) {
			t.Errorf("contains = %v", got)
		}
		if got := list(&envelope.Request{Scope: "tenant", Attributes: map[string]envelope.AttrValue{"repository": {Value: "github.com/o/r2"}}}); len(got) != 0 {
			t.Errorf("exact on a composite value = %v, want none", got)
		}
	})
}

func testSearch(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("s1", "A", "ua1", "aa1", 1, "Deploy the emag.ro shop")
	e.chat("s2", "A", "ua1", "aa1", 2, "Café menu")
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	if _, err := e.svc.Annotate(ctx, &envelope.Request{SessionID: "s2", Description: ptr("talked about kubernetes ingress")}); err != nil {
		t.Fatal(err)
	}
	search := func(req *envelope.Request) []string {
		t.Helper()
		req.Op = history.OpSearch
		res, err := e.svc.Search(ctx, req)
		if err != nil {
			t.Fatalf("search %+v: %v", req, err)
		}
		return hitIDs(res.Chats)
	}
	if got := search(&envelope.Request{Query: "emag.ro"}); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("emag.ro = %v", got)
	}
	if got := search(&envelope.Request{Query: "cafe"}); !slices.Equal(got, []string{"s2"}) {
		t.Errorf("accent-insensitive cafe = %v", got)
	}
	if got := search(&envelope.Request{Query: "DEPLOY"}); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("case-insensitive DEPLOY = %v", got)
	}
	if got := search(&envelope.Request{Query: "kubernetes"}); !slices.Equal(got, []string{"s2"}) {
		t.Errorf("description kubernetes = %v", got)
	}
	if got := search(&envelope.Request{Query: "kubernetes", In: []string{"title"}}); len(got) != 0 {
		t.Errorf("in title only, kubernetes = %v, want none", got)
	}
	_, err := e.svc.Search(ctx, &envelope.Request{Query: "   "})
	wantCode(t, "empty query", err, annals.EINVALID)
}

func testGet(t *testing.T, open Opener) {
	e := newEnv(t, open)
	texts := make([]string, 12)
	for i := range texts {
		texts[i] = "message " + itoa(i+1)
	}
	e.chat("g1", "A", "ua1", "aa1", 1, "paged", texts...)
	if _, err := annals.AppendEntries(context.Background(), e.store, "g1", []*annals.Entry{{ID: "tool1", Kind: annals.KindTool, Time: base, Tool: &annals.ToolCall{Name: "Bash", Arguments: []byte(`{"cmd":"ls"}`), Result: "a\nb", Outcome: annals.OutcomeSucceeded}}}); err != nil {
		t.Fatal(err)
	}
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))

	t.Run("PagesByCursor", func(t *testing.T) {
		var seqs []int64
		req := &envelope.Request{SessionID: "g1", Limit: 5}
		for i := 0; i < 10; i++ {
			res, err := e.svc.Get(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range res.Entries {
				seqs = append(seqs, en.Seq)
			}
			if !res.HasMore {
				if res.NextCursor != "" {
					t.Error("last page carries a cursor")
				}
				break
			}
			req = &envelope.Request{SessionID: "g1", Limit: 5, Cursor: res.NextCursor}
		}
		if len(seqs) != 13 || seqs[0] != 1 || seqs[12] != 13 {
			t.Errorf("walked seqs %v, want 1..13", seqs)
		}
	})
	t.Run("WindowAroundSeq", func(t *testing.T) {
		res, err := e.svc.Get(ctx, &envelope.Request{SessionID: "g1", AroundSeq: 6, Context: ptr(2)})
		if err != nil {
			t.Fatal(err)
		}
		var seqs []int64
		for _, en := range res.Entries {
			seqs = append(seqs, en.Seq)
		}
		if !slices.Equal(seqs, []int64{4, 5, 6, 7, 8}) || !res.HasMore {
			t.Errorf("window = %v has_more %v, want [4..8] true", seqs, res.HasMore)
		}
	})
	t.Run("ConversationKeepsOnlyUserAndAssistant", func(t *testing.T) {
		res, err := e.svc.Get(ctx, &envelope.Request{SessionID: "g1", Format: "conversation"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 12 {
			t.Errorf("conversation has %d entries, want 12 (the tool call dropped)", len(res.Entries))
		}
		for _, en := range res.Entries {
			if en.Kind != annals.KindUser && en.Kind != annals.KindAssistant {
				t.Errorf("conversation contains a %s entry", en.Kind)
			}
		}
	})
	t.Run("MarkdownExport", func(t *testing.T) {
		res, err := e.svc.Get(ctx, &envelope.Request{SessionID: "g1", Format: "markdown"})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# paged", "message 12", "Bash", `"cmd"`} {
			if !strings.Contains(res.Markdown, want) {
				t.Errorf("markdown lacks %q", want)
			}
		}
	})
}

func testCurate(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("k1", "A", "ua1", "aa1", 1, "old title")
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	r, err := e.svc.Rename(ctx, &envelope.Request{SessionID: "k1", Title: ptr("new title")})
	if err != nil || r.Chat.Title != "new title" {
		t.Fatalf("rename = %+v, %v", r, err)
	}
	a, err := e.svc.Annotate(ctx, &envelope.Request{SessionID: "k1", Description: ptr("about things"), Tags: &[]string{"x", "y"}})
	if err != nil || a.Chat.Description != "about things" || !slices.Equal(a.Chat.Tags, []string{"x", "y"}) {
		t.Fatalf("annotate = %+v, %v", a, err)
	}
	a, err = e.svc.Annotate(ctx, &envelope.Request{SessionID: "k1", Tags: &[]string{}})
	if err != nil || len(a.Chat.Tags) != 0 || a.Chat.Description != "about things" {
		t.Fatalf("clearing tags = %+v, %v (description must stay)", a, err)
	}
	_, err = e.svc.Annotate(ctx, &envelope.Request{SessionID: "k1"})
	wantCode(t, "annotate with nothing", err, annals.EINVALID)
	_, err = e.svc.Rename(ctx, &envelope.Request{SessionID: "k1"})
	wantCode(t, "rename without title", err, annals.EINVALID)
	p, err := e.svc.Pin(ctx, &envelope.Request{SessionID: "k1"})
	if err != nil || !p.Chat.Pinned {
		t.Fatalf("pin default = %+v, %v", p, err)
	}
	r, err = e.svc.Rename(ctx, &envelope.Request{SessionID: "k1", Title: ptr("")})
	if err != nil || r.Chat.Title != "" {
		t.Fatalf("clearing the title = %+v, %v", r, err)
	}
}

func testRecap(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("r1", "A", "ua1", "aa1", 1, "recap me", "Please fix the flaky login test in auth_test.go", "I'll rerun it with -count=20 to reproduce the flake.")
	e.chat("rb", "B", "ub1", "ab1", 2, "other tenant", "secret B stuff")
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	res, err := e.svc.Recap(ctx, &envelope.Request{SessionID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary == "" || res.Chat.Summary != res.Summary || res.Chat.SummaryUpdatedAt == nil {
		t.Fatalf("recap = %+v", res)
	}
	if !strings.Contains(res.Summary, "login test") {
		t.Errorf("summary does not name the goal: %q", res.Summary)
	}
	first := *res.Chat.SummaryUpdatedAt
	if _, err := annals.AppendEntries(context.Background(), e.store, "r1", []*annals.Entry{{ID: "more", Kind: annals.KindAssistant, Text: "Root cause: a shared clock. I switched the test to a fake clock and it passes.", Time: base.Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	again, err := e.svc.Recap(ctx, &envelope.Request{SessionID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Summary == res.Summary || again.Chat.SummaryUpdatedAt.Before(first) {
		t.Errorf("re-running recap did not replace the summary: %q", again.Summary)
	}
	got, _ := e.store.FindChatByID(context.Background(), "r1")
	if got.Summary != again.Summary {
		t.Errorf("stored summary %q, want the latest", got.Summary)
	}
	calls := e.sum.calls
	_, err = e.svc.Recap(ctx, &envelope.Request{SessionID: "rb"})
	wantCode(t, "recap of another tenant's chat", err, annals.ENOTFOUND)
	if e.sum.calls != calls || slices.Contains(e.sum.ids, "rb") {
		t.Errorf("the summarizer was called for an out-of-scope chat")
	}
	plain := newService(history.Config{Store: e.store})
	_, err = plain.Recap(ctx, &envelope.Request{SessionID: "r1"})
	wantCode(t, "recap without a summarizer", err, annals.EUNAVAILABLE)
}

func testRelated(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("k8s-1", "A", "ua1", "aa1", 1, "kubernetes ingress controller timeouts")
	e.chat("k8s-2", "A", "ua1", "aa1", 2, "kubernetes ingress timeouts on the controller")
	e.chat("cook", "A", "ua1", "aa1", 3, "sourdough bread baking schedule")
	e.chat("twin", "B", "ub1", "ab1", 4, "kubernetes ingress controller timeouts")
	bg := context.Background()
	// The other tenant's chat gets exactly the source's vector: it would be the top hit if the
	// fold happened after ranking.
	vecs, err := e.emb.Embed(bg, []string{"kubernetes ingress controller timeouts"})
	if err != nil {
		t.Fatal(err)
	}
	twin := mustFind(t, e.store, "twin")
	if err := e.store.UpsertEmbedding(bg, twin.Ref(), e.emb.Model(), vecs[0], twin.Totals.Entries); err != nil {
		t.Fatal(err)
	}
	admin := as(admin(allScopes...))
	if p, err := e.svc.Backfill(bg, nil); err != nil || p.Embedded != 3 {
		t.Fatalf("backfill = %+v, %v; want 3 embedded", p, err)
	}
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	res, err := e.svc.Related(ctx, &envelope.Request{SessionID: "k8s-1"})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(res.Results))
	for i, r := range res.Results {
		got[i] = r.Chat.ID
	}
	if len(got) == 0 || got[0] != "k8s-2" {
		t.Errorf("related to k8s-1 = %v, want k8s-2 first", got)
	}
	if slices.Contains(got, "k8s-1") {
		t.Error("the source chat is in its own results")
	}
	if slices.Contains(got, "twin") {
		t.Error("an identical vector of another tenant appeared in related")
	}
	byQuery, err := e.svc.Related(ctx, &envelope.Request{Query: "bread baking"})
	if err != nil {
		t.Fatal(err)
	}
	if len(byQuery.Results) == 0 || byQuery.Results[0].Chat.ID != "cook" {
		t.Errorf("related to 'bread baking' = %+v, want cook first", byQuery.Results)
	}
	// The admin in global scope does see the twin.
	all, err := e.svc.Related(admin, &envelope.Request{Scope: "global", SessionID: "k8s-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Results) == 0 || all.Results[0].Chat.ID != "twin" {
		t.Errorf("admin global related = %+v, want twin first", all.Results)
	}
	// Renaming re-embeds: the chat's similarity to its old topic collapses.
	scoreOf := func(query, id string) float32 {
		t.Helper()
		res, err := e.svc.Related(ctx, &envelope.Request{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if r.Chat.ID == id {
				return r.Score
			}
		}
		return 0
	}
	before := scoreOf("sourdough bread baking", "cook")
	if _, err := e.svc.Rename(ctx, &envelope.Request{SessionID: "cook", Title: ptr("kubernetes ingress controller timeouts again")}); err != nil {
		t.Fatal(err)
	}
	if after := scoreOf("sourdough bread baking", "cook"); after > before/4 {
		t.Errorf("score of the renamed chat for its old topic went from %.3f to %.3f: rename did not re-embed", before, after)
	}
	plain := newService(history.Config{Store: e.store})
	_, err = plain.Related(ctx, &envelope.Request{Query: "x"})
	wantCode(t, "related without an embedder", err, annals.EUNAVAILABLE)
	if !strings.Contains(annals.ErrorMessage(err), "embedder") {
		t.Errorf("message %q does not say how to configure an embedder", annals.ErrorMessage(err))
	}
	if _, err := plain.List(ctx, &envelope.Request{}); err != nil {
		t.Errorf("list without an embedder: %v", err)
	}
	_, err = e.svc.Related(ctx, &envelope.Request{})
	wantCode(t, "related with neither id nor query", err, annals.EINVALID)
}

func testResume(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("z1", "A", "ua1", "aa1", 1, "resumable")
	if _, err := annals.RecordRun(context.Background(), e.store, &annals.Run{ID: "zr", ChatID: "z1", Status: annals.StatusAwaitingInput, StartedAt: base}); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Resume(as(member("A", "ua1", "aa1", annals.ScopeSelf)), &envelope.Request{SessionID: "z1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "z1" || res.Agent != "aa1" || res.TenantID != "A" || res.UserID != "ua1" || res.Status != annals.StatusAwaitingInput || res.Hint == "" || res.LastActivity == "" {
		t.Errorf("resume = %+v", res)
	}
	runs, _ := e.store.FindRuns(context.Background(), "z1")
	if len(runs) != 1 {
		t.Errorf("resume started something: %d runs", len(runs))
	}
}

func testDelete(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("d1", "A", "ua1", "aa1", 1, "doomed xylophone", "xylophone body")
	e.chat("d2", "A", "ua2", "aa2", 2, "someone else's")
	bg := context.Background()
	if _, err := e.svc.Backfill(bg, nil); err != nil {
		t.Fatal(err)
	}
	// A member who is neither the chat's user nor agent may not delete it.
	_, err := e.svc.Delete(as(member("A", "ua1", "aa1", annals.ScopeTenant)), &envelope.Request{SessionID: "d2"})
	wantCode(t, "member deleting another user's chat", err, annals.EFORBIDDEN)
	res, err := e.svc.Delete(as(member("A", "ua1", "aa1", annals.ScopeTenant)), &envelope.Request{SessionID: "d1"})
	if err != nil || res.Deleted != "d1" {
		t.Fatalf("delete = %+v, %v", res, err)
	}
	if _, err := e.store.FindChatByID(bg, "d1"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("chat still there: %v", err)
	}
	hits, err := e.store.(annals.TextIndex).MatchEntries(bg, annals.TextMatch{Owner: annals.Owner{AllTenants: true}, Terms: []string{"xylophone"}})
	if err != nil || len(hits) != 0 {
		t.Errorf("index still has hits %v (%v)", hits, err)
	}
	vecs, err := e.store.FindEmbeddings(bg, annals.EmbeddingFilter{Owner: annals.Owner{AllTenants: true}, IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		if v.ChatID == "d1" {
			t.Error("embedding of the deleted chat remains")
		}
	}
	if _, err := e.svc.Delete(as(&annals.Principal{TenantID: "A", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}}), &envelope.Request{SessionID: "d2"}); err != nil {
		t.Errorf("operator delete: %v", err)
	}
}

func testEnvelope(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("v1", "A", "ua1", "aa1", 1, "enveloped")
	ctx := as(member("A", "ua1", "aa1", annals.ScopeTenant))
	req, err := envelope.DecodeRequest(strings.NewReader(`{"op":"annotate","session_id":"v1","tags":["a","b"],"attributes":{"k":{"contains":"v"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.svc.Do(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if cr, ok := out.(*envelope.ChatResponse); !ok || !slices.Equal(cr.Chat.Tags, []string{"a", "b"}) {
		t.Errorf("annotate via envelope = %#v", out)
	}
	for body, want := range map[string]string{
		`{"op":"list","limit":"ten"}`: `"limit"`,
		`{"op":"list"`:                "malformed",
		``:                            "empty",
		`{"op":"list"} {"op":"get"}`:  "more than one",
		`{"op":"list","attributes":{"k":{"regex":"x"}}}`: "contains",
	} {
		_, err := envelope.DecodeRequest(strings.NewReader(body))
		wantCode(t, "decode "+body, err, annals.EINVALID)
		if !strings.Contains(annals.ErrorMessage(err), want) {
			t.Errorf("decode %s: message %q lacks %q", body, annals.ErrorMessage(err), want)
		}
	}
}
