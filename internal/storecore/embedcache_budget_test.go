package storecore

import "testing"

func TestVectorCacheStaysWithinItsBudget(t *testing.T) {
	c := newVectorCache(100) // floats
	for pk := range int64(1000) {
		c.put(pk, VectorStamp{ChatID: "c", Updated: pk}, make([]float32, 7))
		if c.floats > c.budget {
			t.Fatalf("after %d puts the cache holds %d floats, over its budget of %d", pk+1, c.floats, c.budget)
		}
		sum := 0
		for _, e := range c.byPK {
			sum += len(e.vec)
		}
		if sum != c.floats {
			t.Fatalf("the cache counts %d floats and holds %d", c.floats, sum)
		}
	}
	if _, ok := c.get(999, VectorStamp{ChatID: "c", Updated: 999}); !ok {
		t.Error("the vector just put is not there")
	}
	if _, ok := c.get(999, VectorStamp{ChatID: "c", Updated: 998}); ok {
		t.Error("a vector was served for another version of its row")
	}
	c.put(5, VectorStamp{}, make([]float32, 101)) // larger than the whole budget: not kept
	if _, ok := c.get(5, VectorStamp{}); ok || c.floats > c.budget {
		t.Errorf("a vector over the budget was kept (%d floats held)", c.floats)
	}
}
