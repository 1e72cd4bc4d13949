package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/mcp"
)

// sessionServer serves the streamable handler on a loopback server; the caller names its
// principal in X-Who (alice, bob or carol), standing in for the API key of the real server.
func sessionServer(t *testing.T, e *env, opts mcp.HTTPOptions) string {
	t.Helper()
	return sessionServerOver(t, e, e.svc, opts)
}

// sessionServerOver is sessionServer over another history service.
func sessionServerOver(t *testing.T, e *env, svc annals.HistoryService, opts mcp.HTTPOptions) string {
	t.Helper()
	carol := &annals.Principal{TenantID: "C", UserID: "carol", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeUser}}
	who := map[string]*annals.Principal{"alice": alice(), "bob": bob(), "carol": carol}
	h := e.srv.HTTPHandler(opts)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		door := history.For(svc, who[r.Header.Get("X-Who")], history.Access{Surface: history.SurfaceAgent})
		h.ServeHTTP(w, r.WithContext(history.NewContextWithCaller(r.Context(), door)))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

type as string

func (a as) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Who", string(a))
	return http.DefaultTransport.RoundTrip(r)
}

func connectAs(t *testing.T, url, who string) (*sdk.ClientSession, error) {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: as(who)}, MaxRetries: -1}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// initialize sends a bare initialize request and returns the answer.
func initialize(t *testing.T, url, who string) (int, http.Header, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("X-Who", who)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// refusal checks a JSON-RPC error answer: its status, a Retry-After, and the message naming the cap.
func refusal(t *testing.T, status int, h http.Header, body string, wantStatus int, mention string) {
	t.Helper()
	var m struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if status != wantStatus || json.Unmarshal([]byte(body), &m) != nil || m.ID != 7 || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, mention) {
		t.Fatalf("status %d, body %s: want %d and a JSON-RPC error for id 7 mentioning %q", status, body, wantStatus, mention)
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", h.Get("Retry-After"))
	}
}

func TestMCPSessionsAreCappedPerKeyAndInTotal(t *testing.T) {
	e := newEnv(t)
	url := sessionServer(t, e, mcp.HTTPOptions{SessionsPerKey: 2, Sessions: 3, IdleUnderPressure: time.Hour})
	a1, err := connectAs(t, url, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := connectAs(t, url, "alice"); err != nil {
		t.Fatal(err)
	}
	status, h, body := initialize(t, url, "alice")
	refusal(t, status, h, body, http.StatusTooManyRequests, "this API key holds 2, the most one key may (--mcp-sessions-per-key 2)")
	// The Go SDK's client reports a 429 by its status text (it reads no body of a status it
	// deems transient); clients that show the body show the message above.
	if _, err := connectAs(t, url, "alice"); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Fatalf("an SDK client past the key's cap: %v", err)
	}
	// Another key still gets its own, up to the total.
	if _, err := connectAs(t, url, "bob"); err != nil {
		t.Fatalf("another key below the total: %v", err)
	}
	status, h, body = initialize(t, url, "carol")
	refusal(t, status, h, body, http.StatusServiceUnavailable, "the server holds 3, the most it keeps (--mcp-sessions 3)")
	// Ending a session (DELETE) makes room at once; the sessions still open keep working.
	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { s, _, _ := initialize(t, url, "carol"); return s == http.StatusOK })
}

func TestIdleSessionsAreEvictedUnderPressure(t *testing.T) {
	e := newEnv(t)
	url := sessionServer(t, e, mcp.HTTPOptions{SessionsPerKey: 2, IdleUnderPressure: 2 * time.Second})
	old, err := connectAs(t, url, "alice")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	recent, err := connectAs(t, url, "alice")
	if err != nil {
		t.Fatal(err)
	}
	// Both used within the threshold (2s, generous for a loaded machine): a third is refused,
	// and says when to retry.
	status, h, body := initialize(t, url, "alice")
	refusal(t, status, h, body, http.StatusTooManyRequests, "none has been idle for 2s")
	time.Sleep(2300 * time.Millisecond)
	if _, err := recent.ListTools(context.Background(), nil); err != nil { // recent is in use again
		t.Fatal(err)
	}
	third, err := connectAs(t, url, "alice")
	if err != nil {
		t.Fatalf("a new session once an old one idled past the threshold: %v", err)
	}
	if _, err := old.ListTools(context.Background(), nil); err == nil {
		t.Fatal("the session idle longest was not closed to make room")
	}
	for name, cs := range map[string]*sdk.ClientSession{"the session in use": recent, "the new session": third} {
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// waitFor polls cond for up to five seconds: a closed session is forgotten asynchronously.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}

// stuck is a history whose search works until its context ends, as a slow query would.
type stuck struct{ annals.HistoryService }

func (stuck) SearchChats(ctx context.Context, _ annals.SearchParams) (*annals.SearchPage, error) {
	<-ctx.Done()
	return nil, &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was cancelled or timed out", Err: ctx.Err()}
}

func TestASessionsCallStopsAtTheCallTimeout(t *testing.T) {
	e := newEnv(t)
	url := sessionServerOver(t, e, stuck{e.svc}, mcp.HTTPOptions{CallTimeout: 200 * time.Millisecond})
	cs, err := connectAs(t, url, "alice")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "history_search", Arguments: map[string]any{"query": "flaky"}})
	if err != nil {
		t.Fatalf("the call failed in transport instead of answering: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second || !res.IsError {
		t.Fatalf("answered after %s, error %v", took, res.IsError)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, "timed out") {
		t.Errorf("the answer: %s", text)
	}
}
