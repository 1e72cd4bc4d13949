package historytest

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/view"
)

// readCounter is a view service that counts the reads of the kinds that carry messages.
type readCounter struct {
	view.Service
	n atomic.Int64
}

func (r *readCounter) ViewTranscript(ctx context.Context, scope annals.Scope, f view.TranscriptFilter) (*view.Page, error) {
	r.n.Add(1)
	return r.Service.ViewTranscript(ctx, scope, f)
}

func (r *readCounter) ViewEvents(ctx context.Context, scope annals.Scope, f view.EventsFilter) (*view.EventPage, error) {
	r.n.Add(1)
	return r.Service.ViewEvents(ctx, scope, f)
}

func (r *readCounter) ViewSearch(ctx context.Context, scope annals.Scope, f view.Filter) (*view.Page, error) {
	r.n.Add(1)
	return r.Service.ViewSearch(ctx, scope, f)
}

// testViewCache: a view with a cache (queryview.Cache) answers the same query again without
// reading the store until anything is committed, and never gives one owner's answer to another.
func testViewCache(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	reads := &readCounter{Service: f.svc}
	v := queryview.NewCached(reads, queryview.NewCache(1<<20))
	ua1 := as(member("A", "ua1", "aa1", annals.ScopeUser))
	ua2 := as(member("A", "ua2", "aa2", annals.ScopeUser))
	ask := func(ctx context.Context, body string) string {
		t.Helper()
		ans, err := v.Query(ctx, strings.NewReader(body))
		if err != nil {
			t.Fatalf("query %s: %v", body, err)
		}
		b, err := ans.(interface{ AppendJSON([]byte) ([]byte, error) }).AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	f.chat("talk", "A", "ua1", "", 0, ve(annals.KindUser, 1, "in/agent/main", "c9", "hello there"))
	queries := []string{`{"kind":"conversation","correlation":"c9"}`, `{"kind":"transcript","session":"talk"}`,
		`{"kind":"search","filter":{"text":"there"}}`}
	// generation is the store's committed state. PostgreSQL's is the cluster's: another test
	// committing to another database between the two asks moves it, and the pair is asked again.
	generation := func() uint64 {
		t.Helper()
		ver, ok, err := reads.ViewVersion(ua1, annals.ScopeUser)
		if err != nil || !ok {
			t.Fatalf("the store tells no generation: %v", err)
		}
		return ver.Generation
	}
	for _, q := range queries {
		for attempt := 1; ; attempt++ {
			before := generation()
			first := ask(ua1, q)
			if !strings.Contains(first, "hello there") {
				t.Fatalf("%s answered %s, want the message", q, first)
			}
			n := reads.n.Load()
			again := ask(ua1, q)
			read := reads.n.Load() != n
			if generation() != before && attempt < 50 {
				continue // something else committed in between: this pair proves nothing
			}
			if again != first {
				t.Errorf("%s asked again answered %s, want %s", q, again, first)
			}
			if read {
				t.Errorf("%s asked again with nothing committed read the store again", q)
			}
			break
		}
		// Another owner asking the same bytes reads its own answer: ua2 sees nothing of ua1's.
		if other := ask(ua2, q); strings.Contains(other, "hello there") {
			t.Errorf("%s as ua2 answered %s: ua1's kept answer", q, other)
		}
	}
	// A commit moves the generation: every query reads again and sees it.
	if _, err := annals.AppendEntries(context.Background(), f.store, "talk", []*annals.Entry{
		{ID: "talk-2", Kind: annals.KindAssistant, Time: vmin(2), CorrelationID: "c9", Text: "and there again"}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		n := reads.n.Load()
		if got := ask(ua1, q); !strings.Contains(got, "and there again") {
			t.Errorf("%s after a commit answered %s, want the new message", q, got)
		}
		if reads.n.Load() == n {
			t.Errorf("%s after a commit did not read the store", q)
		}
	}
}
