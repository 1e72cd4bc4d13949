package storetest

import (
	"fmt"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

func findChatsTests() []test {
	return []test{
		{"OwnerFoldsByTenantUserAndAgent", testFindOwnerFold},
		{"ZeroOwnerReturnsNothing", testFindZeroOwner},
		{"IDFilterStaysInsideOwner", testFindByID},
		{"OrdersPinnedFirstThenMostRecentActivity", testFindOrder},
		{"RowsEqualFindChatByID", testFindRowsEqualByID},
		{"FiltersByStatus", testFindStatus},
		{"UnknownStatusFilterIsInvalid", testFindUnknownStatus},
		{"FiltersByLastActivityRange", testFindActivityRange},
		{"TagMatchesExactly", testFindTag},
		{"TitleContainsIsCaseInsensitiveAndLiteral", testFindTitleContains},
		{"TitleContainsFoldsNonASCIICase", testFindTitleContainsUnicode},
		{"FiltersByAgent", testFindAgent},
		{"AttributesMatchExactlyOrBySubstring", testFindAttributes},
		{"PinnedOnly", testFindPinnedOnly},
		{"ArchivedHiddenUnlessIncluded", testFindArchived},
		{"TotalIgnoresPaging", testFindPaging},
		{"MetaTermsMatchMetadataLiterally", testFindMetaTerms},
		{"IDPrefixMatchesTheStartOrTheSourceID", testFindIDPrefix},
		{"IDsKeepTheListedChatsInsideOwner", testFindIDs},
	}
}

// testFindIDs proves the id-list filter search by meaning checks its candidates with: only
// listed chats, still inside the owner; nil lists no restriction, an empty list matches none;
// the filters-only search honours it with its other filters.
func testFindIDs(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{NewChat("a1", "A"), NewChat("a2", "A"), NewChat("a3", "A"), NewChat("b1", "B")} {
		mustCreateChat(t, s, c)
	}
	mustUpdate(t, s, "a3", annals.ChatUpdate{Tags: &[]string{"x"}})
	for _, c := range []struct {
		ids  []string
		want []string
	}{
		{nil, []string{"a1", "a2", "a3"}},
		{[]string{}, nil},
		{[]string{"a1", "a3", "b1", "zz"}, []string{"a1", "a3"}},
		{[]string{"a1'; --", "%"}, nil},
	} {
		cs, _ := mustFindChats(t, s, annals.ChatFilter{Owner: tenant("A"), IDs: c.ids})
		if got := chatIDs(cs); !sameSet(got, c.want) {
			t.Errorf("FindChats(IDs %q) = %q, want %q", c.ids, got, c.want)
		}
	}
	x := "x"
	hits, _, err := s.SearchChats(t.Context(), annals.SearchFilter{Chat: annals.ChatFilter{Owner: tenant("A"), IDs: []string{"a1", "a3", "b1"}, Tag: &x},
		Sort: annals.SortRecent, Limit: 10})
	if err != nil {
		t.Fatalf("SearchChats(filters only, IDs): %v", err)
	}
	if len(hits) != 1 || hits[0].Chat.ID != "a3" {
		t.Errorf("SearchChats(filters only, IDs a1 a3 b1, tag x) = %d hits, want a3 alone", len(hits))
	}
}

// testFindIDPrefix proves the id prefix filter a CLI resolves short ids with: the start of the
// id, or the source tool's own id after a ':', byte for byte, inside the owner.
func testFindIDPrefix(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{
		NewChat("claude-code:7f3c2a10-aaaa", "A"), NewChat("claude-code:7f3d0000-bbbb", "A"),
		NewChat("7f3c-native", "A"), NewChat("codex:AB_%x", "A"), NewChat("claude-code:7f3c9999", "B"),
	} {
		mustCreateChat(t, s, c)
	}
	a := annals.Owner{TenantID: "A"}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"7f3c", []string{"7f3c-native", "claude-code:7f3c2a10-aaaa"}},
		{"7f3", []string{"7f3c-native", "claude-code:7f3c2a10-aaaa", "claude-code:7f3d0000-bbbb"}},
		{"claude-code:7f3d", []string{"claude-code:7f3d0000-bbbb"}},
		{"7F3C", nil},
		{"AB_%", []string{"codex:AB_%x"}},
		{"AB%", nil},
		{"_", nil},
	} {
		wantChatSet(t, s, "id prefix "+tc.prefix, annals.ChatFilter{Owner: a, IDPrefix: tc.prefix}, tc.want...)
	}
}

