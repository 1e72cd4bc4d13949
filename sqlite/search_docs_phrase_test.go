package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals"
)

// TestPhraseSearchStopsAfterItsCandidates: a chat search by relevance for a phrase with more
// matching chats than candidates does not count them all (that would check the phrase's
// positions in every chat again): the total is the candidates, a lower bound the search report
// says. A single word is still counted exactly, and so is a phrase newest first.
func TestPhraseSearchStopsAfterItsCandidates(t *testing.T) {
	db := openTestDB(t)
	db.SetCandidatesForTest(3)
	sixChatsSaying(t, db, "run the flaky test again")
	if r := searchCounted(t, db, `"flaky test"`, ""); r.hits != 2 || r.total != 3 || !r.atLeast || r.counted {
		t.Errorf(`"flaky test": %d hits, total %d (lower bound %v, counted %v); want 2 hits of at least 3, not counted`, r.hits, r.total, r.atLeast, r.counted)
	}
	if r := searchCounted(t, db, "flaky", ""); r.hits != 2 || r.total != 6 || r.atLeast || !r.counted {
		t.Errorf("flaky: %d hits, total %d (lower bound %v, counted %v); want 2 hits of exactly 6", r.hits, r.total, r.atLeast, r.counted)
	}
	if r := searchCounted(t, db, `"flaky test"`, annals.SortRecent); r.hits != 2 || r.total != 6 || r.atLeast {
		t.Errorf(`"flaky test" newest first: %d hits, total %d (lower bound %v); want 2 hits of exactly 6`, r.hits, r.total, r.atLeast)
	}
	// Fewer matches than candidates: exact.
	db.SetCandidatesForTest(10)
	if r := searchCounted(t, db, `"flaky test"`, ""); r.hits != 2 || r.total != 6 || r.atLeast {
		t.Errorf(`"flaky test", 10 candidates: %d hits, total %d (lower bound %v); want 2 hits of exactly 6`, r.hits, r.total, r.atLeast)
	}
}
