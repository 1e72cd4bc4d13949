package gemini_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/importer/importertest"
)

// TestCachedTokensAreKept: a reply's tokens.cached (part of its input) becomes the run's cache
// reads, and its input the context's size (one reply is one model call).
func TestCachedTokensAreKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-2025-07-05T10-00-cache.jsonl")
	lines := `{"sessionId":"gem-cache-1","projectHash":"feedbeef","startTime":"2025-07-05T10:00:00.000Z","lastUpdated":"2025-07-05T10:00:02.000Z","kind":"main"}
{"id":"g1","timestamp":"2025-07-05T10:00:01.000Z","type":"user","content":[{"text":"Name a lighthouse"}]}
{"id":"g2","timestamp":"2025-07-05T10:00:02.000Z","type":"gemini","content":"Eddystone.","model":"gemini-2.5-pro","tokens":{"input":9000,"output":5,"cached":8000,"thoughts":0,"tool":0,"total":9005}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, runs := importertest.StoredChat(t, openDB(t), "gemini-cli:gem-cache-1", []string{"gemini-cli"}, path)
	if len(runs) != 1 || runs[0].InputTokens != 9000 || runs[0].CacheReadTokens != 8000 || runs[0].ContextTokens != 9000 {
		t.Fatalf("runs %+v, want one of 9000 input tokens, 8000 read from the cache, context 9000", runs)
	}
}