// ownerChats stores chats across two tenants, two users and two agents.
func ownerChats(t *testing.T, s Store) {
	t.Helper()
	for _, c := range []*annals.Chat{
		{ID: "a1", TenantID: "A", UserID: "u1", AgentID: "g1"},
		{ID: "a2", TenantID: "A", UserID: "u2", AgentID: "g1"},
		{ID: "a3", TenantID: "A", UserID: "u1", AgentID: "g2"},
		{ID: "a4", TenantID: "A"},
		{ID: "b1", TenantID: "B", UserID: "u1", AgentID: "g1"},
	} {
		mustCreateChat(t, s, c)
	}
}

func testFindOwnerFold(t *testing.T, s Store) {
	ownerChats(t, s)
	cases := []struct {
		owner annals.Owner
		want  []string
	}{
		{annals.Owner{TenantID: "A"}, []string{"a1", "a2", "a3", "a4"}},
		{annals.Owner{TenantID: "B"}, []string{"b1"}},
		{annals.Owner{TenantID: "C"}, nil},
		{annals.Owner{TenantID: "A", UserID: "u1"}, []string{"a1", "a3"}},
		{annals.Owner{TenantID: "A", AgentID: "g1"}, []string{"a1", "a2"}},
		{annals.Owner{TenantID: "A", UserID: "u1", AgentID: "g1"}, []string{"a1"}},
		{annals.Owner{TenantID: "A", UserID: "nobody"}, nil},
		// Without a tenant, a user or agent alone must not widen to every tenant's u1 or g1.
		{annals.Owner{UserID: "u1"}, nil},
		{annals.Owner{AgentID: "g1"}, nil},
		{annals.Owner{AllTenants: true}, []string{"a1", "a2", "a3", "a4", "b1"}},
	}
	for _, tc := range cases {
		wantChatSet(t, s, "owner "+tc.owner.String(), annals.ChatFilter{Owner: tc.owner}, tc.want...)
	}
}

func testFindZeroOwner(t *testing.T, s Store) {
	ownerChats(t, s)
	// A forgotten owner fails closed, whatever else the filter says.
	wantChatSet(t, s, "zero owner", annals.ChatFilter{}, nil...)
	wantChatSet(t, s, "zero owner with IncludeArchived and an id", annals.ChatFilter{IncludeArchived: true, ID: ptr("a1")}, nil...)
}

func testFindByID(t *testing.T, s Store) {
	ownerChats(t, s)
	wantChatSet(t, s, "id a2 in tenant A", annals.ChatFilter{Owner: tenant("A"), ID: ptr("a2")}, "a2")
	wantChatSet(t, s, "id b1 in tenant A", annals.ChatFilter{Owner: tenant("A"), ID: ptr("b1")}, nil...)
	wantChatSet(t, s, "id a2 for user u1", annals.ChatFilter{Owner: annals.Owner{TenantID: "A", UserID: "u1"}, ID: ptr("a2")}, nil...)
}

// activityChats creates chats with the given ids and gives each one entry, in the given order,
// so that the later a chat appears in order, the more recent its activity. The entries are an
// hour ahead and a minute apart, and the writes a few milliseconds apart, so the order holds
// whether a store stamps activity from entry times or from its own clock.
func activityChats(t *testing.T, s Store, tenantID string, ids []string, order []string) {
	t.Helper()
	for _, id := range ids {
		mustCreateChat(t, s, NewChat(id, tenantID))
	}
	base := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	for i, id := range order {
		tick()
		e := TextEntry("e-"+id, annals.KindUser, "activity in "+id)
		e.Time = base.Add(time.Duration(i) * time.Minute)
		mustAppend(t, s, id, e)
	}
}

