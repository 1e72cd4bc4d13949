package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const agentChats = `{"type":"chat","id":"acme-1","tenant_id":"acme","user_id":"alice","agent_id":"coder","title":"Deploy the emag.ro shop"}
{"type":"entry","chat_id":"acme-1","id":"e1","kind":"user","text":"deploy it please"}
{"type":"entry","chat_id":"acme-1","id":"e2","kind":"tool","tool":{"name":"Bash","arguments":{"cmd":"make deploy"},"result":"permission denied","outcome":"failed"}}
{"type":"chat","id":"acme-2","tenant_id":"acme","user_id":"alice","agent_id":"reviewer","title":"Review the deploy script"}
{"type":"entry","chat_id":"acme-2","id":"e1","kind":"user","text":"review the deploy script"}
{"type":"chat","id":"other-1","tenant_id":"other","user_id":"mallory","title":"Other tenant deploy"}
{"type":"entry","chat_id":"other-1","id":"e1","kind":"user","text":"deploy the other tenant"}
`

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func listed(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// TestMCPOverStdioAsASubprocess drives `annals mcp` the way Claude Code or Codex does: the
// binary started as a child, JSON-RPC on its stdin and stdout, stdin kept open until replies.
func TestMCPOverStdioAsASubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tm := newTestMain(t)
	tm.mustRun(agentChats, "ingest", "-")
	bin := filepath.Join(t.TempDir(), "annals")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "mcp", "--db", tm.env["ANNALS_DB"])
	cmd.Env = append(os.Environ(), "HOME="+tm.home, "XDG_CONFIG_HOME="+tm.home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := strings.Join(listed(t, cs), ",")
	if !strings.Contains(names, "history_search") || strings.Contains(names, "history_rename") {
		t.Fatalf("tools over stdio: %s", names)
	}
	text, isErr := callText(t, cs, "history_search", map[string]any{"query": "deploy", "limit": 5})
	if isErr || !strings.Contains(text, "acme-1") || !strings.Contains(text, "other-1") {
		t.Fatalf("the local owner searches every tenant of its database: %s", text)
	}
	text, isErr = callText(t, cs, "history_read", map[string]any{"id": "acme-1"})
	if isErr || !strings.Contains(text, "permission denied") || !strings.Contains(text, "<untrusted-transcript-data") {
		t.Fatalf("read: %s", text)
	}
}

// mcpInProcess runs `annals mcp args...` in-process over pipes and connects a client to it.
func mcpInProcess(t *testing.T, tm *testMain, args ...string) *sdk.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	m := NewMain()
	m.Stdin, m.Stdout, m.Stderr = inR, outW, io.Discard
	m.Getenv = func(k string) string { return tm.env[k] }
	m.HomeDir = func() (string, error) { return tm.home, nil }
	m.IsTerminal = func(io.Writer) bool { return false }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, append([]string{"mcp"}, args...))
		m.Close()
		outW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("annals mcp: %v", err)
		}
	})
	return cs
}

