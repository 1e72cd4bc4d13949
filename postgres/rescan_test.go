package postgres_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/redact"
)

// A rule added after capture: the rescan rewrites the stored rows and their tsvectors together,
// so the old secret is no longer found, the placeholder's words are not words, and the index
// still matches its rows.
func TestRescanRewritesRowsAndTheirIndex(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A", Title: "ticket TICKET-123456 triage"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", []*annals.Entry{
		{ID: "e1", Kind: annals.KindUser, Text: "see TICKET-123456 please"},
		{ID: "e2", Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "Bash", Result: "TICKET-123456 closed"}},
		{ID: "e3", Kind: annals.KindUser, Text: "nothing secret"},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := redact.New(redact.Config{Custom: []redact.CustomRule{{Name: "ticket", Pattern: `TICKET-[0-9]{6}`}}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := db.Rescan(ctx, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.EntriesScanned != 3 || rep.EntriesChanged != 2 || rep.ChatsScanned != 1 || rep.ChatsChanged != 1 {
		t.Errorf("report = %+v, want 3 entries scanned, 2 changed, 1 chat scanned and changed", rep)
	}
	owner := annals.Owner{TenantID: "A"}
	if refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: owner, Terms: []string{"123456"}}); err != nil || len(refs) != 0 {
		t.Errorf("the old secret is still found in entries: %v, %v", refs, err)
	}
	if ids, err := db.MatchChats(ctx, annals.TextMatch{Owner: owner, Terms: []string{"123456"}}); err != nil || len(ids) != 0 {
		t.Errorf("the old secret is still found in the title: %v, %v", ids, err)
	}
	// The rewritten rows are indexed again: their own words are found, and the placeholder's
	// words are not (a placeholder is never a searchable word, docs/REDACTION.md).
	if refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: owner, Terms: []string{"closed"}}); err != nil || len(refs) != 1 {
		t.Errorf("the rewritten tool result is not indexed by its words: %v, %v", refs, err)
	}
	if refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: owner, Terms: []string{"redacted ticket"}}); err != nil || len(refs) != 0 {
		t.Errorf("the placeholders' words are found: %v, %v", refs, err)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Errorf("CheckIndex after rescan: %v", err)
	}
	again, err := db.Rescan(ctx, r, nil)
	if err != nil || again.EntriesChanged != 0 || again.ChatsChanged != 0 {
		t.Errorf("a second rescan = %+v, %v; want nothing changed", again, err)
	}
}
