package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
	"github.com/annals-dev/annals/redact"
)

// searchIDs runs a chat search as owner and returns the ids of the page and the total.
func searchIDs(t *testing.T, db annals.Store, owner annals.Owner, q string) ([]string, int) {
	t.Helper()
	parsed, err := query.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	hits, total, err := db.SearchChats(context.Background(), annals.SearchFilter{Chat: annals.ChatFilter{Owner: owner}, Text: query.ToTextExpr(parsed.Text), Snippets: 1})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Chat.ID
	}
	return ids, total
}

var seqID atomic.Int64

func mustAppend(t *testing.T, db annals.Store, chat string, texts ...string) {
	t.Helper()
	entries := make([]*annals.Entry, len(texts))
	for i, s := range texts {
		entries[i] = &annals.Entry{ID: fmt.Sprintf("%s-%d-%d", chat, len(s), i) + fmt.Sprint(seqID.Add(1)), Kind: annals.KindUser, Text: s}
	}
	if _, err := annals.AppendEntries(context.Background(), db, chat, entries); err != nil {
		t.Fatal(err)
	}
}

// The chat document follows its chat: a word appended is found, a truncated one is not, a
// secret a rescan redacts is found no more, and a deleted chat leaves no document; after each
// step the documents equal a build from scratch (CheckIndex).
func TestChatDocumentFollowsAppendTruncateRescanDelete(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	owner := annals.Owner{TenantID: "A"}
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A"}); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		if err := db.CheckIndex(ctx); err != nil {
			t.Fatalf("after %s: %v", step, err)
		}
	}
	mustAppend(t, db, "c1", "alpha beta", "gamma")
	mustAppend(t, db, "c1", "delta TICKET-123456")
	check("append")
	if ids, total := searchIDs(t, db, owner, "delta gamma"); total != 1 || len(ids) != 1 {
		t.Fatalf("words of two appends: %v (total %d), want c1", ids, total)
	}
	if _, err := annals.TruncateChat(ctx, db, "c1", annals.TruncatePoint{Seq: 3}); err != nil {
		t.Fatal(err)
	}
	check("truncate")
	if ids, total := searchIDs(t, db, owner, "delta"); total != 0 || len(ids) != 0 {
		t.Errorf("a truncated word is still found: %v (total %d)", ids, total)
	}
	if ids, _ := searchIDs(t, db, owner, "alpha"); len(ids) != 1 {
		t.Errorf("a word before the truncation point is lost: %v", ids)
	}
	mustAppend(t, db, "c1", "see TICKET-654321")
	r, err := redact.New(redact.Config{Custom: []redact.CustomRule{{Name: "ticket", Pattern: `TICKET-[0-9]{6}`}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Rescan(ctx, r, nil); err != nil {
		t.Fatal(err)
	}
	check("rescan")
	if ids, _ := searchIDs(t, db, owner, "654321"); len(ids) != 0 {
		t.Errorf("a redacted secret is still found through the chat document: %v", ids)
	}
	c, err := db.FindChatByID(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteChat(ctx, c.Ref()); err != nil {
		t.Fatal(err)
	}
	check("delete")
	if n := db.CountRowsForTest(t, `SELECT count(*) FROM chat_docs`); n != 0 {
		t.Errorf("a deleted chat leaves %d document parts", n)
	}
	if ids, _ := searchIDs(t, db, owner, "alpha"); len(ids) != 0 {
		t.Errorf("a deleted chat is still found: %v", ids)
	}
}

// A chat longer than one document part (64 KiB of entry vectors) is split, and a word of any
// part, and the AND of words in different parts, still find it once.
func TestLongChatDocumentParts(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "long", TenantID: "A"}); err != nil {
		t.Fatal(err)
	}
	for batch := range 6 {
		texts := make([]string, 100)
		for i := range texts {
			var words []string
			for k := range 40 {
				words = append(words, fmt.Sprintf("f%dy%dz%d", batch, i, k))
			}
			texts[i] = fmt.Sprintf("w%dx%d %s", batch, i, strings.Join(words, " "))
		}
		mustAppend(t, db, "long", texts...)
	}
	mustAppend(t, db, "long", "lastword")
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatal(err)
	}
	parts := db.CountRowsForTest(t, `SELECT count(*) FROM chat_docs`)
	if parts < 2 {
		t.Fatalf("the long chat has %d document parts, want several", parts)
	}
	owner := annals.Owner{TenantID: "A"}
	for _, q := range []string{"w0x0", "lastword", "w0x0 lastword", "w5x99 w0x1"} {
		if ids, total := searchIDs(t, db, owner, q); total != 1 || len(ids) != 1 {
			t.Errorf("%q on a chat of %d parts: %v (total %d), want the chat once", q, parts, ids, total)
		}
	}
}

