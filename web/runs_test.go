package web_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// runReads is a store that counts the runs the service reads.
type runReads struct {
	history.Store
	mu       sync.Mutex
	allReads int // FindRuns calls (every run of a chat)
	byID     int // runs FindRunsByID answered
}

func (r *runReads) FindRuns(ctx context.Context, chatID string) ([]*annals.Run, error) {
	r.mu.Lock()
	r.allReads++
	r.mu.Unlock()
	return r.Store.FindRuns(ctx, chatID)
}

func (r *runReads) FindRunsByID(ctx context.Context, chatID string, ids []string) ([]*annals.Run, error) {
	runs, err := r.Store.FindRunsByID(ctx, chatID, ids)
	r.mu.Lock()
	r.byID += len(runs)
	r.mu.Unlock()
	return runs, err
}

// TestChatPageReadsOnlyItsOwnRuns: the chat page of a chat with many runs (one a turn) reads
// the runs of its page's entries alone, not every run of the chat, and still draws their
// boundaries with their model and estimated cost (issue 27: a long chat opens as fast as a
// short one).
func TestChatPageReadsOnlyItsOwnRuns(t *testing.T) {
	reads := &runReads{}
	e := newEnv(t, envOptions{wrap: func(s history.Store) history.Store { reads.Store = s; return reads }})
	const turns = 400
	var entries []*annals.Entry
	for i := range turns {
		entries = append(entries, &annals.Entry{Kind: annals.KindUser, Text: "question " + itoa(i+1), RunID: "run-" + itoa(i+1)})
	}
	e.chat(&annals.Chat{ID: "long", Title: "Long", CreatedAt: t0}, entries...)
	for i := range turns {
		e.run(&annals.Run{ID: "run-" + itoa(i+1), ChatID: "long", Status: annals.StatusCompleted, Model: "gpt-4o-2024-08-06",
			StartedAt: t0.Add(time.Duration(i) * time.Minute), InputTokens: 1_000_000})
	}
	c := client(t)
	for _, u := range []string{"/chats/long", "/chats/long?at=250", "/chats/long/entries?after=300&run=run-300"} {
		reads.mu.Lock()
		reads.allReads, reads.byID = 0, 0
		reads.mu.Unlock()
		a := do(t, c, "GET", e.url+u, nil, nil)
		if a.status != 200 {
			t.Fatalf("GET %s = %d\n%s", u, a.status, a.body)
		}
		boundaries := strings.Count(a.body, "$2.50 (estimated)")
		reads.mu.Lock()
		all, byID := reads.allReads, reads.byID
		reads.mu.Unlock()
		if all != 0 || byID > entryPage {
			t.Errorf("GET %s read every run %d times and %d runs by id; want the page's runs alone (at most %d)", u, all, byID, entryPage)
		}
		if boundaries == 0 || boundaries > byID {
			t.Errorf("GET %s drew %d priced run boundaries from %d runs read; want the page's, each estimated", u, boundaries, byID)
		}
	}
}

// entryPage is the chat page's page of entries (web's entryPageSize).
const entryPage = 100
