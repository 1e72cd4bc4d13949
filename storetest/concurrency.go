package storetest

import (
	"fmt"
	"sync"
	"testing"

	annals "github.com/annals-dev/annals"
)

func concurrencyTests() []test {
	return []test{
		{"ConcurrentAppendsToOneChatStayContiguous", testConcurrentAppends},
		{"ConcurrentSameBatchIsStoredOnce", testConcurrentSameBatch},
	}
}

// Small on purpose: 4 writers x 10 entries is enough to interleave transactions, and cheap
// under -race.
const (
	writers          = 4
	entriesPerWriter = 10
)

func testConcurrentAppends(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			// One entry per call, so the writers' transactions interleave as much as possible.
			for i := range entriesPerWriter {
				id := fmt.Sprintf("w%d-%02d", w, i)
				res, err := annals.AppendEntries(t.Context(), s, "c1", []*annals.Entry{TextEntry(id, annals.KindUser, "concurrent "+id)})
				if err != nil {
					t.Errorf("writer %d: AppendEntries(%s): %v", w, id, err)
					return
				}
				if res.Appended != 1 {
					t.Errorf("writer %d: AppendEntries(%s) appended %d, want 1", w, id, res.Appended)
				}
			}
		})
	}
	wg.Wait()

	got := mustEntries(t, s, "c1")
	const n = writers * entriesPerWriter
	if len(got) != n {
		t.Errorf("stored %d entries, want %d (no entry lost, none duplicated)", len(got), n)
	}
	seen := make(map[string]bool, len(got))
	last := make(map[int]int, writers) // each writer's last index seen, to check its own order
	for i, e := range got {
		if e.Seq != int64(i+1) {
			t.Errorf("entry %d (%q) seq = %d, want %d (seq must stay contiguous)", i, e.ID, e.Seq, i+1)
		}
		if seen[e.ID] {
			t.Errorf("entry %q stored twice", e.ID)
		}
		seen[e.ID] = true
		var w, k int
		if _, err := fmt.Sscanf(e.ID, "w%d-%d", &w, &k); err == nil {
			if prev, ok := last[w]; ok && k <= prev {
				t.Errorf("writer %d's entry %d is stored after its entry %d", w, k, prev)
			}
			last[w] = k
		}
	}
	if c := mustChat(t, s, "c1"); c.Totals.Entries != n {
		t.Errorf("Totals.Entries = %d, want %d", c.Totals.Entries, n)
	}
}

func testConcurrentSameBatch(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		appended, skipped int
	)
	for range writers {
		wg.Go(func() {
			// Each writer builds its own copy: a store may write to the entries it is handed.
			res, err := annals.AppendEntries(t.Context(), s, "c1", Entries("same", entriesPerWriter))
			if err != nil {
				t.Errorf("AppendEntries: %v", err)
				return
			}
			mu.Lock()
			appended += res.Appended
			skipped += res.Skipped
			mu.Unlock()
		})
	}
	wg.Wait()
	if appended != entriesPerWriter || skipped != (writers-1)*entriesPerWriter {
		t.Errorf("over %d identical appends: appended %d, skipped %d; want %d and %d",
			writers, appended, skipped, entriesPerWriter, (writers-1)*entriesPerWriter)
	}
	ids := make([]string, entriesPerWriter)
	for i, e := range Entries("same", entriesPerWriter) {
		ids[i] = e.ID
	}
	wantTranscript(t, mustEntries(t, s, "c1"), ids...)
}
