package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/connect"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/redact"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/summarize"
)

// env is a real server on 127.0.0.1:0 over a real SQLite file.
type env struct {
	tb   testing.TB
	path string
	db   *sqlite.DB
	svc  *history.Service
	srv  *httpapi.Server
	url  string
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type option func(*httpapi.Config)

func withMaxBody(n int64) option { return func(c *httpapi.Config) { c.MaxBodyBytes = n } }

// mustOpenDB opens a fresh SQLite database in a temporary directory.
func mustOpenDB(tb testing.TB) (*sqlite.DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "annals.db")
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, path
}

// newEnv starts a server; seed, when set, runs against the database before the server opens
// (to create keys, for instance).
func newEnv(tb testing.TB, seed func(db *sqlite.DB), opts ...option) *env {
	tb.Helper()
	db, path := mustOpenDB(tb)
	if seed != nil {
		seed(db)
	}
	return startEnv(tb, db, path, false, opts...)
}

func startEnv(tb testing.TB, db *sqlite.DB, path string, readOnly bool, opts ...option) *env {
	tb.Helper()
	red, err := redact.New(redact.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	emb, err := embed.NewHashing(0)
	if err != nil {
		tb.Fatal(err)
	}
	svc := history.New(history.Config{Store: db, View: db, Summarizer: summarize.Extractive{}, Embedder: emb, Redactor: red})
	logs := &syncBuffer{}
	cfg := httpapi.Config{
		Addr:     "127.0.0.1:0",
		Service:  svc,
		View:     svc,
		Stats:    svc,
		Replica:  svc,
		Keys:     db,
		ReadOnly: readOnly,
		Logger:   slog.New(slog.NewJSONHandler(logs, nil)),
		RPC:      connect.NewHandler(),
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv := httpapi.New(cfg)
	if err := srv.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return &env{tb: tb, path: path, db: db, svc: svc, srv: srv, url: srv.URL(), logs: logs}
}

// mustKey creates a key for p and returns its secret.
func mustKey(tb testing.TB, ks annals.KeyStore, p annals.Principal) string {
	tb.Helper()
	secret, err := annals.NewKeySecret()
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := annals.NewKeyID()
	if _, err := ks.CreateKey(context.Background(), &annals.APIKey{ID: id, Principal: p, Hash: annals.HashKeySecret(secret)}); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// resp is one HTTP answer.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		tb.Fatalf("answer is not JSON (%v): %s", err, r.body)
	}
}

// errorOf returns the error object of an error answer.
func (r resp) errorOf(tb testing.TB) httpapi.ErrorDetail {
	tb.Helper()
	var eb httpapi.ErrorBody
	if json.Unmarshal(r.body, &eb) != nil {
		// POST /query answers errors in the lanius view's shape.
		var qe httpapi.QueryError
		r.json(tb, &qe)
		if qe.OK || qe.Code == "" || qe.Error == "" {
			tb.Fatalf("no lanius-style error in %s", r.body)
		}
		return httpapi.ErrorDetail{Code: qe.Code, Message: qe.Error}
	}
	if eb.Error.Code == "" {
		tb.Fatalf("no error object in %s", r.body)
	}
	return eb.Error
}

// do sends one request; key may be empty.
func (e *env) do(method, path, key, body string) resp {
	e.tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.tb.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.tb.Fatal(err)
	}
	return resp{status: res.StatusCode, header: res.Header, body: b}
}

// must sends a request and fails unless the status is want.
func (e *env) must(want int, method, path, key, body string) resp {
	e.tb.Helper()
	r := e.do(method, path, key, body)
	if r.status != want {
		e.tb.Fatalf("%s %s: got status %d, want %d: %s", method, path, r.status, want, r.body)
	}
	return r
}

func (e *env) client(key string) *httpapi.Client {
	e.tb.Helper()
	c, err := httpapi.NewClient(e.url, key)
	if err != nil {
		e.tb.Fatal(err)
	}
	return c
}

// remote is a client of the server that implements annals.HistoryService.
type remote struct {
	name string
	c    annals.HistoryService
}

