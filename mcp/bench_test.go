package mcp_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/mcp"
	"github.com/annals-dev/annals/sqlite"
)

// BenchmarkToolLatency measures one history_search and one history_read, end to end through
// the SDK's client: over stdio to the annals binary as a child process, over an in-process pipe
// (the same minus the process boundary) and over streamable HTTP on a loopback server, on a
// synthetic corpus. The size comes from
// ANNALS_MCP_BENCH_ENTRIES (default 100k; the corpus is built once per run, which takes a while).
//
//	go test -run '^$' -bench ToolLatency -benchtime 200x ./mcp
func BenchmarkToolLatency(b *testing.B) {
	ctx := context.Background()
	dir, dbPath, svc, chatID := benchHistory(b)
	srv := mcp.New(mcp.Config{})
	owner := history.For(svc, history.LocalOwner(), history.Access{Surface: history.SurfaceAgent, Local: true})

	pipe := func(b *testing.B) *sdk.ClientSession {
		st, ct := sdk.NewInMemoryTransports()
		s, err := srv.NewMCPServer(mcp.Session{Service: owner})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Connect(ctx, st, nil); err != nil {
			b.Fatal(err)
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	overHTTP := func(b *testing.B) *sdk.ClientSession {
		h := srv.HTTPHandler(mcp.HTTPOptions{})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(history.NewContextWithCaller(r.Context(), owner)))
		}))
		b.Cleanup(ts.Close)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	// stdio is the real thing: the annals binary as a child process, as an agent runs it.
	stdio := func(b *testing.B) *sdk.ClientSession {
		bin := filepath.Join(dir, "bin", "annals")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/annals").CombinedOutput(); err != nil {
			b.Fatalf("build: %v\n%s", err, out)
		}
		cmd := exec.Command(bin, "mcp", "--db", dbPath)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir)
		cmd.Stderr = os.Stderr // a child that cannot start says why
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	calls := []struct {
		name string
		args map[string]any
	}{
		{"history_search", map[string]any{"query": "mediumterm"}},
		{"history_read", map[string]any{"id": chatID}},
	}
	for _, tr := range []struct {
		name    string
		connect func(*testing.B) *sdk.ClientSession
	}{{"stdio", stdio}, {"pipe", pipe}, {"http", overHTTP}} {
		cs := tr.connect(b)
		for _, c := range calls {
			b.Run(tr.name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.name, Arguments: c.args})
					if err != nil || res.IsError {
						b.Fatalf("%s: %v %+v", c.name, err, res)
					}
				}
			})
		}
		cs.Close()
	}
}

// benchHistory builds the benchmark's database from a synthetic corpus and returns its folder,
// its path, the service over it and one chat to read.
func benchHistory(b *testing.B) (dir, dbPath string, svc *history.Service, chatID string) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("ANNALS_MCP_BENCH_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	dir = b.TempDir()
	dbPath = filepath.Join(dir, "bench.db")
	db, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 1, Entries: n, Tenants: 1, Users: 1, Agents: 1}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, db, &buf, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	svc = history.New(history.Config{Store: db})
	owner := history.LocalOwner()
	page, err := svc.FindChats(annals.NewContextWithPrincipal(ctx, owner), annals.ListParams{Page: annals.PageParams{Limit: 1}})
	if err != nil || len(page.Chats) == 0 {
		b.Fatalf("no chats: %v", err)
	}
	return dir, dbPath, svc, page.Chats[0].ID
}
