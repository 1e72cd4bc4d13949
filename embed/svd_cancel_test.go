package embed

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestBuildStopsWhenItsContextEnds: factorising a large vocabulary takes seconds per product
// (minutes at a million entries), and annals serve's shutdown waited for it. A build whose
// context has ended returns the context's error and no model.
func TestBuildStopsWhenItsContextEnds(t *testing.T) {
	words := make([]string, 0, 3000)
	for i := range 3000 {
		words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)))
	}
	c := newCounts(words)
	for i := 0; i+8 < len(words); i += 3 {
		c.add(words[i:i+8], 4)
	}
	if m, err := c.build(context.Background(), 16); err != nil || m == nil {
		t.Fatalf("build with a live context = %v, %v; want a model", m, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := c.build(ctx, 16)
	if !errors.Is(err, context.Canceled) || m != nil {
		t.Fatalf("build with an ended context = %v, %v; want no model and context.Canceled", m, err)
	}
}