// remotes are every client of the history a program can use against this server, authenticated
// with key: the HTTP client, and the Connect client over each of its protocols. The client
// conformance tests run each of them.
func (e *env) remotes(key string) []remote {
	e.tb.Helper()
	out := []remote{{"http", e.client(key)}}
	for _, p := range []struct {
		name string
		p    connect.Protocol
	}{{"connect", connect.ProtocolConnect}, {"grpc", connect.ProtocolGRPC}, {"grpc-web", connect.ProtocolGRPCWeb}} {
		c, err := connect.NewClient(e.url, key, p.p)
		if err != nil {
			e.tb.Fatal(err)
		}
		out = append(out, remote{p.name, c})
	}
	return out
}

// remoteNamed is the client of remotes called name.
func (e *env) remoteNamed(name, key string) annals.HistoryService {
	e.tb.Helper()
	for _, r := range e.remotes(key) {
		if r.name == name {
			return r.c
		}
	}
	e.tb.Fatalf("no client %q", name)
	return nil
}

func member(tenant, user, agent string, scopes ...annals.Scope) annals.Principal {
	return annals.Principal{TenantID: tenant, UserID: user, AgentID: agent, Role: annals.RoleMember, Scopes: scopes}
}

func admin(tenant string) annals.Principal {
	return annals.Principal{TenantID: tenant, Role: annals.RoleAdmin, Scopes: annals.Scopes}
}

// twoTenants is the fixture of most tests: chats in tenants A and B, keys for each.
type twoTenants struct {
	*env
	keyA, keyA2, keyB, keyAdmin string
}

// seedJSONL is ingested as the admin: two chats in A (users ua1, ua2) and one in B.
const seedJSONL = `{"type":"chat","id":"a1","tenant_id":"A","user_id":"ua1","agent_id":"bot","title":"Reactor pressure review","tags":["ops"]}
{"type":"entry","chat_id":"a1","id":"m1","kind":"user","text":"check the reactor pressure valve","correlation_id":"corr-1","channel":"in/agent/bot"}
{"type":"entry","chat_id":"a1","id":"m2","kind":"tool","tool":{"name":"Bash","arguments":{"cmd":"gauge"},"result":"pressure 4 bar","outcome":"succeeded"}}
{"type":"entry","chat_id":"a1","id":"m3","kind":"assistant","text":"The reactor pressure is normal."}
{"type":"run","chat_id":"a1","id":"a1/r1","status":"completed","model":"m","input_tokens":10,"output_tokens":5,"cost_usd":0.01}
{"type":"chat","id":"a2","tenant_id":"A","user_id":"ua2","title":"Invoice rounding"}
{"type":"entry","chat_id":"a2","id":"m1","kind":"user","text":"invoice totals are off by a cent"}
{"type":"chat","id":"b1","tenant_id":"B","user_id":"ub1","agent_id":"bot","title":"Reactor pressure in tenant B"}
{"type":"entry","chat_id":"b1","id":"m1","kind":"user","text":"secret reactor pressure of B","correlation_id":"corr-1","channel":"in/agent/bot"}
{"type":"run","chat_id":"b1","id":"b1/r1","status":"failed"}
`

func newTwoTenants(tb testing.TB, opts ...option) *twoTenants {
	tb.Helper()
	f := &twoTenants{}
	f.env = newEnv(tb, func(db *sqlite.DB) {
		f.keyA = mustKey(tb, db, member("A", "ua1", "", annals.ScopeUser, annals.ScopeTenant))
		f.keyA2 = mustKey(tb, db, member("A", "ua2", "", annals.ScopeUser))
		f.keyB = mustKey(tb, db, member("B", "ub1", "bot", annals.ScopeSelf, annals.ScopeUser, annals.ScopeTenant))
		f.keyAdmin = mustKey(tb, db, admin("root"))
	}, opts...)
	f.must(http.StatusOK, "POST", "/v1/ingest", f.keyAdmin, seedJSONL)
	return f
}
