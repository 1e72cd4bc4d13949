package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/sqlite"
)

func openTestDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// searchFilter parses q as the history service does for a search in owner scope.
func searchFilter(t *testing.T, q string, o annals.Owner) annals.SearchFilter {
	t.Helper()
	pq, err := query.Parse(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	return annals.SearchFilter{Chat: annals.ChatFilter{Owner: o, Tags: pq.Filters.Tags, Agents: pq.Filters.Agents},
		Text: query.ToTextExpr(pq.Text), Fields: pq.Fields, Limit: annals.MaxListLimit, Snippets: 3, MarkOpen: "[", MarkClose: "]"}
}

// searchAll returns every page of a chat search: hits in order and the total. It fails the test
// if the search did not take the path the test asked for (entry ranking or chat index).
func searchAll(t *testing.T, db *sqlite.DB, f annals.SearchFilter, chatIndex bool) ([]annals.ChatHit, int) {
	t.Helper()
	var all []annals.ChatHit
	used := false
	ctx := annals.NewContextWithStatementTrace(context.Background(), func(s annals.Statement) {
		used = used || strings.Contains(s.SQL, "chat_fts MATCH")
	})
	defer func() {
		if used != chatIndex {
			t.Errorf("search %+v used the chat index: %v, want %v", f.Text, used, chatIndex)
		}
	}()
	for {
		hits, total, err := db.SearchChats(ctx, f)
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		all = append(all, hits...)
		if len(hits) == 0 || len(all) >= total {
			return all, total
		}
		f.Offset += len(hits)
	}
}

// hitSummary is what both rankings must agree on for a chat: that it matches, how many of its
// entries match, and how many snippets it shows, each with a highlighted term. (Which entries
// give the snippets may differ: the chat index picks them without bm25.)
type hitSummary struct {
	Matches, Snippets, Highlighted int
}

func summarize(hits []annals.ChatHit) map[string]hitSummary {
	out := map[string]hitSummary{}
	for _, h := range hits {
		s := hitSummary{Matches: h.Matches, Snippets: len(h.Snippets)}
		for _, sn := range h.Snippets {
			if strings.Contains(sn.Text, "[") && strings.Contains(sn.Text, "]") {
				s.Highlighted++
			}
		}
		out[h.Chat.ID] = s
	}
	return out
}

// wantSameAsEntryRanking runs q through the chat index and through the entry-level ranking and
// requires the same chats, totals, match counts and snippets (the order may differ: the scores
// differ). With sort recent, the order must be the same too.
func wantSameAsEntryRanking(t *testing.T, db *sqlite.DB, q string, o annals.Owner, sort string) {
	t.Helper()
	wantSamePages(t, db, q, o, sort, annals.MaxListLimit)
}

// wantSamePages is wantSameAsEntryRanking with pages of limit chats.
func wantSamePages(t *testing.T, db *sqlite.DB, q string, o annals.Owner, sort string, limit int) {
	t.Helper()
	f := searchFilter(t, q, o)
	f.Sort, f.Limit = sort, limit
	db.SetEntryRankingForTest(true)
	want, wantTotal := searchAll(t, db, f, false)
	db.SetEntryRankingForTest(false)
	got, gotTotal := searchAll(t, db, f, true)
	if gotTotal != wantTotal || len(got) != len(want) {
		t.Fatalf("%q (%v): chat index found %d (total %d), entry ranking %d (total %d)", q, o, len(got), gotTotal, len(want), wantTotal)
	}
	if g, w := summarize(got), summarize(want); !reflect.DeepEqual(g, w) {
		for id, wh := range w {
			if gh, ok := g[id]; !ok || !reflect.DeepEqual(gh, wh) {
				t.Fatalf("%q (%v): chat %s: chat index %+v, entry ranking %+v", q, o, id, gh, wh)
			}
		}
		t.Fatalf("%q (%v): the chat index found chats the entry ranking did not", q, o)
	}
	if sort == annals.SortRecent {
		for i := range got {
			if got[i].Chat.ID != want[i].Chat.ID {
				t.Fatalf("%q sort recent: position %d is %s, want %s", q, i, got[i].Chat.ID, want[i].Chat.ID)
			}
		}
	}
}

func mustCheckIndex(t *testing.T, db *sqlite.DB) {
	t.Helper()
	if err := db.CheckIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestChatIndexAgreesWithEntryRanking compares the two rankings over a generated corpus of three
// tenants, for every query shape and owner scope.
func TestChatIndexAgreesWithEntryRanking(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 3, Entries: 3000, Chats: 60}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, db, &buf, ingest.Options{BatchSize: 200}); err != nil {
		t.Fatal(err)
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	mustCheckIndex(t, db)
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, Limit: 1})
	if err != nil || len(chats) == 0 {
		t.Fatalf("no chats: %v", err)
	}
	c := chats[0]
	owners := []annals.Owner{{AllTenants: true}, {TenantID: c.TenantID}, {TenantID: c.TenantID, UserID: c.UserID}, {TenantID: c.TenantID, AgentID: c.AgentID}}
	queries := []string{"commonterm", "mediumterm", "zqxscarce", "mediumterm commonterm", "commonterm OR zqxscarce",
		"commonterm -mediumterm", `"the test"`, "mediumt*", "in:title fix", "in:body commonterm", "in:tools commonterm",
		"in:title,body test", "error (panic OR traceback)", "nosuchwordanywhere",
		`"most recent call l"*`, "te*", "commonterm -mediumt*", "invoic* mediumterm", "zqx*"}
	for _, o := range owners {
		for _, q := range queries {
			wantSameAsEntryRanking(t, db, q, o, "")
		}
	}
	for _, q := range []string{"commonterm", "mediumterm OR zqxscarce"} {
		wantSameAsEntryRanking(t, db, q, annals.Owner{AllTenants: true}, annals.SortRecent)
	}
	// Newest first needs no candidates beyond the page: small pages walk the index in order, and
	// the totals (more matches than candidates) are counted.
	db.SetCandidatesForTest(5)
	for _, o := range owners {
		wantSamePages(t, db, "commonterm", o, annals.SortRecent, 7)
		wantSamePages(t, db, "test -mediumterm", o, annals.SortRecent, 7)
	}
	tag := "x"
	f := searchFilter(t, "commonterm", owners[1])
	f.Chat.Tag, f.Limit = &tag, 3
	if _, total, err := db.SearchChats(ctx, f); err != nil || total != 0 {
		t.Fatalf("tag filter: total %d, err %v", total, err)
	}
}

