package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// A read-only open of a file from an older annals never runs migration 0003, so the view must
// answer without its indexes (the search names one in a planner hint).
func TestViewAnswersWithoutItsIndexes(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := db.CreateChat(ctx, &annals.Chat{ID: "c1", TenantID: "A", AgentID: "main"}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)
	if _, err := db.AppendEntries(ctx, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hello", Channel: "in/agent/main", Time: at}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX entries_by_time`, `DROP INDEX entries_by_chat_channel`} {
		if err := db.ExecForTest(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	owner := annals.Owner{TenantID: "A"}
	page, err := db.ViewSearch(ctx, annals.ViewFilter{Owner: owner, Channels: []string{"in/agent"}})
	if err != nil {
		t.Fatalf("search without the view indexes: %v", err)
	}
	if len(page.Messages) != 1 || page.Messages[0].Session != "c1" {
		t.Errorf("search = %+v, want c1's one message", page.Messages)
	}
	agents, err := db.ViewAgents(ctx, annals.ViewAgentsFilter{Owner: owner})
	if err != nil {
		t.Fatalf("agents without the view indexes: %v", err)
	}
	if len(agents.Agents) != 1 || agents.Agents[0].Agent != "main" {
		t.Errorf("agents = %+v, want main", agents.Agents)
	}
}
