package historytest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// testCrossTenantRaces forces, raceIterations times per op, the interleaving a hostile test found
// open: tenant A's member fetches and checks her own chat X; before the write lands, X is deleted
// and tenant B creates a chat with the id X. The write must land nowhere (not found), and B's
// chat must be exactly as B left it; recap must not even read B's transcript.
func testCrossTenantRaces(t *testing.T, open Opener) {
	ctxA := as(member("A", "ua1", "aa1", annals.ScopeUser, annals.ScopeSelf))
	// The four interleavings the hostile test found run raceIterations times each; the other
	// writes through the same paths a tenth as often.
	ops := []struct {
		name string
		n    int
		run  func(svc service, id string) error
	}{
		{"delete", raceIterations, func(svc service, id string) error {
			_, err := svc.Delete(ctxA, &envelope.Request{Op: history.OpDelete, SessionID: id})
			return err
		}},
		{"rename", raceIterations, func(svc service, id string) error {
			_, err := svc.Rename(ctxA, &envelope.Request{Op: history.OpRename, SessionID: id, Title: ptr("written by A")})
			return err
		}},
		{"pin", raceIterations/10 + 1, func(svc service, id string) error {
			_, err := svc.Pin(ctxA, &envelope.Request{Op: history.OpPin, SessionID: id})
			return err
		}},
		{"recap", raceIterations, func(svc service, id string) error {
			_, err := svc.Recap(ctxA, &envelope.Request{Op: history.OpRecap, SessionID: id})
			return err
		}},
		// Reads through a fetched chat are bound to it too: nothing of B's comes back to A.
		{"get", raceIterations/10 + 1, func(svc service, id string) error {
			res, err := svc.Get(ctxA, &envelope.Request{Op: history.OpGet, SessionID: id})
			switch {
			case err != nil:
				return err
			case len(res.Entries) > 0 || res.Chat.TenantID != "A":
				return annals.Errorf(annals.EINTERNAL, "get returned B's chat or %d of its entries to A", len(res.Entries))
			}
			// The chat as A checked it, with the page bound to it: empty, since it is gone.
			return annals.NotFound(id)
		}},
		{"markdown", raceIterations/10 + 1, func(svc service, id string) error {
			_, err := svc.Get(ctxA, &envelope.Request{Op: history.OpGet, SessionID: id, Format: history.FormatMarkdown})
			return err
		}},
		{"runs", raceIterations/10 + 1, func(svc service, id string) error {
			_, err := svc.Runs(ctxA, &envelope.Request{Op: history.OpGet, SessionID: id})
			return err
		}},
		{"append", raceIterations, func(svc service, id string) error {
			_, err := annals.AppendEntries(ctxA, svc, id, []*annals.Entry{{ID: "from-a", Kind: annals.KindUser, Text: "written by A"}})
			return err
		}},
		{"truncate", raceIterations/10 + 1, func(svc service, id string) error {
			_, err := annals.TruncateChat(ctxA, svc, id, annals.TruncatePoint{Seq: 1})
			return err
		}},
		{"run", raceIterations/10 + 1, func(svc service, id string) error {
			_, err := annals.RecordRun(ctxA, svc, &annals.Run{ID: id + "-run", ChatID: id, Status: annals.StatusFailed, CostUSD: 99999})
			return err
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			store := newInterleavingStore(open(t))
			sum := &readingSummarizer{}
			svc := newService(history.Config{Store: store, Summarizer: sum})
			ctx := context.Background()
			for i := range op.n {
				id := "race-" + op.name + "-" + itoa(i)
				mine := &annals.Chat{ID: id, TenantID: "A", UserID: "ua1", AgentID: "aa1", Title: "A's own"}
				if _, err := annals.CreateChat(ctx, store, mine); err != nil {
					t.Fatal(err)
				}
				if _, err := annals.AppendEntries(ctx, store, id, []*annals.Entry{{ID: "a1", Kind: annals.KindUser, Text: "a-text"}}); err != nil {
					t.Fatal(err)
				}
				store.afterFind(id, func() { replaceWithTenantB(t, store.Store, id) })
				err := op.run(svc, id)
				if annals.ErrorCode(err) != annals.ENOTFOUND {
					t.Fatalf("iteration %d: %s by A after X passed to tenant B: err %v, want not_found", i, op.name, err)
				}
				wantTenantBUntouched(t, store.Store, id)
			}
			if sum.sawText("b-secret") {
				t.Errorf("recap handed tenant B's transcript to A's summarizer")
			}
		})
	}
	t.Run("concurrent", func(t *testing.T) { testConcurrentDeleteCreate(t, open) })
}

