package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

// appendWords appends one entry per word (its text "<word> common"), one call each.
func appendWords(t *testing.T, db *sqlite.DB, chat string, words ...string) {
	t.Helper()
	for _, w := range words {
		e := &annals.Entry{ID: w, Kind: annals.KindUser, Text: w + " common"}
		if _, err := annals.AppendEntries(context.Background(), db, chat, []*annals.Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
}

func wordList(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("w%d", i))
	}
	return out
}

func mustBlocks(t *testing.T, db *sqlite.DB, id string) ([]sqlite.BlockForTest, int64) {
	t.Helper()
	b, head, err := db.BlocksForTest(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b, head
}

// TestAppendToLongChatTouchesOneBlock: with blocks of 4 entries, appends to a 10-entry chat
// leave its two sealed blocks as they were (same rowids, same index records) and rewrite only
// the head; once the head fills, exactly one block is sealed and the older ones stay.
func TestAppendToLongChatTouchesOneBlock(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetBlockLimitsForTest(4, 1<<20)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "long", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	appendWords(t, db, "long", wordList(0, 10)...)
	before, head := mustBlocks(t, db, "long")
	if len(before) != 2 || before[0].Size == "" || before[1].Size == "" {
		t.Fatalf("after 10 entries: blocks %+v, want 2 sealed blocks of 4 indexed", before)
	}
	appendWords(t, db, "long", "w10")
	after, head2 := mustBlocks(t, db, "long")
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("an append rewrote sealed blocks: before %+v, after %+v", before, after)
	}
	if head2 == head {
		t.Fatalf("the head kept its rowid %d after an append moved the chat's activity", head)
	}
	appendWords(t, db, "long", "w11", "w12")
	after, _ = mustBlocks(t, db, "long")
	if len(after) != 3 || !reflect.DeepEqual(after[:2], before) {
		t.Fatalf("after the head filled: blocks %+v, want the old two and one more", after)
	}
	mustCheckIndex(t, db)
	for _, w := range wordList(0, 13) {
		hits, total := searchAll(t, db, searchFilter(t, w, annals.Owner{TenantID: "t"}), true)
		if total != 1 || hits[0].Matches != 1 || len(hits[0].Snippets) != 1 {
			t.Fatalf("%s: %d hits (total %d), want the chat with its one entry", w, len(hits), total)
		}
	}
}

// TestBlocksSameAsFullRebuild: a chat grown by appends of every size has the blocks (ranges and
// index records) a rebuild from scratch gives it, and the same search answers.
func TestBlocksSameAsFullRebuild(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetBlockLimitsForTest(5, 120) // an entry is 9-30 bytes: both limits cut blocks
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "long", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, size := range []int{1, 3, 7, 1, 12, 2, 1, 30, 4} {
		var batch []*annals.Entry
		for range size {
			text := fmt.Sprintf("w%d common%s", n, strings.Repeat(" pad", n%6))
			batch = append(batch, &annals.Entry{ID: fmt.Sprint(n), Kind: annals.KindAssistant, Text: text})
			n++
		}
		if _, err := annals.AppendEntries(ctx, db, "long", batch); err != nil {
			t.Fatal(err)
		}
	}
	grown, _ := mustBlocks(t, db, "long")
	queries := []string{"common", "w3 w59", "w3 -w59", "common -w59", `"w7 common"`, "w1*", "w60 OR w2"}
	type answer struct {
		IDs     []string
		Total   int
		Matches []int
	}
	answers := func() []answer {
		var out []answer
		for _, q := range queries {
			hits, total := searchAll(t, db, searchFilter(t, q, annals.Owner{TenantID: "t"}), true)
			a := answer{Total: total}
			for _, h := range hits {
				a.IDs, a.Matches = append(a.IDs, h.Chat.ID), append(a.Matches, h.Matches)
			}
			out = append(out, a)
			wantSameAsEntryRanking(t, db, q, annals.Owner{TenantID: "t"}, "")
		}
		return out
	}
	want := answers()
	if err := db.ExecForTest(ctx, `INSERT INTO chat_docs_dirty (chat_pk, full) SELECT pk, 1 FROM chats WHERE true
		ON CONFLICT (chat_pk) DO UPDATE SET full = 1`); err != nil {
		t.Fatal(err)
	}
	if err := db.Optimize(ctx); err != nil { // a write transaction: it rebuilds what is dirty
		t.Fatal(err)
	}
	mustCheckIndex(t, db)
	rebuilt, _ := mustBlocks(t, db, "long")
	if len(rebuilt) != len(grown) || len(grown) < 8 {
		t.Fatalf("grown by appends: %d blocks, rebuilt: %d (want the same, at least 8)", len(grown), len(rebuilt))
	}
	for i := range grown {
		g, r := grown[i], rebuilt[i]
		if g.Lo != r.Lo || g.Hi != r.Hi || g.Size != r.Size {
			t.Fatalf("block %d: grown %+v, rebuilt %+v", i, g, r)
		}
	}
	if got := answers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("answers after the rebuild %+v, before %+v", got, want)
	}
	if want[1].Total != 1 || want[2].Total != 0 || want[3].Total != 0 {
		t.Fatalf("across blocks: %+v; want w3 w59 found, w3 -w59 and common -w59 not", want)
	}
}

