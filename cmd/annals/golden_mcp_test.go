package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// goldenSession records the answers of one MCP session.
type goldenSession struct {
	g    *golden
	name string
	cs   *sdk.ClientSession
}

// tools records the tools the session offers, with their read-only hint.
func (s goldenSession) tools() {
	var names []string
	for tool, err := range s.cs.Tools(context.Background(), nil) {
		if err != nil {
			s.g.t.Fatal(err)
		}
		ro := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		names = append(names, tool.Name+map[bool]string{true: " (read-only)", false: ""}[ro])
	}
	s.g.record(s.name+" tools/list", strings.Join(names, "\n"))
}

// call records one tool call: its text, whether it is an error, and its structured answer.
func (s goldenSession) call(name string, args map[string]any) {
	s.g.t.Helper()
	res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	a, _ := json.Marshal(args)
	heading := s.name + " " + name + " " + string(a)
	if err != nil {
		s.g.record(heading, "protocol error: "+err.Error())
		return
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	structured, _ := json.Marshal(res.StructuredContent)
	s.g.record(heading, "is_error: "+map[bool]string{true: "true", false: "false"}[res.IsError]+"\n"+strings.Join(parts, "\n")+"\nstructured: "+string(structured))
}

// read records one resource.
func (s goldenSession) read(uri string) {
	res, err := s.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		s.g.record(s.name+" resources/read "+uri, "error: "+err.Error())
		return
	}
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, c.MIMEType+"\n"+c.Text)
	}
	s.g.record(s.name+" resources/read "+uri, strings.Join(parts, "\n"))
}

// readSession exercises the read tools.
func (s goldenSession) reads() {
	s.tools()
	s.call("history_list", map[string]any{})
	s.call("history_list", map[string]any{"scope": "tenant"})
	s.call("history_search", map[string]any{"query": "deploy"})
	s.call("history_search", map[string]any{"query": "permission", "mode": "entries"})
	s.call("history_search", map[string]any{"query": ""})
	s.call("history_read", map[string]any{"id": "acme-deploy"})
	s.call("history_read", map[string]any{"id": "acme-deploy", "mode": "overview"})
	s.call("history_read", map[string]any{"id": "acme-deploy", "around_seq": 2, "context": 0})
	s.call("history_read", map[string]any{"id": "other-deploy"})
	s.call("history_related", map[string]any{"id": "acme-deploy"})
	s.call("history_related", map[string]any{"query": "cache after a deploy"})
	s.call("history_recap", map[string]any{"id": "acme-deploy"})
	s.call("history_resume", map[string]any{"id": "acme-deploy"})
	s.call("history", map[string]any{"op": "list"})
	s.call("history", map[string]any{"op": "search", "query": "deploy"})
	s.call("history", map[string]any{"op": "search", "query": "deploy", "explain": true})
	s.call("history", map[string]any{"op": "pin", "session_id": "acme-deploy"})
	s.call("history", map[string]any{"op": "delete", "session_id": "acme-deploy"})
	s.read("annals://chat/acme-deploy")
	s.read("annals://chat/other-deploy")
}

// writes exercises the curating tools.
func (s goldenSession) writes() {
	s.call("history_rename", map[string]any{"id": "acme-deploy", "title": "Renamed over MCP"})
	s.call("history_annotate", map[string]any{"id": "acme-deploy", "description": "described", "tags": []string{"mcp"}})
	s.call("history_pin", map[string]any{"id": "acme-deploy"})
	s.call("history_pin", map[string]any{"id": "acme-deploy", "pinned": false})
	s.call("history_archive", map[string]any{"id": "acme-review"})
	s.call("history_archive", map[string]any{"id": "acme-review", "archived": false})
	s.call("history_rename", map[string]any{"id": "other-deploy", "title": "x"})
	s.call("history_recap", map[string]any{"id": "acme-review", "refresh": true})
	s.call("history", map[string]any{"op": "annotate", "session_id": "acme-deploy", "tags": []string{"envelope"}})
}

