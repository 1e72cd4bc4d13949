package importer_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/importer/importertest"
)

// TestMessagesExchangeKeepsTheCache: a recorded exchange whose Anthropic response names its
// cache reads and writes apart from input_tokens becomes a run whose input is the whole prompt,
// with the cache's part of it and the prompt as the context's size.
func TestMessagesExchangeKeepsTheCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cassette.json")
	doc := `[{"request": {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Name a lighthouse"}]},
  "response": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Eddystone."}],
    "usage": {"input_tokens": 10, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 90, "output_tokens": 5}}}]`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	p := importertest.MustParse(t, "messages", path)
	runs := importertest.SrcRuns(p)
	if len(runs) != 1 {
		t.Fatalf("runs %v, want one", runs)
	}
	for _, r := range runs {
		if r.InputTokens != 1000 || r.CacheReadTokens != 900 || r.CacheCreationTokens != 90 || r.ContextTokens != 1000 {
			t.Errorf("run %+v, want 1000 input tokens, 900 read from the cache, 90 written, context 1000", *r)
		}
	}
}
