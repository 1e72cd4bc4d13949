package embed_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/internal/vector"
)

// BenchmarkCosineRank times what the related operation does after the store returns its
// candidates: the cosine of the source vector against each of the candidate cap's 2000 vectors
// of the default dimension, then ordering by score. Vectors come from the hashing embedder, so
// they are as sparse-but-normalised as real ones.
func BenchmarkCosineRank(b *testing.B) {
	h, err := embed.NewHashing(0)
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, annals.DefaultCandidateCap+1)
	for i := range texts {
		texts[i] = fmt.Sprintf("chat %d: fix the invoice rounding in billing/ledger.go, then rerun the flaky test %d", i, i%97)
	}
	vecs, err := h.Embed(context.Background(), texts)
	if err != nil {
		b.Fatal(err)
	}
	source, cands := vecs[0], vecs[1:]
	type scored struct {
		i     int
		score float32
	}
	ranked := make([]scored, 0, len(cands))
	for b.Loop() {
		ranked = ranked[:0]
		for i, c := range cands {
			if s := vector.Cosine(source, c); s > 0 {
				ranked = append(ranked, scored{i, s})
			}
		}
		slices.SortStableFunc(ranked, func(x, y scored) int {
			switch {
			case x.score > y.score:
				return -1
			case x.score < y.score:
				return 1
			}
			return 0
		})
	}
	b.ReportMetric(float64(len(cands)), "candidates")
}

// BenchmarkCosine times one cosine of two vectors of the default dimension.
func BenchmarkCosine(b *testing.B) {
	h, err := embed.NewHashing(0)
	if err != nil {
		b.Fatal(err)
	}
	v, err := h.Embed(context.Background(), []string{"invoice rounding in the ledger", "rounding errors in invoice totals"})
	if err != nil {
		b.Fatal(err)
	}
	var s float32
	for b.Loop() {
		s += vector.Cosine(v[0], v[1])
	}
	_ = s
}