// TestChatIndexFollowsEveryWrite checks the index after each kind of write: append, a repeated
// append, truncate, rename, annotate, archive and restore, recap, delete and re-create.
func TestChatIndexFollowsEveryWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	all := annals.Owner{AllTenants: true}
	step := func(what string, q string, want ...string) {
		t.Helper()
		mustCheckIndex(t, db)
		hits, total := searchAll(t, db, searchFilter(t, q, all), true)
		var got []string
		for _, h := range hits {
			got = append(got, h.Chat.ID)
		}
		if total != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after %s, %q found %v (total %d), want %v", what, q, got, total, want)
		}
		wantSameAsEntryRanking(t, db, q, all, annals.SortRecent)
	}
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t1", Title: "kestrel notes"}); err != nil {
		t.Fatal(err)
	}
	step("create", "kestrel", "c1")
	step("create", "osprey")
	entries := []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "the osprey"}, {ID: "e2", Kind: annals.KindAssistant, Text: "a heron"}}
	if _, err := annals.AppendEntries(ctx, db, "c1", entries); err != nil {
		t.Fatal(err)
	}
	step("append", "osprey heron", "c1")
	step("append", `"osprey a"`) // a phrase never spans two entries
	if _, err := annals.AppendEntries(ctx, db, "c1", entries); err != nil {
		t.Fatal(err)
	}
	step("a repeated append", "heron", "c1")
	if _, err := annals.TruncateChat(ctx, db, "c1", annals.TruncatePoint{Seq: 2}); err != nil {
		t.Fatal(err)
	}
	step("truncate", "heron")
	step("truncate", "osprey", "c1")
	ref := func(id string) annals.ChatRef {
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return c.Ref()
	}
	title, tags := "falcon log", []string{"raptor"}
	if _, err := db.UpdateChat(ctx, ref("c1"), annals.ChatUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	step("rename", "kestrel")
	step("rename", "falcon", "c1")
	if _, err := db.UpdateChat(ctx, ref("c1"), annals.ChatUpdate{Tags: &tags}); err != nil {
		t.Fatal(err)
	}
	step("tag", "raptor osprey", "c1")
	archived := true
	if _, err := db.UpdateChat(ctx, ref("c1"), annals.ChatUpdate{Archived: &archived}); err != nil {
		t.Fatal(err)
	}
	step("archive", "osprey")
	archived = false
	if _, err := db.UpdateChat(ctx, ref("c1"), annals.ChatUpdate{Archived: &archived}); err != nil {
		t.Fatal(err)
	}
	step("restore", "osprey", "c1")
	if err := db.DeleteChat(ctx, ref("c1")); err != nil {
		t.Fatal(err)
	}
	step("delete", "osprey")
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t1"}); err != nil {
		t.Fatal(err)
	}
	step("re-create", "falcon")
}

