package storecore

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// Every length decodes exactly, the tail past the last group of four included, and no slice
// the arena hands out overlaps another.
func TestVectorArenaDecodesExactlyAndApart(t *testing.T) {
	a := &VectorArena{}
	var kept [][]float32
	var want [][]float32
	for n := 0; n < 11; n++ {
		in := make([]float32, n)
		b := make([]byte, 4*n)
		for i := range in {
			in[i] = float32(i)*1.5 - 3 + float32(n)
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(in[i]))
		}
		got, ok := a.Decode(b)
		if !ok || !slices.Equal(got, in) {
			t.Fatalf("n=%d: got %v, want %v", n, got, in)
		}
		kept, want = append(kept, got), append(want, in)
	}
	for i := range kept {
		if !slices.Equal(kept[i], want[i]) {
			t.Errorf("vector %d was overwritten: %v, want %v", i, kept[i], want[i])
		}
	}
	if _, ok := a.Decode(make([]byte, 7)); ok {
		t.Error("a blob of 7 bytes decoded")
	}
}
