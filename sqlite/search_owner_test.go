package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

// ownerCorpus writes a big tenant B (most entries) and two small tenants: A, whose chat spans
// the whole index (its entries written before, between and after B's), and C, with a user u1's
// chat and a chat of no user. The small tenants' entries are interleaved with B's, so a walk
// over every tenant's newest matches reads B's before it reaches theirs.
func ownerCorpus(t *testing.T) (*sqlite.DB, string) {
	t.Helper()
	ctx := t.Context()
	// The clock is pinned: the chat scores blend in recency, and the runs compared are apart.
	now := func() time.Time { return time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC) }
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	user := storetest.NewChat("user", "C")
	user.UserID = "u1"
	namesake := storetest.NewChat("namesake", "B") // a user of the same id in another tenant
	namesake.UserID = "u1"
	for _, c := range []*annals.Chat{storetest.NewChat("big", "B"), storetest.NewChat("wide", "A"), user, storetest.NewChat("nouser", "C"), namesake} {
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
	add("wide", storetest.TextEntry("a1", annals.KindUser, "zqword first"))
	for i := range 30 {
		add("big", storetest.TextEntry(fmt.Sprintf("b%d", i), annals.KindUser, "zqword filler of the big tenant"))
		if i%10 == 5 {
			add("user", storetest.TextEntry(fmt.Sprintf("u%d", i), annals.KindUser, strings.Repeat("zqword ", 1+i/10)+"from the user"))
			add("nouser", storetest.ToolEntry(fmt.Sprintf("t%d", i), "Bash", `{"command": "zqword"}`, "zqword done"))
			add("wide", storetest.TextEntry(fmt.Sprintf("a%d", i), annals.KindAssistant, "zqword zqword said by the assistant"))
		}
	}
	// Enough of B's that each small owner holds under 1/20 of the entries (search_owner.go).
	var bulk []*annals.Entry
	for i := range 200 {
		bulk = append(bulk, storetest.ToolEntry(fmt.Sprintf("bt%d", i), "Bash", `{"command": "zqword"}`, "zqword"))
	}
	if _, err := annals.AppendEntries(ctx, db, "big", bulk); err != nil {
		t.Fatal(err)
	}
	add("wide", storetest.TextEntry("a9", annals.KindUser, "zqword last"))
	add("namesake", storetest.TextEntry("n1", annals.KindUser, "zqword of B's u1"))
	return db, path
}