// The owner is inside the chat index: a member's search reads only documents of its tenant (the
// GIN scan itself is narrowed, so the total and the ranking statistics are the tenant's), and a
// prefix or a word equal to an owner marker never matches one.
func TestChatDocumentOwnerIsolation(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for _, c := range []struct{ id, tenant, user string }{{"a1", "A", "u1"}, {"a2", "A", "u2"}, {"b1", "B", "u1"}, {"b2", "B", "u1"}} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: c.id, TenantID: c.tenant, UserID: c.user}); err != nil {
			t.Fatal(err)
		}
		mustAppend(t, db, c.id, "shared word", "shared again "+c.id)
	}
	if ids, total := searchIDs(t, db, annals.Owner{TenantID: "A"}, "shared"); total != 2 || len(ids) != 2 || strings.Contains(strings.Join(ids, ","), "b") {
		t.Errorf("tenant A finds %v (total %d), want a1, a2", ids, total)
	}
	if ids, total := searchIDs(t, db, annals.Owner{TenantID: "A", UserID: "u1"}, "shared"); total != 1 || len(ids) != 1 || ids[0] != "a1" {
		t.Errorf("user u1 of tenant A finds %v (total %d), want a1", ids, total)
	}
	if ids, total := searchIDs(t, db, annals.Owner{AllTenants: true}, "shared"); total != 4 || len(ids) != 4 {
		t.Errorf("every tenant finds %v (total %d), want 4", ids, total)
	}
	if ids, _ := searchIDs(t, db, annals.Owner{}, "shared"); len(ids) != 0 {
		t.Errorf("the zero owner finds %v, want nothing", ids)
	}
	// The index scan for tenant A returns A's documents only.
	if n := db.DocMatchesForTest(t, annals.Owner{TenantID: "A"}, "shared"); n != 2 {
		t.Errorf("tenant A's GIN scan returns %d documents, want 2", n)
	}
	for _, q := range []string{"t*", "u*", "2shared", "16shared", "shared*"} {
		ids, _ := searchIDs(t, db, annals.Owner{TenantID: "A"}, q)
		if q == "shared*" && len(ids) != 2 || q != "shared*" && len(ids) != 0 {
			t.Errorf("%q finds %v", q, ids)
		}
	}
}

// Relevance over chat documents counts how often a word occurs in the chat: of two chats alike
// but for that, the one saying it more often ranks first, whichever is newer.
func TestChatDocumentRanksByTermFrequency(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for _, id := range []string{"often", "once"} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: id, TenantID: "A"}); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(t, db, "often", "kubernetes pods", "kubernetes nodes", "kubernetes services", "kubernetes ingress", "other words")
	mustAppend(t, db, "once", "kubernetes pods", "helm charts", "helm values", "other words", "more words")
	ids, total := searchIDs(t, db, annals.Owner{TenantID: "A"}, "kubernetes")
	if total != 2 || len(ids) != 2 || ids[0] != "often" {
		t.Errorf("ranking = %v (total %d), want often first", ids, total)
	}
	ids, _ = searchIDs(t, db, annals.Owner{TenantID: "A"}, "kubernetes -helm")
	if len(ids) != 1 || ids[0] != "often" {
		t.Errorf("kubernetes -helm = %v, want often", ids)
	}
}

// One capture appending to several chats refreshes their documents in one statement
// (annals_refresh_chat_docs): each chat's parts, counted from its own entries only, and the
// vocabulary's counts are what the one-chat definition builds from scratch (CheckIndex), for a
// chat with a document split into parts, a new chat, and a chat of another tenant.
func TestChatDocumentsOfSeveralChatsInOneCapture(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for _, c := range []*annals.Chat{{ID: "a", TenantID: "A"}, {ID: "c", TenantID: "B"}} {
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
	}
	entries := func(chat string, n, words int) []*annals.Entry {
		es := make([]*annals.Entry, n)
		for i := range es {
			ws := make([]string, words)
			for k := range ws {
				ws[k] = fmt.Sprintf("%sw%dk%d", chat, i, k)
			}
			es[i] = &annals.Entry{ID: fmt.Sprintf("%s-%d-%d", chat, words, i), Kind: annals.KindUser, Text: "shared " + strings.Join(ws, " ")}
		}
		return es
	}
	if _, err := annals.AppendEntries(ctx, db, "a", entries("a", 60, 40)); err != nil {
		t.Fatal(err)
	}
	ops := []annals.CaptureOp{
		{Append: &annals.AppendOp{ChatID: "a", Entries: entries("a", 150, 41)}},
		{Chat: &annals.Chat{ID: "b", TenantID: "A"}},
		{Append: &annals.AppendOp{ChatID: "b", Entries: entries("b", 3, 2)}},
		{Append: &annals.AppendOp{ChatID: "c", Entries: entries("c", 5, 3)}},
		{Append: &annals.AppendOp{ChatID: "a", Entries: entries("a", 2, 1)}},
	}
	if _, err := db.Capture(ctx, ops); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if parts := db.CountRowsForTest(t, `SELECT count(*) FROM chat_docs WHERE chat_pk = (SELECT pk FROM chats WHERE id = 'a')`); parts < 2 {
		t.Fatalf("chat a has %d document parts, want several", parts)
	}
	for q, want := range map[string]int{"shared": 2, "aw0k0": 1, "bw2k1": 1, "aw1k0": 1} {
		if _, total := searchIDs(t, db, annals.Owner{TenantID: "A"}, q); total != want {
			t.Errorf("%q in tenant A: %d chats, want %d", q, total, want)
		}
	}
}

// A capture merges the documents of the chats it only appends to in Go (search_docs_build.go),
// from the chat's last part on. A document that does not end right before the new entries (its
// parts gone, as here, or a writer that appended without refreshing it) is left to the SQL
// refresh, which merges every entry past the document's end: the parts are then what a build
// from scratch gives, not the new entries' alone.
func TestChatDocumentBehindItsEntriesIsRefreshedWhole(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, db, "c1", "kubernetes rollout", "helm chart")
	if err := db.ExecForTest(ctx, `DELETE FROM chat_docs`); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, db, "c1", "terraform plan")
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if ids, _ := searchIDs(t, db, annals.Owner{TenantID: "A"}, "kubernetes terraform"); len(ids) != 1 {
		t.Errorf("kubernetes terraform = %v, want c1", ids)
	}
}
