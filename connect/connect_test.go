package connect_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	rpc "connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/connect"
	v1 "github.com/annals-dev/annals/connect/annalsv1"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

// server is a real annals HTTP server on 127.0.0.1:0 over SQLite with the Connect API mounted,
// and keys of a member of tenant A (user scope only), a member of tenant B and an admin.
type server struct {
	url                  string
	keyA, keyB, keyAdmin string
}

func newServer(t *testing.T, opts ...func(*httpapi.Config)) *server {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := &server{
		keyA:     key(t, db, annals.Principal{TenantID: "A", UserID: "ua", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser}}),
		keyB:     key(t, db, annals.Principal{TenantID: "B", UserID: "ub", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser, annals.ScopeTenant}}),
		keyAdmin: key(t, db, annals.Principal{TenantID: "root", Role: annals.RoleAdmin, Scopes: annals.Scopes}),
	}
	svc := history.New(history.Config{Store: db, View: db})
	cfg := httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Keys: db, RPC: connect.NewHandler()}
	for _, o := range opts {
		o(&cfg)
	}
	srv := httpapi.New(cfg)
	if err := srv.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	s.url = srv.URL()
	return s
}

func key(t *testing.T, ks annals.KeyStore, p annals.Principal) string {
	t.Helper()
	secret, err := annals.NewKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := annals.NewKeyID()
	if _, err := ks.CreateKey(context.Background(), &annals.APIKey{ID: id, Principal: p, Hash: annals.HashKeySecret(secret)}); err != nil {
		t.Fatal(err)
	}
	return secret
}

var protocols = []struct {
	name string
	p    connect.Protocol
}{{"connect", connect.ProtocolConnect}, {"grpc", connect.ProtocolGRPC}, {"grpc-web", connect.ProtocolGRPCWeb}}

func client(t *testing.T, url, key string, p connect.Protocol) *connect.Client {
	t.Helper()
	c, err := connect.NewClient(url, key, p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every annals code maps to one Connect (and gRPC) code, and back: the client restores the
// exact annals code from the error's detail.
func TestEveryAnnalsCodeHasItsConnectCode(t *testing.T) {
	want := map[string]rpc.Code{
		annals.EINVALID: rpc.CodeInvalidArgument, annals.ENOTFOUND: rpc.CodeNotFound,
		annals.EFORBIDDEN: rpc.CodePermissionDenied, annals.ECONFLICT: rpc.CodeAlreadyExists,
		annals.EUNAVAILABLE: rpc.CodeUnavailable, annals.ENOTIMPLEMENTED: rpc.CodeUnimplemented,
		annals.EINTERNAL: rpc.CodeInternal, httpapi.CodeUnauthorized: rpc.CodeUnauthenticated,
		httpapi.CodeTooLarge: rpc.CodeResourceExhausted, httpapi.CodeTooManyRequests: rpc.CodeResourceExhausted,
		httpapi.CodeMethodNotAllowed: rpc.CodeUnimplemented,
	}
	for code, c := range want {
		if got := connect.CodeOf(code); got != c {
			t.Errorf("CodeOf(%s) = %s, want %s", code, got, c)
		}
	}
	if got := connect.CodeOf("something_else"); got != rpc.CodeInternal {
		t.Errorf("an unknown code maps to %s, want internal", got)
	}
}

// Authentication failures, scope refusals, not-found, invalid input, read-only refusals and a
// batch's failed op come back with their annals code and message on every protocol.
func TestRefusalsMapToTheirCodesOnEveryProtocol(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	created := client(t, s.url, s.keyB, connect.ProtocolConnect)
	if _, err := annals.CreateChat(ctx, created, &annals.Chat{ID: "b1", Title: "B's chat"}); err != nil {
		t.Fatal(err)
	}
	unknown, _ := annals.NewKeySecret()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			check := func(what string, err error, code string, msg string) {
				t.Helper()
				if annals.ErrorCode(err) != code || !strings.Contains(annals.ErrorMessage(err), msg) {
					t.Errorf("%s: %v (code %s), want %s containing %q", what, err, annals.ErrorCode(err), code, msg)
				}
			}
			_, err := client(t, s.url, unknown, p.p).FindChats(ctx, annals.ListParams{})
			check("unknown key", err, httpapi.CodeUnauthorized, "API key")
			_, err = client(t, s.url, "", p.p).FindChats(ctx, annals.ListParams{})
			check("no key", err, httpapi.CodeUnauthorized, "API key")
			a := client(t, s.url, s.keyA, p.p)
			_, err = a.FindChats(ctx, annals.ListParams{Scope: annals.ScopeGlobal})
			check("global scope as a member", err, annals.EFORBIDDEN, "global")
			_, err = a.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: "b1"}})
			check("another tenant's chat", err, annals.ENOTFOUND, `chat "b1" not found`)
			_, err = a.SearchChats(ctx, annals.SearchParams{Query: "x", Sort: "sideways"})
			check("a bad sort", err, annals.EINVALID, "sideways")
			_, err = a.Capture(ctx, []annals.CaptureOp{
				{Chat: &annals.Chat{ID: "a-" + p.name}},
				{Append: &annals.AppendOp{ChatID: "b1", Entries: []*annals.Entry{{ID: "e", Kind: annals.KindUser}}}},
			})
			var be *annals.BatchError
			if !errors.As(err, &be) || be.Index != 1 || annals.ErrorCode(err) != annals.ENOTFOUND {
				t.Errorf("a batch whose second op reaches another tenant: %v, want not_found at index 1", err)
			}
			if _, err := a.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: "a-" + p.name}}); annals.ErrorCode(err) != annals.ENOTFOUND {
				t.Errorf("the failed batch's first op was kept: %v", err)
			}
		})
	}

	ro := newServer(t, func(c *httpapi.Config) { c.ReadOnly = true })
	for _, p := range protocols {
		_, err := annals.CreateChat(ctx, client(t, ro.url, ro.keyAdmin, p.p), &annals.Chat{ID: "x"})
		if annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("%s: a write to a read-only server: %v, want forbidden", p.name, err)
		}
	}
}