// TestOwnerNarrowsBeforeTheCandidates: with room for three candidates, another tenant's five
// newer matches do not crowd out a tenant's own two, and every total is exact.
func TestOwnerNarrowsBeforeTheCandidates(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetCandidatesForTest(3)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(id, tenant string, at time.Time) {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: tenant, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "shared word", Time: at}}); err != nil {
			t.Fatal(err)
		}
	}
	add("a1", "A", base)
	add("a2", "A", base.Add(time.Minute))
	for i := range 5 {
		add(fmt.Sprintf("b%d", i), "B", base.Add(time.Hour+time.Duration(i)*time.Minute))
	}
	f := searchFilter(t, "shared", annals.Owner{TenantID: "A"})
	f.Limit = 2
	hits, total, err := db.SearchChats(ctx, f)
	if err != nil || len(hits) != 2 || total != 2 {
		t.Fatalf("tenant A: %d hits, total %d, err %v; want its 2 chats", len(hits), total, err)
	}
	f = searchFilter(t, "shared", annals.Owner{AllTenants: true})
	f.Limit = 2
	if hits, total, err = db.SearchChats(ctx, f); err != nil || len(hits) != 2 || total != 7 {
		t.Fatalf("global: %d hits, total %d, err %v; want 2 of 7", len(hits), total, err)
	}
	f = searchFilter(t, "shared", annals.Owner{})
	if hits, total, err = db.SearchChats(ctx, f); err != nil || len(hits) != 0 || total != 0 {
		t.Fatalf("the zero owner: %d hits, total %d, err %v; want nothing", len(hits), total, err)
	}
	f = searchFilter(t, "shared", annals.Owner{AllTenants: true})
	f.Limit = 2
	tag := "x"
	f.Chat.Tag = &tag // a filter outside the MATCH: the total is counted through the chats
	if hits, total, err = db.SearchChats(ctx, f); err != nil || len(hits) != 0 || total != 0 {
		t.Fatalf("tag filter: %d hits, total %d, err %v; want none", len(hits), total, err)
	}
}

// TestSortRecentWithTiedActivity: chats active at the same instant sort by id, as in the entry
// ranking, although their index keys had to move apart.
func TestSortRecentWithTiedActivity(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"m", "c", "x", "a"} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "t", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: "e", Kind: annals.KindUser, Text: "tied", Time: at}}); err != nil {
			t.Fatal(err)
		}
	}
	mustCheckIndex(t, db)
	wantSameAsEntryRanking(t, db, "tied", annals.Owner{TenantID: "t"}, annals.SortRecent)
}

// TestUpgradeBuildsTheChatIndex opens a database from before migration 0007 (made by removing
// what 0007 added), and expects the reopen to build every chat's document, with progress, and
// searches to answer from the entry index until then.
func TestUpgradeBuildsTheChatIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 5, Entries: 1500, Chats: 30}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, db, &buf, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	all := annals.Owner{AllTenants: true}
	db.SetEntryRankingForTest(true)
	want, wantTotal := searchAll(t, db, searchFilter(t, "commonterm", all), false)
	db.SetEntryRankingForTest(false)
	// Half-built: the search must still be complete.
	if err := db.ExecForTest(ctx, `INSERT OR IGNORE INTO chat_docs_dirty (chat_pk) SELECT pk FROM chats`); err != nil {
		t.Fatal(err)
	}
	if got, total := searchAll(t, db, searchFilter(t, "commonterm", all), false); total != wantTotal || len(got) != len(want) {
		t.Fatalf("with the index not built: %d chats (total %d), want %d", len(got), total, wantTotal)
	}
	// Migrations after 0007 that are not about the chat index stay applied.
	for _, q := range []string{`DROP TABLE chat_fts_vocab`, `DROP TABLE chat_fts`, `DROP TABLE chat_docs`, `DROP TABLE chat_docs_dirty`,
		`DROP TABLE chat_blocks`, `DROP TRIGGER chat_docs_entry_insert`, `DROP TRIGGER chat_docs_entry_delete`, `DROP TRIGGER chat_docs_entry_update`,
		`DROP TRIGGER chat_docs_chat_insert`, `DROP TRIGGER chat_docs_chat_delete`, `DROP TRIGGER chat_docs_chat_update`,
		`DROP TRIGGER chat_docs_chat_owner`, `DELETE FROM schema_migrations WHERE version IN (7, 8, 10)`} {
		if err := db.ExecForTest(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	var calls, last int
	db, err = sqlite.Open(ctx, path, sqlite.Options{Progress: func(done, total int) { calls, last = calls+1, done }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if calls == 0 || last != 30 {
		t.Fatalf("progress: %d calls, last %d; want at least one, ending at 30 chats", calls, last)
	}
	mustCheckIndex(t, db)
	wantSameAsEntryRanking(t, db, "commonterm", all, "")
	wantSameAsEntryRanking(t, db, "mediumterm commonterm", all, annals.SortRecent)
}

// TestInterleavedChatsCountTheirOwnMatches: two chats written turn by turn, so that each chat's
// entry rowids span the other's; each counts only its own matching entries.
func TestInterleavedChatsCountTheirOwnMatches(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for _, id := range []string{"p", "q"} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		id, text := "p", "word here"
		if i%2 == 1 {
			id = "q"
		}
		if i == 4 {
			text = "nothing"
		}
		if _, err := annals.AppendEntries(ctx, db, id, []*annals.Entry{{ID: fmt.Sprint(i), Kind: annals.KindUser, Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	hits, _ := searchAll(t, db, searchFilter(t, "word", annals.Owner{TenantID: "t"}), true)
	got := summarize(hits)
	if got["p"].Matches != 2 || got["q"].Matches != 2 {
		t.Fatalf("matches %+v, want p and q 2 each", got)
	}
	wantSameAsEntryRanking(t, db, "word", annals.Owner{TenantID: "t"}, "")
}
