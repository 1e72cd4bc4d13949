package sqlite_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// TestSmallOwnerEntrySearchWalksItsChatsRanges: a tenant with a small share of the entries is
// searched over its chats' ranges of the entry index, with the same page and total as the walk
// over every match, and never another tenant's entries, even those stored inside its chat's
// range; a tenant holding most of the entries is walked as before.
func TestSmallOwnerEntrySearchWalksItsChatsRanges(t *testing.T) {
	db := openTestDB(t)
	db.SetOwnerFacetsForTest(false) // the ranges are for an index without the owner's tokens
	ctx := t.Context()
	for _, c := range []*annals.Chat{storetest.NewChat("small", "A"), storetest.NewChat("big", "B")} {
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
	}
	add := func(chat, id, text string) {
		t.Helper()
		if _, err := annals.AppendEntries(ctx, db, chat, []*annals.Entry{storetest.TextEntry(id, annals.KindUser, text)}); err != nil {
			t.Fatal(err)
		}
	}
	add("small", "a1", "zqword first")
	add("big", "inside", "zqword zqword stored between the small chat's entries")
	add("small", "a2", "zqword zqword second")
	for i := range 40 {
		add("big", fmt.Sprintf("b%d", i), "zqword filler of the big tenant")
	}
	add("small", "a3", "zqword third")
	// The small chat spans 43 of 44 entries: too wide. A second small chat whose entries are
	// adjacent makes the owner narrow: a tenant with it alone.
	if _, err := annals.CreateChat(ctx, db, storetest.NewChat("narrow", "C")); err != nil {
		t.Fatal(err)
	}
	add("narrow", "c1", "zqword one")
	add("narrow", "c2", "zqword zqword two")
	add("narrow", "c3", "other words")

	for _, tc := range []struct {
		tenant string
		ranges bool
		want   []string
	}{
		{"C", true, []string{"c1", "c2"}},
		{"A", false, []string{"a1", "a2", "a3"}},
		{"B", false, nil},
	} {
		for _, cands := range []int{0, 1} {
			db.SetCandidatesForTest(cands)
			f := searchFilter(t, "zqword", annals.Owner{TenantID: tc.tenant})
			report := &annals.SearchReport{}
			rctx := annals.NewContextWithSearchReport(ctx, report)
			db.SetOwnerRangesForTest(true)
			got, total, err := db.SearchEntries(rctx, f)
			if err != nil {
				t.Fatal(err)
			}
			db.SetOwnerRangesForTest(false)
			walked, wtotal, err := db.SearchEntries(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			ids := func(hs []annals.EntryHit) []string {
				var out []string
				for _, h := range hs {
					out = append(out, h.Entry.ID)
				}
				return out
			}
			if !slices.Equal(ids(got), ids(walked)) || total != wtotal {
				t.Errorf("tenant %s, %d candidates: ranges gave %v (total %d), the walk %v (total %d)", tc.tenant, cands, ids(got), total, ids(walked), wtotal)
			}
			if ranged := report.Explain().Path == "entry index (the owner's chats' ranges)"; ranged != tc.ranges {
				t.Errorf("tenant %s: path %q, want ranges %v", tc.tenant, report.Explain().Path, tc.ranges)
			}
			if tc.want != nil {
				sorted := slices.Sorted(slices.Values(ids(got)))
				if cands == 0 && !slices.Equal(sorted, tc.want) || total != len(tc.want) {
					t.Errorf("tenant %s, %d candidates: hits %v, total %d; want %v", tc.tenant, cands, ids(got), total, tc.want)
				}
			}
			if slices.Contains(ids(got), "inside") && tc.tenant != "B" {
				t.Errorf("tenant %s saw another tenant's entry", tc.tenant)
			}
		}
	}
	db.SetCandidatesForTest(0)
	// The ranked page is bm25's: the entry with the word twice first.
	db.SetOwnerRangesForTest(true)
	hits, _, err := db.SearchEntries(ctx, searchFilter(t, "zqword", annals.Owner{TenantID: "C"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Entry.ID != "c2" || hits[0].Snippet == "" {
		t.Errorf("tenant C's hits %+v: want c2 first, with its snippet", hits)
	}
}

// TestSmallOwnerFilteredChatSearchWalksItsChatsRanges: a chat search under an entry-level filter
// (role:, tool:) of a small owner walks its chats' ranges of the entry index, with the same
// page, scores, matches and total as the walk over every tenant's matches, says so in its
// explain, and never counts another tenant's entry stored inside its chat's range.
func TestSmallOwnerFilteredChatSearchWalksItsChatsRanges(t *testing.T) {
	ctx := t.Context()
	// The clock is pinned: the scores blend in recency, and the runs compared are apart in time.
	now := func() time.Time { return time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC) }
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetOwnerFacetsForTest(false) // the ranges are for an index without the owner's tokens
	for _, c := range []*annals.Chat{storetest.NewChat("big", "B"), storetest.NewChat("narrow", "C"), storetest.NewChat("other", "C")} {
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
	}
	add := func(chat string, e *annals.Entry) {
		t.Helper()
		if _, err := annals.AppendEntries(ctx, db, chat, []*annals.Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
	add("narrow", storetest.TextEntry("c1", annals.KindUser, "zqword one"))
	add("big", storetest.TextEntry("inside", annals.KindUser, "zqword stored between the narrow chat's entries"))
	add("big", storetest.ToolEntry("inside-tool", "Bash", `{"command": "zqword"}`, "zqword"))
	add("narrow", storetest.TextEntry("c2", annals.KindUser, "zqword zqword two"))
	add("narrow", storetest.ToolEntry("c3", "Bash", `{"command": "zqword"}`, "ok"))
	add("narrow", storetest.TextEntry("c4", annals.KindAssistant, "zqword said by the assistant"))
	for i := range 60 {
		add("big", storetest.TextEntry(fmt.Sprintf("b%d", i), annals.KindUser, "zqword filler of the big tenant"))
	}
	add("other", storetest.TextEntry("o1", annals.KindUser, "zqword in the other chat"))

	for _, tc := range []struct {
		q          string
		roles      []annals.EntryKind
		tools      []string
		want       map[string]int // chat id: matching entries
		wantRanges bool
		tenant     string
	}{
		{q: "zqword", roles: []annals.EntryKind{annals.KindUser}, tenant: "C", want: map[string]int{"narrow": 2, "other": 1}, wantRanges: true},
		{q: "zqword", tools: []string{"bash"}, tenant: "C", want: map[string]int{"narrow": 1}, wantRanges: true},
		{q: "zqword OR nothing", roles: []annals.EntryKind{annals.KindAssistant}, tenant: "C", want: map[string]int{"narrow": 1}, wantRanges: true},
		{q: "zqword", roles: []annals.EntryKind{annals.KindUser}, tenant: "B", want: map[string]int{"big": 61}},
	} {
		for _, cands := range []int{0, 1} {
			db.SetCandidatesForTest(cands)
			f := searchFilter(t, tc.q, annals.Owner{TenantID: tc.tenant})
			f.Roles, f.Tools = tc.roles, tc.tools
			report := &annals.SearchReport{}
			db.SetOwnerRangesForTest(true)
			got, total, err := db.SearchChats(annals.NewContextWithSearchReport(ctx, report), f)
			if err != nil {
				t.Fatal(err)
			}
			db.SetOwnerRangesForTest(false)
			walked, wtotal, err := db.SearchChats(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			desc := func(hs []annals.ChatHit) string {
				var out []string
				for _, h := range hs {
					out = append(out, fmt.Sprintf("%s/%d/%.6f/%d", h.Chat.ID, h.Matches, h.Score, len(h.Snippets)))
				}
				return fmt.Sprint(out)
			}
			name := fmt.Sprintf("%s %v %v as %s, %d candidates", tc.q, tc.roles, tc.tools, tc.tenant, cands)
			if desc(got) != desc(walked) || total != wtotal {
				t.Errorf("%s: ranges gave %s (total %d), the walk %s (total %d)", name, desc(got), total, desc(walked), wtotal)
			}
			if ranged := report.Explain().Path == "entry index (the owner's chats' ranges)"; ranged != tc.wantRanges {
				t.Errorf("%s: path %q, want ranges %v", name, report.Explain().Path, tc.wantRanges)
			}
			gotCounts := map[string]int{}
			for _, h := range got {
				gotCounts[h.Chat.ID] = h.Matches
			}
			if fmt.Sprint(gotCounts) != fmt.Sprint(tc.want) || total != len(tc.want) {
				t.Errorf("%s: chats %v (total %d), want %v", name, gotCounts, total, tc.want)
			}
		}
	}
	db.SetCandidatesForTest(0)
}
