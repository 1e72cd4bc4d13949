// Package embed provides annals.Embedder implementations for the related operation: Hashing, an
// offline default that needs no network and no model files, and OpenAI, a client for any
// OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp servers).
//
// Every embedder returns L2-normalised vectors; ranking them (Cosine) and their storage format
// live in internal/vector, which history and the stores share without importing a provider.
package embed

import "math"

// normalize scales v to unit L2 norm in place, accumulating in float64 so that the norm of a
// large vector is not thrown off by float32 rounding. A zero vector stays zero: there is no
// direction to keep, and Cosine then scores it 0 against everything.
func normalize(v []float32) {
	var ss float64
	for _, f := range v {
		ss += float64(f) * float64(f)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, f := range v {
		v[i] = float32(float64(f) * inv)
	}
}
