package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeLimitFlagsReachTheServer: --auth-failures and --mcp-sessions-per-key bound the
// running server; out-of-range values are usage mistakes.
func TestServeLimitFlagsReachTheServer(t *testing.T) {
	tm := newTestMain(t)
	var key struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "acme", "--user", "alice", "--json")), &key)
	s := startServe(t, tm, "--auth-failures", "1", "--mcp-sessions-per-key", "1")
	defer s.stop()
	status := func(secret string) int {
		req, _ := http.NewRequest("POST", s.url+"/v1/history", strings.NewReader(`{"op":"list"}`))
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	wrong := "annals_" + strings.Repeat("x", 43)
	if got := []int{status(wrong), status(wrong), status(key.Secret)}; got[0] != http.StatusUnauthorized || got[1] != http.StatusTooManyRequests || got[2] != http.StatusOK {
		t.Errorf("wrong, wrong, valid with --auth-failures 1: %v, want [401 429 200]", got)
	}
	connect := func() error {
		tr := &sdk.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{key.Secret}}, MaxRetries: -1}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err == nil {
			t.Cleanup(func() { cs.Close() })
		}
		return err
	}
	if err := connect(); err != nil {
		t.Fatal(err)
	}
	if err := connect(); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("a second session with --mcp-sessions-per-key 1: %v", err)
	}
	for _, args := range [][]string{
		{"serve", "--auth-failures", "-1"},
		{"serve", "--mcp-sessions-per-key", "0"},
		{"serve", "--mcp-sessions-per-key", "9", "--mcp-sessions", "8"},
		{"serve", "--mcp-idle-under-pressure", "0s"},
	} {
		if stderr, code := tm.runFail(args...); code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("annals %s: exit %d, %q; want a usage error", strings.Join(args, " "), code, stderr)
		}
	}
}