// A grpc-go client (another gRPC implementation than the server's) reaches the same API over
// h2c, with the same key, and reads the refusals as gRPC status codes.
func TestGRPCGoClient(t *testing.T) {
	s := newServer(t)
	conn, err := grpc.NewClient(strings.TrimPrefix(s.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	with := func(key string) context.Context {
		return metadataCtx(key)
	}
	var created v1.CreateChatResponse
	err = conn.Invoke(with(s.keyA), "/annals.v1.HistoryService/CreateChat",
		&v1.CreateChatRequest{Chat: &v1.Chat{Id: "g1", Title: "over grpc-go"}}, &created)
	if err != nil || !created.GetCreated() || created.GetChat().GetTenantId() != "A" || created.GetChat().GetUserId() != "ua" {
		t.Fatalf("CreateChat: %v, %v", &created, err)
	}
	var appended v1.AppendEntriesResponse
	err = conn.Invoke(with(s.keyA), "/annals.v1.HistoryService/AppendEntries",
		&v1.AppendEntriesRequest{ChatId: "g1", Entries: []*v1.Entry{{Id: "e1", Kind: "user", Text: "hello from grpc-go"}}}, &appended)
	if err != nil || appended.GetAppended() != 1 || appended.GetLastSeq() != 1 {
		t.Fatalf("AppendEntries: %v, %v", &appended, err)
	}
	var got v1.HistoryResponse
	err = conn.Invoke(with(s.keyA), "/annals.v1.HistoryService/History", &v1.HistoryRequest{Op: "get", SessionId: "g1"}, &got)
	if err != nil || !strings.Contains(got.GetAnswerJson(), "hello from grpc-go") {
		t.Fatalf("History get: %v, %v", &got, err)
	}
	for _, c := range []struct {
		what string
		key  string
		req  *v1.HistoryRequest
		want codes.Code
	}{
		{"no key", "", &v1.HistoryRequest{Op: "list"}, codes.Unauthenticated},
		{"global as a member", s.keyA, &v1.HistoryRequest{Op: "list", Scope: "global"}, codes.PermissionDenied},
		{"another tenant's chat", s.keyB, &v1.HistoryRequest{Op: "get", SessionId: "g1"}, codes.NotFound},
		{"an unknown op", s.keyA, &v1.HistoryRequest{Op: "nope"}, codes.InvalidArgument},
	} {
		err := conn.Invoke(with(c.key), "/annals.v1.HistoryService/History", c.req, &got)
		if status.Code(err) != c.want {
			t.Errorf("%s: %v, want %s", c.what, err, c.want)
		}
	}
}

// A client calling something its server does not have gets an error naming both API versions.
func TestMissingCallNamesBothVersions(t *testing.T) {
	// A server without the Connect API mounted, as an annals older than it answers.
	s := newServer(t, func(c *httpapi.Config) { c.RPC = nil })
	_, err := client(t, s.url, s.keyA, connect.ProtocolConnect).FindChats(context.Background(), annals.ListParams{})
	if annals.ErrorCode(err) != annals.ENOTIMPLEMENTED || !strings.Contains(annals.ErrorMessage(err), "API version "+annals.APIVersion+" and has no call /annals.v1.HistoryService/History") ||
		!strings.Contains(annals.ErrorMessage(err), "this client (API version "+annals.APIVersion+")") {
		t.Errorf("calling a server without the call: %v", err)
	}
	// A server from before versioning names no version.
	old := httptest.NewServer(http.NotFoundHandler())
	defer old.Close()
	_, err = client(t, old.URL, "", connect.ProtocolConnect).FindChats(context.Background(), annals.ListParams{})
	if annals.ErrorCode(err) != annals.ENOTIMPLEMENTED || !strings.Contains(annals.ErrorMessage(err), "older than "+annals.APIVersion) {
		t.Errorf("calling a server from before versioning: %v", err)
	}
	// Every answer names the server's version, and so does the Version call.
	cur := newServer(t)
	v, err := client(t, cur.url, cur.keyA, connect.ProtocolGRPC).ServerVersion(context.Background())
	if err != nil || v != annals.APIVersion {
		t.Errorf("Version: %q, %v", v, err)
	}
}