// TestLongChatsFollowEveryWrite: truncating into a sealed block, redacting a word in one,
// archiving, another tenant's search, and deleting keep a long chat's blocks and answers right.
func TestLongChatsFollowEveryWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetBlockLimitsForTest(3, 1<<20)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "long", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	appendWords(t, db, "long", wordList(0, 12)...)
	appendWords(t, db, "long", "secretword")
	own := annals.Owner{TenantID: "t"}
	found := func(what, q string, want int) {
		t.Helper()
		mustCheckIndex(t, db)
		if _, total := searchAll(t, db, searchFilter(t, q, own), true); total != want {
			t.Fatalf("after %s: %q found %d chats, want %d", what, q, total, want)
		}
		wantSameAsEntryRanking(t, db, q, own, annals.SortRecent)
	}
	found("appends", "w1 w11", 1)
	if _, err := annals.TruncateChat(ctx, db, "long", annals.TruncatePoint{Seq: 5}); err != nil {
		t.Fatal(err)
	}
	found("truncate", "w5", 0)
	found("truncate", "w3", 1)
	appendWords(t, db, "long", wordList(20, 30)...)
	found("appends after truncate", "w0 w29 -w5", 1)
	if _, err := db.Rescan(ctx, wordRedactor{"w21"}, nil); err != nil {
		t.Fatal(err)
	}
	found("rescan", "w21", 0)
	found("rescan", "w22 w0", 1)
	found("another tenant", "common", 1)
	if _, total := searchAll(t, db, searchFilter(t, "common", annals.Owner{TenantID: "other"}), true); total != 0 {
		t.Fatalf("another tenant found the long chat")
	}
	c, err := db.FindChatByID(ctx, "long")
	if err != nil {
		t.Fatal(err)
	}
	archived := true
	if _, err := db.UpdateChat(ctx, c.Ref(), annals.ChatUpdate{Archived: &archived}); err != nil {
		t.Fatal(err)
	}
	found("archive", "w0", 0)
	if blocks, _ := mustBlocks(t, db, "long"); len(blocks) == 0 {
		t.Fatal("archiving dropped the sealed blocks")
	}
	c, _ = db.FindChatByID(ctx, "long")
	if err := db.DeleteChat(ctx, c.Ref()); err != nil {
		t.Fatal(err)
	}
	mustCheckIndex(t, db) // no orphaned block
}

// wordRedactor replaces one word, as a redaction rule would a secret.
type wordRedactor struct{ word string }

func (r wordRedactor) RedactText(s string) (string, int) {
	n := strings.Count(s, r.word)
	return strings.ReplaceAll(s, r.word, "[REDACTED]"), n
}

func (r wordRedactor) RedactEntry(e *annals.Entry) int {
	var n int
	e.Text, n = r.RedactText(e.Text)
	return n
}

// TestSmallBlocksAgreeWithEntryRanking is TestChatIndexAgreesWithEntryRanking's comparison with
// blocks small enough that most chats are long, so every query shape is answered across blocks.
func TestSmallBlocksAgreeWithEntryRanking(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	db.SetBlockLimitsForTest(8, 4096)
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 4, Entries: 2000, Chats: 40}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, db, &buf, ingest.Options{BatchSize: 37}); err != nil {
		t.Fatal(err)
	}
	mustCheckIndex(t, db)
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, Limit: 1})
	if err != nil || len(chats) == 0 {
		t.Fatalf("no chats: %v", err)
	}
	if blocks, _ := mustBlocks(t, db, chats[0].ID); len(blocks) == 0 {
		t.Fatalf("chat %s has no sealed blocks: the test would not test them", chats[0].ID)
	}
	c := chats[0]
	owners := []annals.Owner{{AllTenants: true}, {TenantID: c.TenantID}, {TenantID: c.TenantID, UserID: c.UserID}}
	for _, o := range owners {
		for _, q := range []string{"commonterm", "mediumterm commonterm", "commonterm -mediumterm", "commonterm OR zqxscarce",
			`"the test"`, "mediumt*", "in:title fix", "in:tools commonterm", "error (panic OR traceback)", "test -mediumt*"} {
			wantSameAsEntryRanking(t, db, q, o, "")
		}
		wantSameAsEntryRanking(t, db, "commonterm", o, annals.SortRecent)
	}
	db.SetCandidatesForTest(5)
	for _, o := range owners {
		wantSamePages(t, db, "commonterm", o, annals.SortRecent, 7)
		wantSamePages(t, db, "test -mediumterm", o, annals.SortRecent, 7)
	}
}
