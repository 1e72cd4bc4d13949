package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// A read-only open of a file from an older annals never runs migration 0003, so the view must
// answer without its indexes (the search names one in a planner hint).
func TestViewAnswersWithoutItsIndexes(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A", AgentID: "main"}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)
	if _, err := annals.AppendEntries(ctx, db, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hello", Channel: "in/agent/main", Time: at}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX entries_by_time`, `DROP INDEX entries_by_chat_channel`} {
		if err := db.ExecForTest(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	owner := annals.Owner{TenantID: "A"}
	page, err := db.ViewSearch(ctx, view.Filter{Owner: owner, Channels: []string{"in/agent"}})
	if err != nil {
		t.Fatalf("search without the view indexes: %v", err)
	}
	if len(page.Messages) != 1 || page.Messages[0].Session != "c1" {
		t.Errorf("search = %+v, want c1's one message", page.Messages)
	}
	agents, err := db.ViewAgents(ctx, view.AgentsFilter{Owner: owner})
	if err != nil {
		t.Fatalf("agents without the view indexes: %v", err)
	}
	if len(agents.Agents) != 1 || agents.Agents[0].Agent != "main" {
		t.Errorf("agents = %+v, want main", agents.Agents)
	}
}

// A word in thousands of entries takes the newest-first walk instead of sorting every match;
// its pages must be exactly those of the sorted plan: newest first, every match once, nothing
// of another tenant.
func TestViewSearchOfACommonWordPagesEveryMatchNewestFirst(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	at := time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ id, tenant string }{{"a1", "A"}, {"a2", "A"}, {"b1", "B"}} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: c.id, TenantID: c.tenant}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	for batch := 0; batch < 5; batch++ {
		for _, chat := range []string{"a1", "a2", "b1"} {
			var es []*annals.Entry
			for i := 0; i < 1000; i++ {
				n := batch*1000 + i
				text := fmt.Sprintf("sigma %d", n)
				if n%7 == 0 {
					text = fmt.Sprintf("other %d", n)
				}
				// Times repeat across chats and within runs of three, so ties need the full order.
				es = append(es, &annals.Entry{ID: fmt.Sprintf("e%d", n), Kind: annals.KindUser, Text: text, Time: at.Add(time.Duration(n/3) * time.Second)})
				if chat != "b1" && n%7 != 0 {
					want[fmt.Sprintf("%s#%d", chat, n+1)] = true
				}
			}
			if _, err := annals.AppendEntries(ctx, db, chat, es); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []view.Message
	f := view.Filter{Owner: annals.Owner{TenantID: "A"}, Words: []string{"sigma"}, Limit: 500}
	for {
		page, err := db.ViewSearch(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Messages...)
		if !page.HasMore {
			break
		}
		f.After = page.Next
	}
	if len(got) != len(want) {
		t.Fatalf("got %d matches, want %d", len(got), len(want))
	}
	for i, m := range got {
		if !want[fmt.Sprintf("%s#%d", m.Session, m.ID)] {
			t.Fatalf("row %d: %s#%d is not a match in scope", i, m.Session, m.ID)
		}
		if i > 0 {
			p := got[i-1]
			if p.CreatedAt.Before(m.CreatedAt) || p.CreatedAt.Equal(m.CreatedAt) && (p.Session < m.Session || p.Session == m.Session && p.ID <= m.ID) {
				t.Fatalf("rows %d and %d out of order: %s#%d then %s#%d", i-1, i, p.Session, p.ID, m.Session, m.ID)
			}
		}
	}
}
