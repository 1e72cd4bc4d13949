package vector

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

func TestCosine(t *testing.T) {
	s := float32(1 / math.Sqrt(2))
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"identical", []float32{1, 0, 0}, []float32{1, 0, 0}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{0, 1}, []float32{0, -1}, -1},
		{"45 degrees", []float32{1, 0}, []float32{s, s}, s},
		{"length mismatch", []float32{1, 0}, []float32{1, 0, 0}, 0},
		{"empty", nil, nil, 0},
		{"zero vector", []float32{0, 0, 0, 0, 0}, []float32{1, 0, 0, 0, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); math.Abs(float64(got-tt.want)) > 1e-6 {
				t.Errorf("Cosine = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEncodeDecodeVectorRoundTrip(t *testing.T) {
	v := []float32{0, 1, -1, 0.5, float32(math.Pi), math.SmallestNonzeroFloat32, math.MaxFloat32, float32(math.Inf(-1))}
	b := Encode(v)
	if len(b) != 4*len(v) {
		t.Fatalf("len(blob) = %d, want %d", len(b), 4*len(v))
	}
	// Little-endian: 1.0 is 0x3f800000, so its bytes are 00 00 80 3f.
	if got := b[4:8]; string(got) != "\x00\x00\x80\x3f" {
		t.Errorf("bytes of 1.0 = % x, want 00 00 80 3f", got)
	}
	got, ok := Decode(b)
	if !ok {
		t.Fatal("a whole blob did not decode")
	}
	if len(got) != len(v) {
		t.Fatalf("len = %d, want %d", len(got), len(v))
	}
	for i := range v {
		if math.Float32bits(got[i]) != math.Float32bits(v[i]) {
			t.Errorf("[%d] = %v, want %v", i, got[i], v[i])
		}
	}
	if got, ok := Decode(nil); !ok || len(got) != 0 {
		t.Errorf("Decode(nil) = %v, %v; want empty, true", got, ok)
	}
}

func TestDecodeVectorRejectsPartialFloat(t *testing.T) {
	if _, ok := Decode([]byte{1, 2, 3, 4, 5}); ok {
		t.Error("a blob of 5 bytes decoded")
	}
}

// Every length decodes exactly, the tail past the last group of four included, and no slice
// the arena hands out overlaps another.
func TestVectorArenaDecodesExactlyAndApart(t *testing.T) {
	a := &Arena{}
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
