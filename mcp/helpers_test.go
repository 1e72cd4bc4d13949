package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/mcp"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/summarize"
)

// env is a history service over a real SQLite file, with chats of two tenants.
type env struct {
	t   *testing.T
	db  *sqlite.DB
	svc *history.Service
	srv *mcp.Server
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// alice is a member of tenant A; bob of tenant B.
func alice() *annals.Principal {
	return &annals.Principal{TenantID: "A", UserID: "alice", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}
}

func bob() *annals.Principal {
	return &annals.Principal{TenantID: "B", UserID: "bob", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	emb, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db, Summarizer: summarize.Extractive{}, Embedder: emb, Now: func() time.Time { return t0 }})
	e := &env{t: t, db: db, svc: svc, srv: mcp.New(mcp.Config{Version: "test"})}
	e.chat(alice(), "alice-1", "Flaky integration test", []*annals.Entry{
		{ID: "m1", Kind: annals.KindUser, Text: "why is the build red on main?", Time: t0},
		{ID: "m2", Kind: annals.KindTool, Time: t0.Add(time.Second), Tool: &annals.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`), Result: "FAIL TestUpload (timeout)", Outcome: annals.OutcomeFailed}},
		{ID: "m3", Kind: annals.KindAssistant, Text: "The upload test is flaky: it waits on a real network timeout.", Time: t0.Add(2 * time.Second)},
	})
	e.chat(bob(), "bob-1", "Secret roadmap", []*annals.Entry{
		{ID: "b1", Kind: annals.KindUser, Text: "the flaky zeppelin plan of tenant B", Time: t0},
	})
	return e
}

// chat captures a chat as its owner.
func (e *env) chat(p *annals.Principal, id, title string, entries []*annals.Entry) {
	e.t.Helper()
	ctx := annals.NewContextWithPrincipal(context.Background(), p)
	if _, err := annals.CreateChat(ctx, e.svc, &annals.Chat{ID: id, Title: title, TenantID: p.TenantID, UserID: p.UserID, CreatedAt: t0}); err != nil {
		e.t.Fatal(err)
	}
	if len(entries) > 0 {
		if _, err := annals.AppendEntries(ctx, e.svc, id, entries); err != nil {
			e.t.Fatal(err)
		}
	}
}

// connect runs a session for p over in-memory transports and returns the SDK client session.
func (e *env) connect(p *annals.Principal, writes bool) *sdk.ClientSession {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	srv, err := e.srv.NewMCPServer(mcp.Session{Service: history.For(e.svc, p, history.Access{Surface: history.SurfaceAgent, Local: true, AllowWrites: writes})})
	if err != nil {
		e.t.Fatal(err)
	}
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close(); ss.Wait(); cancel() })
	return cs
}

// result is one tool call's answer: its text, structured content and error flag.
type result struct {
	text    string
	data    map[string]any
	isError bool
	bytes   int
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var r result
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	r.text, r.isError = strings.Join(texts, "\n"), res.IsError
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		r.bytes = len(b)
		_ = json.Unmarshal(b, &r.data)
	}
	r.bytes += len(r.text)
	return r
}

func toolNames(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	out := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}
