package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
)

// A database written before migration 0013 holds placeholder words in its indexes. Opening it
// re-indexes them: the placeholder's words are no longer found, the rest still is, and FTS5's
// integrity check (index against content) holds.
func TestOldIndexesForgetPlaceholderWordsOnOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	if err := createPrivateFile(path); err != nil {
		t.Fatal(err)
	}
	if err := registerIndexText(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", dsn(path, Options{}, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version >= 13 {
			break
		}
		if _, err := applyMigration(ctx, raw, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Rows as version 12 wrote and indexed them: the stored text, placeholders and all.
	for _, q := range []string{
		`INSERT INTO chats (pk, id, tenant_id, created_at, last_activity, title) VALUES (1, 'c1', 't', 1, 1, 'Rotate [redacted:github_token]')`,
		`INSERT INTO entries (pk, chat_pk, id, seq, kind, time, text) VALUES (1, 1, 'e1', 1, 'user', 1, 'deploy key [redacted:aws_access_key] done')`,
		`INSERT INTO entries_fts (rowid, text, reasoning, tool_name, tool_args, tool_result)
			SELECT e.pk, e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result FROM entries_unindexed u JOIN entries e ON e.pk = u.pk`,
		`INSERT INTO entries_tri (rowid, text, reasoning, tool_name, tool_args, tool_result)
			SELECT e.pk, e.text, e.reasoning, e.tool_name, e.tool_args, e.tool_result FROM entries_unindexed u JOIN entries e ON e.pk = u.pk
			WHERE NOT EXISTS (SELECT 1 FROM entries_tri_todo t WHERE u.pk > t.done AND u.pk <= t.last)`,
		`DELETE FROM entries_unindexed`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var before int
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'aws'`).Scan(&before); err != nil || before != 1 {
		t.Fatalf("the version 12 index: %d matches for aws (%v), want 1", before, err)
	}
	raw.Close()

	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("integrity after the migration: %v", annals.ErrorDetail(err))
	}
	owner := annals.Owner{TenantID: "t"}
	for _, tc := range []struct {
		term string
		want []string
	}{{"aws", nil}, {"access", nil}, {"github", nil}, {"redacted", nil}, {"deploy", []string{"c1"}}, {"rotate", []string{"c1"}}} {
		entries, err := db.MatchEntries(ctx, annals.TextMatch{Owner: owner, Terms: []string{tc.term}})
		if err != nil {
			t.Fatal(err)
		}
		chats, err := db.MatchChats(ctx, annals.TextMatch{Owner: owner, Terms: []string{tc.term}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.ChatID)
		}
		got = append(got, chats...)
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q after the migration: %v, want %v", tc.term, got, tc.want)
		}
	}
	// Rewriting the title and deleting the chat after the migration leave the indexes
	// consistent: the triggers remove exactly what was indexed.
	c, err := db.FindChatByID(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	title := "Rotated [redacted:npm_token]"
	if c, err = db.UpdateChat(ctx, c.Ref(), annals.ChatUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("integrity after a rename: %v", annals.ErrorDetail(err))
	}
	if err := db.DeleteChat(ctx, c.Ref()); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("integrity after a delete: %v", annals.ErrorDetail(err))
	}
}

// The index check sees an entry indexed with its stored text instead of its index text: the
// state a write that bypassed annals_index_text would leave.
func TestCheckIndexSeesPlaceholderWordsInTheIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "annals.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "key [redacted:aws_access_key]"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("a fresh index: %v", annals.ErrorDetail(err))
	}
	for _, q := range []string{
		`INSERT INTO entries_fts (entries_fts, rowid, text, reasoning, tool_name, tool_args, tool_result)
			SELECT 'delete', pk, annals_index_text(text), reasoning, tool_name, tool_args, tool_result FROM entries`,
		`INSERT INTO entries_fts (rowid, text, reasoning, tool_name, tool_args, tool_result)
			SELECT pk, text, reasoning, tool_name, tool_args, tool_result FROM entries`,
	} {
		if _, err := db.writer.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CheckIndex(ctx); err == nil {
		t.Fatal("an entry indexed with the placeholder's words passed the check")
	}
}
