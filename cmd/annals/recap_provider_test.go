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

// TestRecapUsesTheTenantsAndAgentsOwnProvider is docs/PROVIDERS.md's per-tenant example: one
// config, two tenants each with its own OpenAI-compatible server and key, an agent of tenant a
// with its own, and tenant c on the default. Each recap reaches only its owner's server with
// its owner's key.
func TestRecapUsesTheTenantsAndAgentsOwnProvider(t *testing.T) {
	type server struct {
		key  string
		seen atomic.Int32
		srv  *httptest.Server
	}
	newServer := func(name, key string) *server {
		s := &server{key: key}
		s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if got != s.key {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+got+`"}}`)
				return
			}
			s.seen.Add(1)
			io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"recap by `+name+`"}}],"usage":{"prompt_tokens":4,"completion_tokens":2}}`)
		}))
		t.Cleanup(s.srv.Close)
		return s
	}
	a, b, agent, def := newServer("a", "sk-tenant-a-1111111111"), newServer("b", "sk-tenant-b-2222222222"),
		newServer("agent", "sk-agent-a-3333333333"), newServer("default", "sk-default-4444444444")
	block := func(indent string, s *server, env string) string {
		return indent + "provider: openai\n" + indent + "base_url: " + s.srv.URL + "/v1\n" + indent + "api_key_env: " + env + "\n" + indent + "model: m\n" + indent + "retries: -1\n"
	}
	providers := "summarizer:\n" + block("  ", def, "DEFAULT_KEY") +
		"tenants:\n  a:\n    summarizer:\n" + block("      ", a, "A_KEY") +
		"    agents:\n      reviewer:\n        summarizer:\n" + block("          ", agent, "AGENT_KEY") +
		"  b:\n    summarizer:\n" + block("      ", b, "B_KEY")
	tm := newTestMain(t)
	for k, v := range map[string]string{"DEFAULT_KEY": def.key, "A_KEY": a.key, "B_KEY": b.key, "AGENT_KEY": agent.key} {
		tm.env[k] = v
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(providers), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	// The local owner (an admin allowed every scope) recaps every tenant's chats: the chat's
	// owner, not the caller, chooses the provider.
	recapAs := func(tenant, agentID, chat string) string {
		tm.mustRun(`{"type":"chat","id":"`+chat+`","tenant_id":"`+tenant+`","user_id":"u","agent_id":"`+agentID+`"}
{"type":"entry","chat_id":"`+chat+`","id":"e1","kind":"user","text":"Migrate the billing service"}
`, "ingest")
		return tm.mustRun("", "recap", chat)
	}
	for _, c := range []struct {
		tenant, agent, chat, want string
		by                        *server
	}{
		{"a", "", "ca", "recap by a", a},
		{"b", "", "cb", "recap by b", b},
		{"a", "reviewer", "cr", "recap by agent", agent},
		{"c", "", "cc", "recap by default", def},
	} {
		before := c.by.seen.Load()
		if out := recapAs(c.tenant, c.agent, c.chat); !strings.Contains(out, c.want) {
			t.Errorf("recap of tenant %s agent %q printed %q, want %q", c.tenant, c.agent, out, c.want)
		}
		if c.by.seen.Load() != before+1 {
			t.Errorf("recap of tenant %s agent %q did not reach its own server", c.tenant, c.agent)
		}
	}
	for name, s := range map[string]*server{"a": a, "b": b, "agent": agent, "default": def} {
		if n := s.seen.Load(); n != 1 {
			t.Errorf("server %s answered %d recaps, want exactly its own one", name, n)
		}
	}
	// A tenant's variable that is not set is named, never guessed from another tenant's.
	delete(tm.env, "B_KEY")
	_, _, err := tm.run("", "recap", "cc")
	if err == nil || !strings.Contains(describe(err), "tenants.b.summarizer.api_key_env names B_KEY") {
		t.Errorf("recap with tenant b's key unset: %v, want the variable named", describe(err))
	}
}
