package queryview

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// liveHeap is the heap still reachable after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The cache's bound holds for what it really keeps, not only for its answers' bytes: many small
// answers, under short or long keys, fill the process's heap by no more than the bound (each
// entry counts its key and its map slot and allocations besides its answer).
func TestCacheBoundHoldsForSmallAnswers(t *testing.T) {
	const bound = 4 << 20
	for _, tc := range []struct {
		name  string
		query func(i int) string
	}{
		{"short keys", func(i int) string { return fmt.Sprintf(`{"kind":"transcript","session_id":"s-%d"}`, i) }},
		{"long keys", func(i int) string {
			return fmt.Sprintf(`{"kind":"search","query":"%s-%d"}`, strings.Repeat("q", 2000), i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(bound)
			before := liveHeap()
			for i := range 200_000 {
				k := cacheKey{version: fmt.Sprintf("owner=t/u scope=own gen=%d", 7), query: tc.query(i)}
				c.put(7, k, []byte(fmt.Sprintf(`{"n":%d}`, i%10)))
			}
			grew := int64(liveHeap()) - int64(before)
			kept, counted := len(c.answers), c.bytes
			runtime.KeepAlive(c)
			if counted > bound {
				t.Fatalf("the cache counts %d bytes; bound %d", counted, bound)
			}
			if int64(counted) < grew {
				t.Fatalf("the cache counts %d bytes for %d answers that hold %d bytes of the heap", counted, kept, grew)
			}
			if grew > bound {
				t.Fatalf("%d small answers kept grew the live heap by %d bytes (%d an entry); the bound is %d", kept, grew, grew/int64(max(kept, 1)), bound)
			}
			t.Logf("%d answers kept, %d bytes counted, the live heap grew by %d bytes (%d an entry)", kept, counted, grew, grew/int64(max(kept, 1)))
		})
	}
}

// TestCacheLetsGoOfItsTableOnANewGeneration: after a commit (a new generation) the cache counts
// one answer, and the live heap holds about that, not the table the old answers filled (a
// cleared map keeps its table, which the bound does not count).
func TestCacheLetsGoOfItsTableOnANewGeneration(t *testing.T) {
	const bound = 4 << 20
	c := NewCache(bound)
	before := liveHeap()
	for i := range 100_000 {
		c.put(7, cacheKey{version: "owner=t/u scope=own", query: fmt.Sprintf(`{"kind":"transcript","session_id":"s-%d"}`, i)}, []byte(`{"n":1}`))
	}
	full := int64(liveHeap()) - int64(before)
	c.put(8, cacheKey{version: "owner=t/u scope=own", query: `{"kind":"transcript"}`}, []byte(`{"n":1}`))
	after := int64(liveHeap()) - int64(before)
	runtime.KeepAlive(c)
	if len(c.answers) != 1 || c.bytes > 1024 {
		t.Fatalf("after a new generation the cache holds %d answers, %d bytes counted; want the one", len(c.answers), c.bytes)
	}
	if after > full/4 {
		t.Errorf("after a new generation the live heap holds %d bytes of the cache (%d when full); want the old table gone", after, full)
	}
}
