package codex_test

import (
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestCodexCachedTokensAreKept: a token_count's cached_input_tokens (part of its input_tokens)
// become the run's cache reads, and the last call's prompt its context; `codex exec --json`'s
// turn.completed names the cached part too.
func TestCodexCachedTokensAreKept(t *testing.T) {
	const rollout = "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"
	_, _, rs := importertest.StoredChat(t, openDB(t), "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000", []string{"codex"}, importertest.Testdata("codex", rollout))
	if len(rs) != 1 || rs[0].InputTokens != 900 || rs[0].CacheReadTokens != 100 || rs[0].ContextTokens != 900 {
		for _, r := range rs {
			t.Logf("run %+v", *r)
		}
		t.Errorf("%d runs, want one of 900 input tokens, 100 of them cached, context 900", len(rs))
	}
	const exec = "codex:0199a213-81c0-7800-8aa1-bbab2a035a53/exec"
	_, _, rs = importertest.StoredChat(t, openDB(t), exec, importer.Names(importer.Formats()), importertest.Testdata("codex", "codex-exec.jsonl"))
	if len(rs) != 1 || rs[0].InputTokens != 24763 || rs[0].CacheReadTokens != 24448 {
		t.Errorf("exec runs %+v, want 24763 input tokens, 24448 of them cached", rs)
	}
}
