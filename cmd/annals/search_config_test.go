package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals/internal/providerhttp/providertest"
)

// embeddingsDouble is providertest.EmbeddingsServer (a provider that can go down).
func embeddingsDouble(t *testing.T, down *atomic.Bool) *httptest.Server {
	t.Helper()
	return providertest.EmbeddingsServer(t, down, nil)
}

// embeddedHistory is a test history whose chats an embedding server embedded, and the switch
// that takes that server down. extraConfig is appended to the config file.
func embeddedHistory(t *testing.T, extraConfig string) (*testMain, *atomic.Bool) {
	t.Helper()
	var down atomic.Bool
	srv := embeddingsDouble(t, &down)
	tm := newTestMain(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	yaml := "embedder:\n  provider: openai\n  base_url: " + srv.URL + "/v1\n  model: double\n  retries: -1\n" + extraConfig
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	tm.mustRun(twoChats, "ingest", "-") // embeds both chats with the server up
	return tm, &down
}

// rankExplained runs a search with --explain --json and returns its rank and reason.
func rankExplained(t *testing.T, tm *testMain, args ...string) (rank, reason string) {
	t.Helper()
	out := tm.mustRun("", append([]string{"search", "--explain", "--json"}, args...)...)
	var page struct {
		Explain struct {
			Rank       string `json:"rank"`
			RankReason string `json:"rank_reason"`
		} `json:"explain"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	return page.Explain.Rank, page.Explain.RankReason
}

// The query embedding's deadline is settable (search.query_embed_timeout, the
// ANNALS_QUERY_EMBED_TIMEOUT variable, --query-embed-timeout on search and serve; the flag
// first, then the variable, then the config) and reaches the search: with the provider hanging,
// a default search falls back to lexical after the configured deadline, which its explain names.
func TestQueryEmbedTimeoutIsSettable(t *testing.T) {
	tm, down := embeddedHistory(t, "search:\n  query_embed_timeout: 70ms\n")
	if rank, why := rankExplained(t, tm, "deploy"); rank != "hybrid" {
		t.Fatalf("with the provider up: rank %q (%s), want hybrid", rank, why)
	}
	down.Store(true)
	for _, c := range []struct {
		name, env string
		flags     []string
		want      string
	}{
		{"the config", "", nil, "within 70ms"},
		{"the variable over the config", "60ms", nil, "within 60ms"},
		{"the flag over both", "60ms", []string{"--query-embed-timeout", "50ms"}, "within 50ms"},
	} {
		tm.env[queryEmbedEnv] = c.env
		rank, why := rankExplained(t, tm, append(c.flags, "deploy")...)
		if rank != "lexical" || !strings.Contains(why, "hybrid fell back to lexical") || !strings.Contains(why, c.want) {
			t.Errorf("%s: a default search with the provider hanging ranked %q (%s); want lexical, %s", c.name, rank, why, c.want)
		}
	}
	tm.env[queryEmbedEnv] = ""

	// annals serve takes the flag too: a client's search is answered within the server's deadline.
	s := startServe(t, tm, "--query-embed-timeout", "40ms")
	defer s.stop()
	tm.env["ANNALS_SERVER"] = s.url
	if rank, why := rankExplained(t, tm, "deploy"); rank != "lexical" || !strings.Contains(why, "within 40ms") {
		t.Errorf("through annals serve --query-embed-timeout 40ms: rank %q (%s); want lexical within 40ms", rank, why)
	}
}

// A bad deadline is refused wherever it is written, naming where, the value and what is allowed.
func TestQueryEmbedTimeoutIsValidated(t *testing.T) {
	for _, bad := range []string{"0s", "-1s", "soon", "11m"} {
		tm := newTestMain(t)
		tm.mustRun(twoChats, "ingest", "-")
		_, _, err := tm.run("", "search", "--query-embed-timeout", bad, "deploy")
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), `--query-embed-timeout "`+bad+`" is not allowed: want a positive duration up to 10m0s`) {
			t.Errorf("--query-embed-timeout %s: %v; want a usage error naming the flag, the value and what is allowed", bad, err)
		}
		tm.env[queryEmbedEnv] = bad
		if _, _, err := tm.run("", "search", "deploy"); err == nil || !strings.Contains(err.Error(), queryEmbedEnv+` "`+bad+`" is not allowed: want a positive duration`) {
			t.Errorf("%s=%s: %v; want an error naming the variable, the value and what is allowed", queryEmbedEnv, bad, err)
		}
		tm.env[queryEmbedEnv] = ""
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(cfg, []byte("search:\n  query_embed_timeout: "+bad+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		tm.env["ANNALS_CONFIG"] = cfg
		if _, _, err := tm.run("", "list"); err == nil || !strings.Contains(err.Error(), `search.query_embed_timeout "`+bad+`" is not allowed: want a positive duration`) {
			t.Errorf("search.query_embed_timeout: %s: %v; want an error naming the key, the value and what is allowed", bad, err)
		}
	}
}
