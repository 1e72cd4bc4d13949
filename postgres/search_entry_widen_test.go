package postgres_test

import (
	"testing"

	"github.com/annals-dev/annals/postgres"
)

// TestWidenWithoutDensity: a window that found none of the walk's matches gives no density to
// size the next one by; the walk reads the table instead of dividing by zero.
func TestWidenWithoutDensity(t *testing.T) {
	if next, ok := postgres.Widen(64000, 0, 4000, 1_000_000); ok {
		t.Fatalf("widen after a window with no match: next %d, ok; want the table", next)
	}
	// One match in 64,000 of a 10M span: 256M entries needed, more than the span: the table.
	if _, ok := postgres.Widen(64000, 1, 4000, 10_000_000); ok {
		t.Fatal("widen past the span: ok; want the table")
	}
	// Half the matches found: at least twice the window.
	if next, ok := postgres.Widen(64000, 2000, 4000, 10_000_000); !ok || next < 128000 {
		t.Fatalf("widen after half the matches: %d, %v; want at least 128000, ok", next, ok)
	}
}
