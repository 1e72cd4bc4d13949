package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRecapAgainstAnOpenAICompatibleServer is the docs/PROVIDERS.md example: `annals recap`
// with a summarizer block naming a local OpenAI-compatible server and the environment variable
// holding its key. The key is sent as a bearer token and never shown, even when the server
// echoes it in an error; a failure leaves the stored summary as it was.
func TestRecapAgainstAnOpenAICompatibleServer(t *testing.T) {
	const key = "sk-local-test-key-0123456789"
	var fail atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key || fail.Load() {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`)
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"**Goal:** migrate billing"}}],"usage":{"prompt_tokens":42,"completion_tokens":7}}`)
	}))
	defer srv.Close()
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"c1"}
{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"Migrate the billing service"}
`, "ingest")
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	yaml := "summarizer:\n  provider: openai\n  base_url: " + srv.URL + "/v1\n  api_key_env: LOCAL_LLM_KEY\n  model: llama3.1\n  retries: -1\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	tm.env["LOCAL_LLM_KEY"] = key
	if out := tm.mustRun("", "recap", "c1"); !strings.Contains(out, "**Goal:** migrate billing") {
		t.Fatalf("recap printed %q, want the server's summary", out)
	}
	fail.Store(true)
	stdout, stderr, err := tm.run("", "recap", "c1")
	if err == nil || strings.Contains(stdout+stderr+describe(err), key) || !strings.Contains(describe(err), "401") {
		t.Errorf("failed recap: %q %q %v; want a 401 error that hides the key", stdout, stderr, err)
	}
	if show := tm.mustRun("", "show", "c1"); !strings.Contains(show, "migrate billing") {
		t.Errorf("the stored summary did not survive the failed recap:\n%s", show)
	}
}
