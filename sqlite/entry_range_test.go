package sqlite_test

import (
	"strings"
	"testing"
)

// TestChatEntryRangeIsTwoSeeks: a search finds a page chat's entries within the chat's first
// and last entry pk (pageHits, recountMatches); both come from an index of the entries by chat
// in pk order, one seek each, not from a read of every entry of the chat.
func TestChatEntryRangeIsTwoSeeks(t *testing.T) {
	db := openTestDB(t)
	plan, err := db.ChatEntryRangePlanForTest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(plan, "COVERING INDEX entries_by_chat (chat_pk=?)"); n != 2 {
		t.Errorf("plan %q: the index entries_by_chat %d times, want 2 (the first and the last entry)", plan, n)
	}
}
