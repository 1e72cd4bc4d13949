package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

func matchIDsTests() []test {
	return []test{
		{"FindsWhatIDPrefixFinds", testMatchIDsAsIDPrefix},
		{"DistinctChatsUpToTheLimit", testMatchIDsLimit},
		{"DeletedChatsAreGone", testMatchIDsDeleted},
		{"ByAttributeFindsWhatTheFilterFinds", testChatIDsWithAttribute},
	}
}

// testMatchIDsAsIDPrefix proves MatchChatIDs finds exactly the chats ChatFilter.IDPrefix
// keeps, for prefixes of ids, of the text after any ':' (ids with several), byte for byte, in
// every owner shape: tenant, user, agent, all tenants, and a zero owner (nothing).
func testMatchIDsAsIDPrefix(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{
		{ID: "claude-code:7f3c2a10-aaaa", TenantID: "A", UserID: "u1", AgentID: "g1"},
		{ID: "claude-code:7f3c2a10-aaaa/sidechain-x", TenantID: "A", UserID: "u1", AgentID: "g1"},
		{ID: "claude-code:7f3d0000-bbbb", TenantID: "A", UserID: "u2", AgentID: "g2"},
		{ID: "7f3c-native", TenantID: "A", UserID: "u1", AgentID: "g2"},
		{ID: "codex:AB_%x", TenantID: "A"},
		{ID: "ns:sub:7f3e-deep", TenantID: "A", UserID: "u2"},
		{ID: "end:", TenantID: "A"},
		{ID: "é:ü\U0010FFFF", TenantID: "A"},
		{ID: "claude-code:7f3c9999", TenantID: "B", UserID: "u1", AgentID: "g1"},
	} {
		mustCreateChat(t, s, c)
	}
	owners := []annals.Owner{
		{TenantID: "A"}, {TenantID: "A", UserID: "u1"}, {TenantID: "A", AgentID: "g2"},
		{TenantID: "B"}, {AllTenants: true}, {},
	}
	prefixes := []string{"7f3c", "7f3", "7", "claude-code:7f3d", "claude", "7F3C", "AB_%", "AB%", "_",
		"sub:7f3e", "sub", "7f3e-deep", ":", "end", "end:", "ü", "ü\U0010FFFF", "é", "absent", "7f3c2a10-aaaa/"}
	for _, o := range owners {
		for _, p := range prefixes {
			got, err := s.MatchChatIDs(t.Context(), o, p, 100)
			if err != nil {
				t.Fatalf("MatchChatIDs(%v, %q): %v", o, p, err)
			}
			chats, _, err := s.FindChats(t.Context(), annals.ChatFilter{Owner: o, IDPrefix: p, IncludeArchived: true, Limit: annals.MaxListLimit})
			if err != nil {
				t.Fatalf("FindChats(%v, %q): %v", o, p, err)
			}
			var want []string
			for _, c := range chats {
				want = append(want, c.ID)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("MatchChatIDs(%v, %q) = %q; the id prefix filter keeps %q", o, p, got, want)
			}
		}
	}
}

// testMatchIDsLimit proves a chat is one match however many of its texts start with the
// prefix (here more than a page of them) and that the limit counts chats.
func testMatchIDsLimit(t *testing.T, s Store) {
	many := strings.Repeat("p:", 100) + "p" // 101 texts starting with "p"
	for _, id := range []string{many, "pz", "p-1", "p-2", "q"} {
		mustCreateChat(t, s, NewChat(id, "A"))
	}
	a := annals.Owner{TenantID: "A"}
	got, err := s.MatchChatIDs(t.Context(), a, "p", 10)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"p-1", "p-2", many, "pz"}; !slices.Equal(got, want) {
		t.Errorf("MatchChatIDs(p) = %q, want each chat once: %q", got, want)
	}
	if got, err := s.MatchChatIDs(t.Context(), a, "p", 2); err != nil || len(got) != 2 {
		t.Errorf("MatchChatIDs(p, limit 2) = %q, %v; want 2 chats", got, err)
	}
	if got, err := s.MatchChatIDs(t.Context(), a, "p:p:p", 10); err != nil || !slices.Equal(got, []string{many}) {
		t.Errorf("MatchChatIDs(p:p:p) = %q, %v; want the one chat", got, err)
	}
}

// testMatchIDsDeleted proves a deleted chat is no longer matched, and a chat created again
// with its id is matched once.
func testMatchIDsDeleted(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("claude-code:doomed-1", "A"))
	mustCreateChat(t, s, NewChat("claude-code:kept-1", "A"))
	if err := s.DeleteChat(t.Context(), refOf(t, s, "claude-code:doomed-1")); err != nil {
		t.Fatal(err)
	}
	a := annals.Owner{TenantID: "A"}
	if got, err := s.MatchChatIDs(t.Context(), a, "doomed", 10); err != nil || len(got) != 0 {
		t.Errorf("MatchChatIDs(doomed) after delete = %q, %v; want none", got, err)
	}
	mustCreateChat(t, s, NewChat("claude-code:doomed-1", "A"))
	if got, err := s.MatchChatIDs(t.Context(), a, "doomed", 10); err != nil || !slices.Equal(got, []string{"claude-code:doomed-1"}) {
		t.Errorf("MatchChatIDs(doomed) after creating it again = %q, %v; want it once", got, err)
	}
}

// testChatIDsWithAttribute proves the exact-value attribute lookup finds what the attribute
// filter finds, in list order, inside each owner shape, bounded by the limit.
func testChatIDsWithAttribute(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{
		{ID: "c1", TenantID: "A", UserID: "u1", Attributes: annals.Attributes{"resumed_from": "s-1"}},
		{ID: "c2", TenantID: "A", UserID: "u2", Attributes: annals.Attributes{"resumed_from": "s-1"}},
		{ID: "c3", TenantID: "A", UserID: "u1", Attributes: annals.Attributes{"resumed_from": "s-10"}},
		{ID: "c4", TenantID: "A", UserID: "u1", Attributes: annals.Attributes{"other": "s-1"}},
		{ID: "c5", TenantID: "B", UserID: "u1", Attributes: annals.Attributes{"resumed_from": "s-1"}},
	} {
		mustCreateChat(t, s, c)
	}
	for _, o := range []annals.Owner{{TenantID: "A"}, {TenantID: "A", UserID: "u1"}, {TenantID: "B"}, {AllTenants: true}, {}} {
		for _, v := range []string{"s-1", "s-10", "s-", "absent"} {
			got, err := s.ChatIDsWithAttribute(t.Context(), o, "resumed_from", v, 100)
			if err != nil {
				t.Fatalf("ChatIDsWithAttribute(%v, %q): %v", o, v, err)
			}
			chats, _, err := s.FindChats(t.Context(), annals.ChatFilter{Owner: o, Attributes: map[string]annals.AttrMatch{"resumed_from": {Value: v}}, IncludeArchived: true, Limit: annals.MaxListLimit})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{}
			for _, c := range chats {
				want = append(want, c.ID)
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ChatIDsWithAttribute(%v, %q) = %q; the attribute filter keeps %q (in this order)", o, v, got, want)
			}
		}
	}
	if got, err := s.ChatIDsWithAttribute(t.Context(), annals.Owner{AllTenants: true}, "resumed_from", "s-1", 2); err != nil || len(got) != 2 {
		t.Errorf("ChatIDsWithAttribute(limit 2) = %q, %v; want 2", got, err)
	}
}
