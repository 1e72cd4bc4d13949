package claudecode_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/importer/importertest"
)

// TestCacheTokensAreKeptApart: a reply's usage names its cache reads and writes apart from
// input_tokens (Anthropic's API counts them apart); the run keeps the whole prompt as its input
// and the cache's part of it, and the prompt as the context's size.
func TestCacheTokensAreKeptApart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"parentUuid":null,"isSidechain":false,"cwd":"/home/dev/zoo","sessionId":"sess-cache","type":"user","message":{"role":"user","content":"Count the otters"},"uuid":"u1","timestamp":"2025-05-01T10:00:00.000Z"}
{"parentUuid":"u1","isSidechain":false,"cwd":"/home/dev/zoo","sessionId":"sess-cache","type":"assistant","message":{"id":"msg_c1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Seven otters."}],"usage":{"input_tokens":12,"cache_creation_input_tokens":3000,"cache_read_input_tokens":41000,"output_tokens":80}},"uuid":"a1","timestamp":"2025-05-01T10:00:02.000Z"}
`
	path := filepath.Join(dir, "sess-cache.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, rs := importertest.StoredChat(t, openDB(t), "claude-code:sess-cache", []string{"claude-code"}, path)
	if len(rs) != 1 {
		t.Fatalf("%d runs, want 1", len(rs))
	}
	r := rs[0]
	if r.InputTokens != 44012 || r.CacheReadTokens != 41000 || r.CacheCreationTokens != 3000 || r.ContextTokens != 44012 || r.OutputTokens != 80 {
		t.Errorf("run tokens in %d (cache read %d, written %d), context %d, out %d; want 44012 (41000, 3000), 44012, 80",
			r.InputTokens, r.CacheReadTokens, r.CacheCreationTokens, r.ContextTokens, r.OutputTokens)
	}
}