func TestGoldenMCPStdio(t *testing.T) {
	g := newGolden(t, "mcp_stdio.txt")
	tm := newTestMain(t)
	tm.mustRun(goldenChats, "ingest", "-")
	cfg := filepath.Join(tm.home, "config.yaml")
	if err := os.WriteFile(cfg, []byte("principal:\n  tenant: acme\n  user: alice\n  history_scope: [self, user, tenant]\n"+goldenConfig+"  idle:\n    history_scope: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	plain := goldenSession{g, "stdio", mcpInProcess(t, tm)}
	plain.reads()
	plain.read("annals://docs")
	plain.call("history_docs", map[string]any{})
	goldenSession{g, "stdio --agent coder", mcpInProcess(t, tm, "--agent", "coder")}.reads()
	goldenSession{g, "stdio --agent idle", mcpInProcess(t, tm, "--agent", "idle")}.reads()
	goldenSession{g, "stdio --agent stranger", mcpInProcess(t, tm, "--agent", "stranger")}.reads()
	rw := goldenSession{g, "stdio --allow-writes", mcpInProcess(t, tm, "--allow-writes")}
	rw.tools()
	rw.writes()
	agentRW := goldenSession{g, "stdio --agent coder --allow-writes", mcpInProcess(t, tm, "--agent", "coder", "--allow-writes")}
	agentRW.tools()
	agentRW.writes()

	// An agent named without any agents: block loses every scope.
	bare := newTestMain(t)
	bare.mustRun(goldenChats, "ingest", "-")
	goldenSession{g, "stdio (no agents block) --agent coder", mcpInProcess(t, bare, "--agent", "coder")}.reads()
}

func TestGoldenMCPHTTP(t *testing.T) {
	g := newGolden(t, "mcp_http.txt")
	gs := newGoldenServer(t, g)
	connect := func(key string) *sdk.ClientSession {
		tr := &sdk.StreamableClientTransport{Endpoint: gs.s.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{gs.keys[key]}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "golden", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatalf("connect as %s: %v", key, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	goldenSession{g, "/mcp as member", connect("member")}.reads()
	goldenSession{g, "/mcp as agent", connect("agent")}.reads()
	goldenSession{g, "/mcp as stranger", connect("stranger")}.reads()
	op := goldenSession{g, "/mcp as operator", connect("operator")}
	op.tools()
	op.writes()
	admin := goldenSession{g, "/mcp as admin", connect("admin")}
	admin.tools()
	admin.call("history_list", map[string]any{"scope": "global"})
	gs.do("", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)

	// A read-only server offers no writes, whoever calls.
	ro := newGoldenServer(t, newGolden(t, "mcp_http_readonly.txt"), "--read-only")
	tr := &sdk.StreamableClientTransport{Endpoint: ro.s.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{ro.keys["operator"]}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "golden", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	roS := goldenSession{ro.g, "/mcp read-only as operator", cs}
	roS.tools()
	roS.call("history", map[string]any{"op": "pin", "session_id": "acme-deploy", "scope": "tenant"})
	roS.call("history_recap", map[string]any{"id": "acme-deploy", "refresh": true})
}

// TestGoldenMCPHTTPLocal covers /mcp in local mode, with and without --mcp-allow-writes.
func TestGoldenMCPHTTPLocal(t *testing.T) {
	g := newGolden(t, "mcp_http_local.txt")
	for _, args := range [][]string{nil, {"--mcp-allow-writes"}} {
		tm := newTestMain(t)
		tm.mustRun(goldenChats, "ingest", "-")
		// The digest worker (on by default) would summarize the idle golden chats while the
		// answers are recorded: the goldens record a fixed history, so it is off.
		s := startServe(t, tm, append([]string{"--no-digest"}, args...)...)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "golden", Version: "1"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: s.url + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		ss := goldenSession{g, "/mcp local " + strings.Join(args, " "), cs}
		ss.tools()
		ss.call("history_pin", map[string]any{"id": "acme-deploy"})
		ss.call("history", map[string]any{"op": "pin", "session_id": "acme-deploy", "pinned": false})
	}
}
