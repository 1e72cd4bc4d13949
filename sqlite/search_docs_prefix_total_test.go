package sqlite_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// TestCappedPrefixSearchStopsAfterItsCandidates: a chat search for a prefix that stands for more
// words than a search expands (storecore.MaxPrefixWords) is partial already; with more matching
// chats than candidates it does not count the chats holding the words it searched (a second
// pass over every posting of those words): the total is the candidates ranked, a lower bound. A
// prefix within the cap, and any prefix newest first, is still counted exactly.
func TestCappedPrefixSearchStopsAfterItsCandidates(t *testing.T) {
	db := openTestDB(t)
	db.SetCandidatesForTest(3)
	words := make([]string, 70) // more than storecore.MaxPrefixWords (64)
	for i := range words {
		words[i] = fmt.Sprintf("zqword%02d", i)
	}
	sixChatsSaying(t, db, "the flaky build "+strings.Join(words, " "))
	capped := func(r countedSearch) bool {
		for _, x := range r.report.Explain().Expansions {
			if x.Capped {
				return true
			}
		}
		return false
	}
	if r := searchCounted(t, db, "zqword*", ""); r.hits != 2 || r.total != 3 || !r.atLeast || !capped(r) || r.counted {
		t.Errorf("zqword* (capped): %d hits, total %d (lower bound %v, capped %v, counted %v); want 2 hits of at least 3, capped, not counted", r.hits, r.total, r.atLeast, capped(r), r.counted)
	}
	// Newest first stops after the page, so a lower bound would be the page's end: counted.
	if r := searchCounted(t, db, "zqword*", annals.SortRecent); r.hits != 2 || r.total != 6 || r.atLeast || !r.counted {
		t.Errorf("zqword* newest first: %d hits, total %d (lower bound %v, counted %v); want 2 hits of exactly 6, counted", r.hits, r.total, r.atLeast, r.counted)
	}
	// Within the cap: the prefix finds exactly what it stands for, and the total is exact.
	if r := searchCounted(t, db, "flak*", ""); r.hits != 2 || r.total != 6 || r.atLeast || capped(r) || !r.counted {
		t.Errorf("flak*: %d hits, total %d (lower bound %v, capped %v, counted %v); want 2 hits of exactly 6, counted", r.hits, r.total, r.atLeast, capped(r), r.counted)
	}
	// Fewer matches than candidates: exact even when capped.
	db.SetCandidatesForTest(10)
	if r := searchCounted(t, db, "zqword*", ""); r.hits != 2 || r.total != 6 || r.atLeast {
		t.Errorf("zqword*, 10 candidates: %d hits, total %d (lower bound %v); want 2 hits of exactly 6", r.hits, r.total, r.atLeast)
	}
}