// TestSmallOwnerSearchesNarrowByItsTokens: a tenant or user holding a small share of the entries
// searches the entry index with its tokens ANDed into every MATCH (migration 0036), says so in
// its path, and gets the page, scores, matches and total of the same search without them; a
// tenant holding most entries searches without them.
func TestSmallOwnerSearchesNarrowByItsTokens(t *testing.T) {
	db, _ := ownerCorpus(t)
	ctx := t.Context()
	db.SetOwnerRangesForTest(false) // compared with the plain walk
	owners := []struct {
		owner  annals.Owner
		tokens bool
	}{
		{annals.Owner{TenantID: "A"}, true},
		{annals.Owner{TenantID: "C"}, true},
		{annals.Owner{TenantID: "C", UserID: "u1"}, true},
		{annals.Owner{TenantID: "C", UserID: "u1", AgentID: "nobody"}, true},
		{annals.Owner{TenantID: "B"}, false},
		{annals.Owner{AllTenants: true}, false},
	}
	searches := []struct {
		q       string
		roles   []annals.EntryKind
		tools   []string
		entries bool
	}{
		{q: "zqword", entries: true},
		{q: "zqword assistant", entries: true},
		{q: "zqword", roles: []annals.EntryKind{annals.KindUser}},
		{q: "zqword", tools: []string{"bash"}},
		{q: "zqword OR nothing", roles: []annals.EntryKind{annals.KindAssistant}},
		{q: "zqword -filler", roles: []annals.EntryKind{annals.KindUser}},
		{q: "zqword", tools: []string{"bash"}, entries: true},
	}
	for _, o := range owners {
		for _, s := range searches {
			for _, cands := range []int{0, 2} {
				db.SetCandidatesForTest(cands)
				name := fmt.Sprintf("%q %v %v entries=%v as %+v, %d candidates", s.q, s.roles, s.tools, s.entries, o.owner, cands)
				f := searchFilter(t, s.q, o.owner)
				f.Roles, f.Tools = s.roles, s.tools
				var matches []string
				report := &annals.SearchReport{}
				tctx := annals.NewContextWithSearchReport(annals.NewContextWithStatementTrace(ctx, func(st annals.Statement) {
					for _, a := range st.Args {
						if m, ok := a.(string); ok && strings.Contains(st.SQL, "entries_fts MATCH") && strings.Contains(m, "zqword") {
							matches = append(matches, m)
						}
					}
				}), report)
				db.SetOwnerFacetsForTest(true)
				got := ownerSearch(t, db, tctx, f, s.entries)
				db.SetOwnerFacetsForTest(false)
				plain := ownerSearch(t, db, ctx, f, s.entries)
				if got != plain {
					t.Errorf("%s: with the tokens %s, without %s", name, got, plain)
				}
				if tokens := strings.Contains(report.Explain().Path, "the owner's postings"); tokens != o.tokens {
					t.Errorf("%s: path %q, want the owner's tokens %v", name, report.Explain().Path, o.tokens)
				}
				// One token, the narrowest: the user's (its tenant's user alone) or the tenant's.
				for _, m := range matches {
					if has := strings.Contains(m, "\U000F0102"); has != (o.tokens && o.owner.UserID == "") {
						t.Errorf("%s: MATCH %q carries the tenant token %v", name, m, has)
					}
					if has := strings.Contains(m, "\U000F0103"); has != (o.tokens && o.owner.UserID != "") {
						t.Errorf("%s: MATCH %q carries the user token %v", name, m, has)
					}
				}
				if o.tokens && len(matches) == 0 {
					t.Errorf("%s: no entry MATCH traced", name)
				}
			}
		}
	}
}

// ownerSearch runs a chat or entry search and describes its page: ids, scores, matches,
// snippets and the total.
func ownerSearch(t *testing.T, db *sqlite.DB, ctx context.Context, f annals.SearchFilter, entries bool) string {
	t.Helper()
	var out []string
	if entries {
		hits, total, err := db.SearchEntries(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%s/%.6f/%s", h.Entry.ID, h.Score, h.Snippet))
		}
		return fmt.Sprint(out, total)
	}
	hits, total, err := db.SearchChats(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d/%.6f/%v", h.Chat.ID, h.Matches, h.Score, h.Snippets))
	}
	return fmt.Sprint(out, total)
}

