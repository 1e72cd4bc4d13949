package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
)

// seedHistory writes a history that exercises everything a copy must keep: several tenants,
// attributes, tags, pinned, archived, summary, a rewind (so last activity is later than the last
// entry), every entry field, text holding a NUL, and runs recorded twice.
func seedHistory(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)
	for i := range 5 {
		id := fmt.Sprintf("chat-%d", i)
		c := &annals.Chat{ID: id, TenantID: []string{"A", "B"}[i%2], UserID: "u", AgentID: "g", CreatedAt: t0.Add(time.Duration(i) * time.Hour),
			Attributes: annals.Attributes{"source": "test", "repository": fmt.Sprintf("github.com/o/r%d", i)},
			Title:      fmt.Sprintf("Chat %d about emag.ro", i), Description: "desc\x00ription", Tags: []string{"z-last", "a-first", "q3-plan"}}
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
		var entries []*annals.Entry
		for j := range 12 {
			e := &annals.Entry{ID: fmt.Sprintf("%s-e%d", id, j), Kind: annals.KindUser, Time: c.CreatedAt.Add(time.Duration(j) * time.Second),
				Text: fmt.Sprintf("message %d of %s with café", j, id), SourceIDs: []string{fmt.Sprintf("src-%d", j)},
				Channel: "in/agent/g", CorrelationID: "corr", InputTokens: int64(j), Metadata: json.RawMessage(`{"k": [1, 2]}`)}
			if j%3 == 1 {
				e.Kind, e.Text, e.Reasoning = annals.KindAssistant, "answer\x00with nul", "because"
			}
			if j%3 == 2 {
				e.Kind, e.Text = annals.KindTool, ""
				e.Tool = &annals.ToolCall{Name: "Bash", CallID: "call", Arguments: json.RawMessage(`{"cmd":"ls -l"}`), Result: "ok", Outcome: annals.OutcomeFailed}
			}
			entries = append(entries, e)
		}
		if _, err := annals.AppendEntries(ctx, db, id, entries); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.TruncateChat(ctx, db, id, annals.TruncatePoint{Seq: 10}); err != nil {
			t.Fatal(err)
		}
		run := &annals.Run{ID: id + "-r1", ChatID: id, Status: annals.StatusRunning, Model: "m", StartedAt: c.CreatedAt}
		if _, err := annals.RecordRun(ctx, db, run); err != nil {
			t.Fatal(err)
		}
		end := c.CreatedAt.Add(time.Minute)
		run.Status, run.EndedAt, run.OutputTokens, run.CostUSD = annals.StatusCompleted, &end, 42, 0.125
		if _, err := annals.RecordRun(ctx, db, run); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.RecordRun(ctx, db, &annals.Run{ID: id + "-r2", ChatID: id, Status: annals.StatusFailed, StartedAt: c.CreatedAt.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		upd := annals.ChatUpdate{Summary: ptrTo("a summary"), Pinned: ptrTo(i%2 == 0)}
		if i == 3 {
			upd.Archived = ptrTo(true)
		}
		stored, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateChat(ctx, stored.Ref(), upd); err != nil {
			t.Fatal(err)
		}
	}
	// A chat with nothing but its creation.
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "bare", TenantID: "C", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// snapshot reads everything a copy must keep from a store, keyed by chat id.
type chatSnapshot struct {
	Chat    *annals.Chat
	Entries []*annals.Entry
	Runs    []*annals.Run
}

func snapshot(t *testing.T, location string) map[string]chatSnapshot {
	t.Helper()
	ctx := context.Background()
	s, err := openStore(ctx, location, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string]chatSnapshot{}
	ids, err := s.(annals.ChatCopier).ChatIDsAfter(ctx, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		c, err := s.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		es, err := s.FindEntries(ctx, annals.EntryFilter{ChatID: id})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := s.FindRuns(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out[id] = chatSnapshot{c, es, rs}
	}
	return out
}

func wantSameHistory(t *testing.T, what string, got, want map[string]chatSnapshot) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d chats, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("%s: chat %s missing", what, id)
			continue
		}
		// An incarnation is the store's own identity of a row: a copy is a new row. The
		// transcript revision is the store's own count of a transcript's changes (the digest's
		// staleness guard): a copy starts its own count from the entries it writes.
		gc, wc := *g.Chat, *w.Chat
		gc.Incarnation, wc.Incarnation = 0, 0
		gc.Revision, wc.Revision = 0, 0
		if !reflect.DeepEqual(gc, wc) {
			gj, _ := json.Marshal(g.Chat)
			wj, _ := json.Marshal(w.Chat)
			t.Errorf("%s: chat %s differs:\n got  %s\n want %s", what, id, gj, wj)
		}
		if !reflect.DeepEqual(g.Entries, w.Entries) {
			gj, _ := json.Marshal(g.Entries)
			wj, _ := json.Marshal(w.Entries)
			t.Errorf("%s: chat %s entries differ:\n got  %.600s\n want %.600s", what, id, gj, wj)
		}
		if !reflect.DeepEqual(g.Runs, w.Runs) {
			gj, _ := json.Marshal(g.Runs)
			wj, _ := json.Marshal(w.Runs)
			t.Errorf("%s: chat %s runs differ:\n got  %s\n want %s", what, id, gj, wj)
		}
	}
}