// replaceWithTenantB deletes a chat (as its owner would) and creates one with the same id in
// tenant B, with a transcript of its own.
func replaceWithTenantB(t *testing.T, s annals.Store, id string) {
	ctx := context.Background()
	c, err := s.FindChatByID(ctx, id)
	if err != nil {
		t.Errorf("interleave: find %s: %v", id, err)
		return
	}
	if err := s.DeleteChat(ctx, c.Ref()); err != nil {
		t.Errorf("interleave: delete %s: %v", id, err)
		return
	}
	if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: id, TenantID: "B", UserID: "ub1", AgentID: "ab1", Title: "B's title"}); err != nil {
		t.Errorf("interleave: create %s in B: %v", id, err)
		return
	}
	if _, err := annals.AppendEntries(ctx, s, id, []*annals.Entry{{ID: "b1", Kind: annals.KindUser, Text: "b-secret"}}); err != nil {
		t.Errorf("interleave: append to B's %s: %v", id, err)
	}
}

func wantTenantBUntouched(t *testing.T, s annals.Store, id string) {
	t.Helper()
	ctx := context.Background()
	c, err := s.FindChatByID(ctx, id)
	if err != nil {
		t.Fatalf("B's chat %s is gone: %v", id, err)
	}
	if c.TenantID != "B" || c.Title != "B's title" || c.Summary != "" || c.Pinned || c.Totals.Entries != 1 || c.Totals.Runs != 0 || c.Totals.CostUSD != 0 {
		t.Fatalf("B's chat %s was changed by A: tenant %q, title %q, summary %q, pinned %v, totals %+v", id, c.TenantID, c.Title, c.Summary, c.Pinned, c.Totals)
	}
	es, err := s.FindEntries(ctx, annals.EntryFilter{ChatID: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Text != "b-secret" {
		t.Fatalf("B's transcript of %s was changed by A: %d entries", id, len(es))
	}
}

// readingSummarizer records every text it was given, so a test can prove what it never saw.
type readingSummarizer struct {
	mu    sync.Mutex
	texts []string
}

func (r *readingSummarizer) Summarize(_ context.Context, _ *annals.Chat, entries []*annals.Entry) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range entries {
		r.texts = append(r.texts, e.Text)
		b.WriteString(e.Text + " ")
	}
	return "summary of " + b.String(), nil
}

func (r *readingSummarizer) sawText(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// testConcurrentDeleteCreate runs the same attack without the seam: A renames and appends to
// her chat while, concurrently, it is deleted and recreated for tenant B. Whatever the timing,
// B's chat never carries A's title or A's entry.
func testConcurrentDeleteCreate(t *testing.T, open Opener) {
	store := open(t)
	svc := newService(history.Config{Store: store})
	ctx := context.Background()
	ctxA := as(member("A", "ua1", "aa1", annals.ScopeUser))
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; i < raceIterations/5 && time.Now().Before(deadline); i++ {
		id := "conc-" + itoa(i)
		if _, err := annals.CreateChat(ctx, store, &annals.Chat{ID: id, TenantID: "A", UserID: "ua1", AgentID: "aa1"}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(3)
		go func() {
			defer wg.Done()
			_, _ = svc.Rename(ctxA, &envelope.Request{Op: history.OpRename, SessionID: id, Title: ptr("written by A")})
		}()
		go func() {
			defer wg.Done()
			_, _ = annals.AppendEntries(ctxA, svc, id, []*annals.Entry{{ID: "from-a", Kind: annals.KindUser, Text: "written by A"}})
		}()
		go func() {
			defer wg.Done()
			replaceWithTenantB(t, store, id)
		}()
		wg.Wait()
		c, err := store.FindChatByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.TenantID != "B" || c.Title != "B's title" {
			t.Fatalf("iteration %d: B's chat carries tenant %q title %q", i, c.TenantID, c.Title)
		}
		es, err := store.FindEntries(ctx, annals.EntryFilter{ChatID: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.ID == "from-a" {
				t.Fatalf("iteration %d: A's entry landed in B's chat", i)
			}
		}
	}
}