// TestOwnerTokensFollowEveryWrite: the entry index's owner tokens stay those of each entry's
// chat through every write that changes what is indexed — appends, an entry rewritten, a
// transcript cut back, a chat deleted (its entries go before the chat, while the delete
// trigger can still read their owner), an owner changed under the store — as FTS5's
// integrity check against the content view says, and a search as the new owner finds them.
func TestOwnerTokensFollowEveryWrite(t *testing.T) {
	db, _ := ownerCorpus(t)
	ctx := t.Context()
	check := func(step string) {
		t.Helper()
		if err := db.CheckIndex(ctx); err != nil {
			t.Fatalf("after %s: %v", step, err)
		}
	}
	check("the appends")
	if err := db.WriteTxForTest(ctx, `UPDATE entries SET text = 'zqword rewritten' WHERE id = 'a1'`); err != nil {
		t.Fatal(err)
	}
	check("an entry rewritten")
	if err := db.WriteTxForTest(ctx, `DELETE FROM entries WHERE id = 'u15'`); err != nil {
		t.Fatal(err)
	}
	check("an entry deleted")
	if err := db.WriteTxForTest(ctx, `UPDATE entries SET chat_pk = (SELECT pk FROM chats WHERE id = 'user'), seq = 1000 WHERE id = 'a5'`); err != nil {
		t.Fatal(err)
	}
	check("an entry moved to another owner's chat")
	c, err := db.FindChatByID(ctx, "nouser")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteChat(ctx, c.Ref()); err != nil {
		t.Fatal(err)
	}
	check("a chat deleted")
	if err := db.WriteTxForTest(ctx, `UPDATE chats SET tenant_id = 'D', user_id = 'u2' WHERE id = 'wide'`); err != nil {
		t.Fatal(err)
	}
	check("an owner changed")
	for _, c := range []struct {
		owner annals.Owner
		want  int
	}{
		{annals.Owner{TenantID: "D", UserID: "u2"}, 4},
		{annals.Owner{TenantID: "A"}, 0},
		{annals.Owner{TenantID: "C"}, 3},
		{annals.Owner{TenantID: "C", UserID: "u1"}, 3},
	} {
		report := &annals.SearchReport{}
		hits, _, err := db.SearchEntries(annals.NewContextWithSearchReport(ctx, report), searchFilter(t, "zqword", c.owner))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != c.want || report.Explain().Path != "entry index (the owner's postings)" {
			t.Errorf("as %+v: %d hits by %q, want %d by the owner's postings", c.owner, len(hits), report.Explain().Path, c.want)
		}
	}
}

// TestOwnerTokensHoldTheirOwnersEntries: each owner token's postings are exactly its owner's
// entries: a tenant's every entry of its chats, a user's only that tenant's user's (a user of
// the same id in another tenant has a token of its own).
func TestOwnerTokensHoldTheirOwnersEntries(t *testing.T) {
	_, path := ownerCorpus(t)
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, c := range []struct {
		owner annals.Owner
		chats string
	}{
		{annals.Owner{TenantID: "C"}, "'user', 'nouser'"},
		{annals.Owner{TenantID: "C", UserID: "u1"}, "'user'"},
		{annals.Owner{TenantID: "B", UserID: "u1"}, "'namesake'"},
		{annals.Owner{TenantID: "B"}, "'big', 'namesake'"},
	} {
		var indexed, want int
		if err := raw.QueryRowContext(t.Context(), `SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?`, sqlite.OwnerFacetMatchForTest(c.owner)).Scan(&indexed); err != nil {
			t.Fatal(err)
		}
		if err := raw.QueryRowContext(t.Context(), `SELECT count(*) FROM entries e JOIN chats c ON c.pk = e.chat_pk WHERE c.id IN (`+c.chats+`)`).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if indexed != want || want == 0 {
			t.Errorf("%+v: its token holds %d entries, its chats %d", c.owner, indexed, want)
		}
	}
}

// TestOwnerShareIsRememberedUntilTheEntriesGrow: whether an owner is small enough for its
// token is read once, then remembered until the entries have grown by a tenth.
func TestOwnerShareIsRememberedUntilTheEntriesGrow(t *testing.T) {
	db, _ := ownerCorpus(t)
	ctx := t.Context()
	reads := 0
	tctx := annals.NewContextWithStatementTrace(ctx, func(st annals.Statement) {
		if strings.Contains(st.SQL, "coalesce(sum(n), 0)") {
			reads++
		}
	})
	search := func() {
		t.Helper()
		if _, _, err := db.SearchEntries(tctx, searchFilter(t, "zqword", annals.Owner{TenantID: "A"})); err != nil {
			t.Fatal(err)
		}
	}
	search()
	search()
	if reads != 1 {
		t.Fatalf("two searches read the owner's share %d times, want once", reads)
	}
	var more []*annals.Entry
	for i := range 40 {
		more = append(more, storetest.TextEntry(fmt.Sprintf("more%d", i), annals.KindUser, "zqword growth"))
	}
	if _, err := annals.AppendEntries(ctx, db, "big", more); err != nil {
		t.Fatal(err)
	}
	search()
	if reads != 2 {
		t.Errorf("after the entries grew by over a tenth: %d reads of the share, want 2", reads)
	}
}
