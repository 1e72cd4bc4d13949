package postgres_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
)

// Rows indexed before placeholders stopped being words (their vectors hold "aws" from
// "[redacted:aws_access_key]") are re-indexed when a store opens: the words are no longer
// found, the rest still is, and every vector equals what the tokenizer builds today.
func TestOldVectorsForgetPlaceholderWordsOnOpen(t *testing.T) {
	ctx := context.Background()
	dsn := MustCreateSchema(t)
	db := MustOpen(t, dsn, postgres.Options{})
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t", Title: "Rotate [redacted:github_token]"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "deploy key [redacted:aws_access_key] done"}}); err != nil {
		t.Fatal(err)
	}
	// The vectors as the version before built them, and the queue migration 0007 fills.
	for _, q := range []string{
		`UPDATE entries SET tsv = to_tsvector('simple', 'deploy key redacted aws access key done')`,
		`UPDATE chat_meta SET meta_tsv = to_tsvector('simple', 'rotate redacted github token')`,
		`INSERT INTO placeholder_reindex (entry_pk) SELECT pk FROM entries`,
		`INSERT INTO placeholder_reindex (chat_pk) SELECT pk FROM chats`,
	} {
		if err := db.ExecForTest(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.CheckIndex(ctx); err == nil {
		t.Fatal("the old vectors pass the index check: the test set nothing up")
	}
	again := MustOpen(t, dsn, postgres.Options{})
	if err := again.CheckIndex(ctx); err != nil {
		t.Fatalf("after reopening: %v", annals.ErrorDetail(err))
	}
	owner := annals.Owner{TenantID: "t"}
	for _, tc := range []struct {
		term string
		want int
	}{{"aws", 0}, {"github", 0}, {"redacted", 0}, {"deploy", 1}, {"rotate", 1}} {
		entries, err := again.MatchEntries(ctx, annals.TextMatch{Owner: owner, Terms: []string{tc.term}})
		if err != nil {
			t.Fatal(err)
		}
		chats, err := again.MatchChats(ctx, annals.TextMatch{Owner: owner, Terms: []string{tc.term}})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(entries) + len(chats); got != tc.want {
			t.Errorf("%q after reopening: %d matches, want %d", tc.term, got, tc.want)
		}
	}
}
