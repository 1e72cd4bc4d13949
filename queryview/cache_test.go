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
		{"long keys", func(i int) string { return fmt.Sprintf(`{"kind":"search","query":"%s-%d"}`, strings.Repeat("q", 2000), i) }},
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
