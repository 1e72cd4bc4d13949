// Package vector is the one home of the embedding vector helpers: Cosine, which ranks vectors
// for the related operation, and the storage format of a vector (Encode, Decode, Arena) that
// both stores write and read. It is pure (standard library only), so history ranks without
// importing a provider and the stores keep vectors without a vector extension.
package vector

import (
	"encoding/binary"
	"math"
)

// Cosine returns the cosine similarity of two L2-normalised vectors, which for such vectors is
// their dot product. Vectors of different lengths come from different models or dimensions and
// are never comparable, so they score 0, as does an empty or zero vector (the embedding of an
// empty text). The result is clamped to [-1, 1] so rounding never reports more than identical.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	b = b[:len(a)] // lets the compiler drop the bounds checks in the loop
	// Four independent accumulators break the dependency chain of a single running sum, which
	// roughly doubles throughput on a 512-dimension vector.
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	s := (s0 + s1) + (s2 + s3)
	switch {
	case s > 1:
		return 1
	case s < -1:
		return -1
	}
	return s
}

// Encode returns v as a blob of little-endian IEEE-754 float32 values, 4 bytes each: the
// storage format of an embedding, compact, exact and fixed, so a database moves between
// platforms and backends unchanged.
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// Decode returns the float32s of a blob written by Encode in a slice of exactly their length,
// for a vector kept apart from the others read with it; ok is false when b is not a whole
// number of float32s (a corrupt blob, or not a vector at all).
func Decode(b []byte) ([]float32, bool) {
	if len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	decodeFloats(v, b)
	return v, true
}

// Arena hands out float32 slices from shared blocks, so a read of a few thousand vectors costs
// a few allocations rather than one per vector.
type Arena struct{ block []float32 }

// Decode is Decode with the slice taken from the arena's current block (the caller may keep
// it; no two slices overlap).
func (a *Arena) Decode(b []byte) ([]float32, bool) {
	n := len(b) / 4
	if len(b)%4 != 0 {
		return nil, false
	}
	if n > cap(a.block)-len(a.block) {
		a.block = make([]float32, 0, max(n, 1<<16))
	}
	start := len(a.block)
	a.block = a.block[:start+n]
	v := a.block[start : start+n : start+n]
	decodeFloats(v, b[:4*n])
	return v, true
}

// decodeFloats fills v from the little-endian float32s of b (len(b) == 4*len(v)), four at a
// time: the fixed-size subslices let the compiler drop the per-value bounds checks, which were
// most of the decoding time of a related query.
func decodeFloats(v []float32, b []byte) {
	i := 0
	for ; i+4 <= len(v); i += 4 {
		s := b[4*i : 4*i+16 : 4*i+16]
		w := v[i : i+4 : i+4]
		w[0] = math.Float32frombits(binary.LittleEndian.Uint32(s[0:4]))
		w[1] = math.Float32frombits(binary.LittleEndian.Uint32(s[4:8]))
		w[2] = math.Float32frombits(binary.LittleEndian.Uint32(s[8:12]))
		w[3] = math.Float32frombits(binary.LittleEndian.Uint32(s[12:16]))
	}
	for ; i < len(v); i++ {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