func TestMCPAgentGetsExactlyItsConfiguredScopes(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(agentChats, "ingest", "-")
	cfg := filepath.Join(tm.home, "config.yaml")
	os.WriteFile(cfg, []byte("principal:\n  tenant: acme\n  user: alice\n  history_scope: [self, user, tenant]\nagents:\n  coder:\n    history_scope: [self]\n  idle:\n    history_scope: []\n"), 0o600)
	tm.env["ANNALS_CONFIG"] = cfg

	coder := mcpInProcess(t, tm, "--agent", "coder")
	text, isErr := callText(t, coder, "history_list", map[string]any{})
	if isErr || !strings.Contains(text, "acme-1") || strings.Contains(text, "acme-2") || strings.Contains(text, "other-1") {
		t.Fatalf("coder (scope self) lists: %s", text)
	}
	if text, isErr := callText(t, coder, "history_list", map[string]any{"scope": "tenant"}); !isErr || !strings.Contains(text, "not allowed") {
		t.Fatalf("coder asked for tenant: %s", text)
	}
	if text, isErr := callText(t, coder, "history_read", map[string]any{"id": "acme-2"}); !isErr || !strings.Contains(text, "not found") {
		t.Fatalf("coder read another agent's chat: %s", text)
	}
	for _, agent := range []string{"stranger", "idle"} {
		cs := mcpInProcess(t, tm, "--agent", agent)
		if text, isErr := callText(t, cs, "history_search", map[string]any{"query": "deploy"}); !isErr || !strings.Contains(text, "not enabled") {
			t.Fatalf("agent %s without scopes searched: %s", agent, text)
		}
	}
	// Without --agent the configured principal reads its tenant, and writes stay off.
	plain := mcpInProcess(t, tm)
	if text, _ := callText(t, plain, "history_list", map[string]any{}); !strings.Contains(text, "acme-2") || strings.Contains(text, "other-1") {
		t.Fatalf("configured principal lists: %s", text)
	}
	if strings.Contains(strings.Join(listed(t, plain), ","), "history_pin") {
		t.Fatal("write tools without --allow-writes")
	}
	rw := mcpInProcess(t, tm, "--allow-writes")
	if _, isErr := callText(t, rw, "history_pin", map[string]any{"id": "acme-2"}); isErr {
		t.Fatal("pin with --allow-writes failed")
	}
	if out := tm.mustRun("", "list", "--pinned", "--json"); !strings.Contains(out, `"acme-2"`) {
		t.Fatalf("pin did not land: %s", out)
	}
}

// bearer adds an API key to every request of the MCP HTTP client.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

func TestMCPOverStreamableHTTPWithAKey(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(agentChats, "ingest", "-")
	var member, operator struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "acme", "--user", "alice", "--json")), &member)
	json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "acme", "--user", "alice", "--role", "operator", "--json")), &operator)
	s := startServe(t, tm)
	defer s.stop()
	connect := func(key string) (*sdk.ClientSession, error) {
		tr := &sdk.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{key}}}
		return sdk.NewClient(&sdk.Implementation{Name: "remote", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	}
	if _, err := connect("annals_not-a-real-key"); err == nil {
		t.Fatal("a bad key opened an MCP session")
	}
	cs, err := connect(member.Secret)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, isErr := callText(t, cs, "history_search", map[string]any{"query": "deploy"})
	if isErr || !strings.Contains(text, "acme-1") || strings.Contains(text, "other-1") {
		t.Fatalf("member key searches its tenant only: %s", text)
	}
	if strings.Contains(strings.Join(listed(t, cs), ","), "history_rename") {
		t.Fatal("a member key got write tools")
	}
	// The session id is no credential: another key presenting it is refused.
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"history_list","arguments":{}}}`
	req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+operator.Secret)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another key on the member's session: status %d, want 403", resp.StatusCode)
	}
	op, err := connect(operator.Secret)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	if !strings.Contains(strings.Join(listed(t, op), ","), "history_rename") {
		t.Fatal("an operator key has no write tools")
	}
	if _, isErr := callText(t, op, "history_rename", map[string]any{"id": "acme-1", "title": "Renamed over MCP"}); isErr {
		t.Fatal("operator rename failed")
	}
	if out := tm.mustRun("", "show", "acme-1", "--json"); !strings.Contains(out, "Renamed over MCP") {
		t.Fatalf("rename did not land: %.300s", out)
	}
}

func TestMCPAgentAgainstAServerIsAUsageError(t *testing.T) {
	tm := newTestMain(t)
	tm.env["ANNALS_SERVER"] = "http://127.0.0.1:1"
	_, _, err := tm.run("", "mcp", "--agent", "coder")
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "annals keys create --agent") {
		t.Fatalf("want a usage error pointing at agent keys, got %v", err)
	}
}
