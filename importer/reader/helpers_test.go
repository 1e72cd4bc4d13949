package reader

import (
	"bytes"
	"runtime"
	"testing"
)

// TestShortHashBytes: the hash of a line given as bytes is ShortHash's, and the line is not
// copied for it.
func TestShortHashBytes(t *testing.T) {
	for _, s := range []string{"", "a", `{"type":"response_item","payload":{}}`} {
		if got, want := ShortHashBytes([]byte(s)), ShortHash(s); got != want {
			t.Errorf("ShortHashBytes(%q) = %s, want %s", s, got, want)
		}
	}
	line := bytes.Repeat([]byte("x"), 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ShortHashBytes(line)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("hashing a 1 MiB line allocated %d KiB, want no copy of it", n>>10)
	}
}
