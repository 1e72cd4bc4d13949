package history

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/vector"
)

// rankTop must start exactly as the stable sort of every candidate it replaced: the same chats,
// in the same order, equal scores in candidate order, non-positive scores left out.
func TestRankTopIsTheStartOfAStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		source := []float32{1, 0, 0}
		var cands []annals.ChatVector
		for i := 0; i < 1+r.IntN(60); i++ {
			// Few distinct vectors, so many scores tie; some point away (negative or zero).
			v := []float32{float32(r.IntN(5) - 1), float32(r.IntN(3)), 0}
			cands = append(cands, annals.ChatVector{ChatID: fmt.Sprint("c", i), Vector: v})
		}
		var all []scored
		for _, c := range cands {
			if sc := vector.Cosine(source, c.Vector); sc > 0 {
				all = append(all, scored{c.ChatID, sc})
			}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
		for _, depth := range []int{1, 3, 10, 100} {
			want := all[:min(depth, len(all))]
			if got := rankTop(source, cands, depth); !slices.Equal(got, want) {
				t.Fatalf("trial %d depth %d:\n got %v\nwant %v", trial, depth, got, want)
			}
		}
	}
}