func testFindOrder(t *testing.T, s Store) {
	ids := []string{"c1", "c2", "c3", "c4"}
	for _, id := range ids {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	// Pin before the activity, so the pin (should a store count it as activity) cannot decide
	// the order among pinned chats.
	mustUpdate(t, s, "c4", annals.ChatUpdate{Pinned: ptr(true)})
	mustUpdate(t, s, "c2", annals.ChatUpdate{Pinned: ptr(true)})
	base := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	for i, id := range []string{"c2", "c4", "c1", "c3"} { // activity: c2 < c4 < c1 < c3
		tick()
		e := TextEntry("e-"+id, annals.KindUser, "activity")
		e.Time = base.Add(time.Duration(i) * time.Minute)
		mustAppend(t, s, id, e)
	}
	// Pinned by activity (c4, c2), then the rest by activity (c3, c1). Neither id order nor its
	// reverse gives this.
	got, _ := findChatIDs(t, s, annals.ChatFilter{Owner: tenant("A")})
	wantIDs(t, "FindChats order", got, []string{"c4", "c2", "c3", "c1"})
}

func testFindRowsEqualByID(t *testing.T, s Store) {
	c := fullChat("c1")
	mustCreateChat(t, s, c)
	es := Entries("e", 2)
	es[0].InputTokens = 5
	mustAppend(t, s, "c1", es...)
	r := NewRun("r1", "c1", annals.StatusCompleted, runStart)
	r.CostUSD = 0.125
	mustRecordRun(t, s, r)
	mustUpdate(t, s, "c1", annals.ChatUpdate{Summary: ptr("a summary"), Pinned: ptr(true)})

	cs, _ := mustFindChats(t, s, annals.ChatFilter{Owner: tenant(c.TenantID)})
	if len(cs) != 1 {
		t.Fatalf("FindChats = %q, want [c1]", chatIDs(cs))
	}
	wantSameChat(t, "FindChats row", cs[0], mustChat(t, s, "c1"))
}

func testFindStatus(t *testing.T, s Store) {
	for _, id := range []string{"running", "done", "idle"} {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	mustRecordRun(t, s, NewRun("r1", "running", annals.StatusRunning, runStart))
	mustRecordRun(t, s, NewRun("r2", "done", annals.StatusCompleted, runStart))
	wantChatSet(t, s, "status running", annals.ChatFilter{Owner: tenant("A"), Status: ptr(annals.StatusRunning)}, "running")
	wantChatSet(t, s, "status completed", annals.ChatFilter{Owner: tenant("A"), Status: ptr(annals.StatusCompleted)}, "done")
	wantChatSet(t, s, "status failed", annals.ChatFilter{Owner: tenant("A"), Status: ptr(annals.StatusFailed)}, nil...)
	wantChatSet(t, s, "no status filter", annals.ChatFilter{Owner: tenant("A")}, "running", "done", "idle")
}

func testFindUnknownStatus(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	// An unknown enum value is refused, never treated as "no filter" (which would return c1).
	_, _, err := s.FindChats(t.Context(), annals.ChatFilter{Owner: tenant("A"), Status: ptr(annals.RunStatus("complete"))})
	wantCode(t, "FindChats with status \"complete\"", err, annals.EINVALID)
}

func testFindActivityRange(t *testing.T, s Store) {
	ids := []string{"f1", "f2", "f3"}
	activityChats(t, s, "A", ids, ids)
	la := make([]time.Time, len(ids))
	for i, id := range ids {
		la[i] = mustChat(t, s, id).LastActivity
	}
	if !la[0].Before(la[1]) || !la[1].Before(la[2]) {
		t.Fatalf("setup: last activities %v are not strictly increasing", la)
	}
	owner := tenant("A")
	cases := []struct {
		name     string
		from, to *time.Time
		want     []string // in list order: most recent first
	}{
		{"from f2", &la[1], nil, []string{"f3", "f2"}},
		{"to f2", nil, &la[1], []string{"f2", "f1"}},
		{"from and to f2", &la[1], &la[1], []string{"f2"}},
		{"after everything", ptr(la[2].Add(time.Second)), nil, nil},
		{"before everything", nil, ptr(la[0].Add(-time.Second)), nil},
	}
	for _, tc := range cases {
		got, total := findChatIDs(t, s, annals.ChatFilter{Owner: owner, From: tc.from, To: tc.to})
		wantIDs(t, "FindChats "+tc.name, got, tc.want)
		if total != len(tc.want) {
			t.Errorf("FindChats %s: total = %d, want %d", tc.name, total, len(tc.want))
		}
	}
}

func testFindTag(t *testing.T, s Store) {
	tagged := map[string][]string{
		"t-q3":    {"q3", "other"},
		"t-plan":  {"q3-plan"},
		"t-odd":   {`say "hi" \ bye`},
		"t-pct":   {"100%"},
		"t-under": {"a_b"},
		"t-comma": {"x,y"},
		"t-none":  nil,
	}
	for id, tags := range tagged {
		c := NewChat(id, "A")
		c.Tags = tags
		mustCreateChat(t, s, c)
	}
	cases := []struct {
		tag  string
		want []string
	}{
		{"q3", []string{"t-q3"}},
		{"q3-plan", []string{"t-plan"}},
		{"other", []string{"t-q3"}},
		{`say "hi" \ bye`, []string{"t-odd"}},
		{"100%", []string{"t-pct"}},
		{"a_b", []string{"t-under"}},
		{"x,y", []string{"t-comma"}},
		// Prefixes, substrings, wildcards and pieces of a stored list never match.
		{"q", nil},
		{"plan", nil},
		{`say "hi"`, nil},
		{"1%", nil},
		{"%", nil},
		{"a_", nil},
		{"x", nil},
		{"Q3", nil},
	}
	for _, tc := range cases {
		wantChatSet(t, s, fmt.Sprintf("tag %q", tc.tag), annals.ChatFilter{Owner: tenant("A"), Tag: ptr(tc.tag)}, tc.want...)
	}
}

func testFindTitleContains(t *testing.T, s Store) {
	titles := map[string]string{
		"t1": "Fix Login Bug",
		"t2": "login page redesign",
		"t3": "Refactor",
		"t4": "100% done",
		"t5": "",
	}
	for id, title := range titles {
		c := NewChat(id, "A")
		c.Title = title
		mustCreateChat(t, s, c)
	}
	cases := []struct {
		sub  string
		want []string
	}{
		{"LOGIN", []string{"t1", "t2"}},
		{"login b", []string{"t1"}},
		{"factor", []string{"t3"}},
		{"0% d", []string{"t4"}},
		// LIKE wildcards are literal.
		{"%", []string{"t4"}},
		{"_", nil},
		{"F%R", nil},
		{"nothing like it", nil},
	}
	for _, tc := range cases {
		wantChatSet(t, s, fmt.Sprintf("title contains %q", tc.sub), annals.ChatFilter{Owner: tenant("A"), TitleContains: ptr(tc.sub)}, tc.want...)
	}
}

// testFindTitleContainsUnicode: titles are written in every language, and "case-insensitive"
// has no ASCII-only exception in the contract. SQL lower() and LIKE fold only ASCII in SQLite,
// so a backend needs its own folding to pass this.
func testFindTitleContainsUnicode(t *testing.T, s Store) {
	titles := map[string]string{
		"u1": "Café in Zürich",
		"u2": "ÉCOLE ÜBER ALLES",
		"u3": "Ελληνικά notes",
	}
	for id, title := range titles {
		c := NewChat(id, "A")
		c.Title = title
		mustCreateChat(t, s, c)
	}
	cases := []struct {
		sub  string
		want []string
	}{
		{"ZÜRICH", []string{"u1"}},
		{"CAFÉ", []string{"u1"}},
		{"école", []string{"u2"}},
		{"über", []string{"u2"}},
		{"ελληνικά", []string{"u3"}},
	}
	for _, tc := range cases {
		wantChatSet(t, s, fmt.Sprintf("title contains %q", tc.sub), annals.ChatFilter{Owner: tenant("A"), TitleContains: ptr(tc.sub)}, tc.want...)
	}
}

func testFindAgent(t *testing.T, s Store) {
	ownerChats(t, s)
	wantChatSet(t, s, "agent g1 in tenant A", annals.ChatFilter{Owner: tenant("A"), Agent: ptr("g1")}, "a1", "a2")
	wantChatSet(t, s, "agent g2 in tenant A", annals.ChatFilter{Owner: tenant("A"), Agent: ptr("g2")}, "a3")
	wantChatSet(t, s, "agent g1 for user u1", annals.ChatFilter{Owner: annals.Owner{TenantID: "A", UserID: "u1"}, Agent: ptr("g1")}, "a1")
	wantChatSet(t, s, "agent g1 in tenant B", annals.ChatFilter{Owner: tenant("B"), Agent: ptr("g1")}, "b1")
	wantChatSet(t, s, "agent g", annals.ChatFilter{Owner: tenant("A"), Agent: ptr("g")}, nil...)
}

func testFindAttributes(t *testing.T, s Store) {
	attrs := map[string]annals.Attributes{
		"x1": {"source": "claude-code", "repository": "github.com/o/r"},
		"x2": {"source": "codex", "repository": "github.com/o/other"},
		"x3": {"source": "claude-code-x"},
		"x4": nil,
	}
	for id, a := range attrs {
		c := NewChat(id, "A")
		c.Attributes = a
		mustCreateChat(t, s, c)
	}
	exact := func(v string) annals.AttrMatch { return annals.AttrMatch{Value: v} }
	contains := func(v string) annals.AttrMatch { return annals.AttrMatch{Value: v, Contains: true} }
	cases := []struct {
		name  string
		match map[string]annals.AttrMatch
		want  []string
	}{
		{"source=claude-code", map[string]annals.AttrMatch{"source": exact("claude-code")}, []string{"x1"}},
		{"source=claude", map[string]annals.AttrMatch{"source": exact("claude")}, nil},
		{"source contains claude", map[string]annals.AttrMatch{"source": contains("claude")}, []string{"x1", "x3"}},
		{"repository contains o/r", map[string]annals.AttrMatch{"repository": contains("o/r")}, []string{"x1"}},
		{"repository contains github.com/o/", map[string]annals.AttrMatch{"repository": contains("github.com/o/")}, []string{"x1", "x2"}},
		{"repository contains GITHUB (case-sensitive)", map[string]annals.AttrMatch{"repository": contains("GITHUB")}, nil},
		{"repository contains % (literal)", map[string]annals.AttrMatch{"repository": contains("%")}, nil},
		{"both must match", map[string]annals.AttrMatch{"source": exact("claude-code"), "repository": contains("other")}, nil},
		{"both match", map[string]annals.AttrMatch{"source": exact("codex"), "repository": contains("other")}, []string{"x2"}},
		{"missing key", map[string]annals.AttrMatch{"lang": exact("go")}, nil},
	}
	for _, tc := range cases {
		wantChatSet(t, s, "attributes "+tc.name, annals.ChatFilter{Owner: tenant("A"), Attributes: tc.match}, tc.want...)
	}
}

func testFindPinnedOnly(t *testing.T, s Store) {
	for _, id := range []string{"p1", "p2", "p3"} {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	mustUpdate(t, s, "p2", annals.ChatUpdate{Pinned: ptr(true)})
	wantChatSet(t, s, "pinned only", annals.ChatFilter{Owner: tenant("A"), PinnedOnly: true}, "p2")
	mustUpdate(t, s, "p2", annals.ChatUpdate{Pinned: ptr(false)})
	wantChatSet(t, s, "pinned only after unpinning", annals.ChatFilter{Owner: tenant("A"), PinnedOnly: true}, nil...)
}

func testFindArchived(t *testing.T, s Store) {
	for _, id := range []string{"live", "old"} {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	mustUpdate(t, s, "old", annals.ChatUpdate{Archived: ptr(true)})
	wantChatSet(t, s, "default list", annals.ChatFilter{Owner: tenant("A")}, "live")
	wantChatSet(t, s, "include archived", annals.ChatFilter{Owner: tenant("A"), IncludeArchived: true}, "live", "old")
	mustUpdate(t, s, "old", annals.ChatUpdate{Archived: ptr(false)})
	wantChatSet(t, s, "default list after restoring", annals.ChatFilter{Owner: tenant("A")}, "live", "old")
}

func testFindPaging(t *testing.T, s Store) {
	ids := []string{"c1", "c2", "c3", "c4", "c5"}
	for _, id := range ids {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	mustCreateChat(t, s, NewChat("other-tenant", "B"))
	all, total := findChatIDs(t, s, annals.ChatFilter{Owner: tenant("A")})
	if total != 5 || !sameSet(all, ids) {
		t.Fatalf("unpaged FindChats = %q (total %d), want the 5 chats of tenant A", all, total)
	}
	// Pages follow the unpaged order exactly: the order is total (it ends with the id), so
	// paging never repeats or skips a chat.
	var paged []string
	for offset := 0; offset < 6; offset += 2 {
		page, total := findChatIDs(t, s, annals.ChatFilter{Owner: tenant("A"), Limit: 2, Offset: offset})
		if total != 5 {
			t.Errorf("page at offset %d: total = %d, want 5 (the total ignores paging)", offset, total)
		}
		wantLen := min(2, 5-offset)
		if len(page) != wantLen {
			t.Errorf("page at offset %d has %d chats %q, want %d", offset, len(page), page, wantLen)
		}
		paged = append(paged, page...)
	}
	wantIDs(t, "pages concatenated", paged, all)
	page, total := findChatIDs(t, s, annals.ChatFilter{Owner: tenant("A"), Limit: 2, Offset: 10})
	if len(page) != 0 || total != 5 {
		t.Errorf("page past the end = %q (total %d), want none (total 5)", page, total)
	}
}

func testFindMetaTerms(t *testing.T, s Store) {
	chats := []*annals.Chat{
		{ID: "m-title", TenantID: "A", Title: "quarterly kestrelword review"},
		{ID: "m-desc", TenantID: "A", Description: "about the kestrelword"},
		{ID: "m-summary", TenantID: "A"},
		{ID: "m-tags", TenantID: "A", Tags: []string{"kestrelword", "q3"}},
		{ID: "m-body", TenantID: "A", Title: "unrelated"},
		{ID: "m-other-tenant", TenantID: "B", Title: "kestrelword too"},
	}
	for _, c := range chats {
		mustCreateChat(t, s, c)
	}
	mustUpdate(t, s, "m-summary", annals.ChatUpdate{Summary: ptr("a kestrelword recap")})
	// A transcript mention is not metadata.
	mustAppend(t, s, "m-body", TextEntry("e1", annals.KindUser, "kestrelword in the body"))

	a := tenant("A")
	wantChatSet(t, s, "meta terms kestrelword", annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword"}},
		"m-title", "m-desc", "m-summary", "m-tags")
	wantChatSet(t, s, "meta terms kestrelword, quarterly", annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword", "quarterly"}}, "m-title")
	wantChatSet(t, s, "meta terms in title", annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword"}, MetaFields: []string{"title"}}, "m-title")
	wantChatSet(t, s, "meta terms in summary and tags",
		annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword"}, MetaFields: []string{"summary", "tags"}}, "m-summary", "m-tags")
	// Combined with another filter, both apply.
	wantChatSet(t, s, "meta terms with tag q3", annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword"}, Tag: ptr("q3")}, "m-tags")
	wantChatSet(t, s, "meta terms for tenant B", annals.ChatFilter{Owner: tenant("B"), MetaTerms: []string{"kestrelword"}}, "m-other-tenant")
	// Query syntax in a term is literal.
	for _, term := range []string{`kestrelword"`, "title:kestrelword", "kestrelword OR unrelated", "-kestrelword"} {
		if _, _, err := s.FindChats(t.Context(), annals.ChatFilter{Owner: a, MetaTerms: []string{term}}); err != nil {
			t.Errorf("FindChats with meta term %q: %v, want no error (terms are literal)", term, err)
		}
	}
	wantChatSet(t, s, "meta terms \"kestrelword OR unrelated\"", annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword OR unrelated"}}, nil...)
	_, _, err := s.FindChats(t.Context(), annals.ChatFilter{Owner: a, MetaTerms: []string{"kestrelword"}, MetaFields: []string{"body"}})
	wantCode(t, "FindChats with meta field \"body\"", err, annals.EINVALID)
}
