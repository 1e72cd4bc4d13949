package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/pricing"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/summarize"
	"github.com/annals-dev/annals/web"
)

// env is a real annals server on 127.0.0.1:0 over a real SQLite file, with the web UI mounted.
type env struct {
	t   testing.TB
	db  *sqlite.DB
	svc *history.Service
	srv *httpapi.Server
	url string
	// readOnly is the server's --read-only.
	readOnly bool
	livePoll time.Duration
}

type envOptions struct {
	// seed runs before the server opens (keys made here end local mode).
	seed     func(db *sqlite.DB)
	readOnly bool
	// livePoll is the UI's web.Config.LivePoll (0: its default).
	livePoll time.Duration
	// wrap, when set, wraps the store the service reads (to watch its reads).
	wrap func(history.Store) history.Store
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if o.seed != nil {
		o.seed(db)
	}
	emb, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	var store history.Store = db
	if o.wrap != nil {
		store = o.wrap(db)
	}
	svc := history.New(history.Config{Store: store, View: db, Summarizer: summarize.Extractive{}, Embedder: emb, Pricer: pricing.Builtin()})
	e := &env{t: t, db: db, svc: svc, readOnly: o.readOnly, livePoll: o.livePoll}
	e.serve(nil)
	return e
}

// serve opens a server over the env's database (its sessions kept there), on a clock (nil:
// time.Now).
func (e *env) serve(now func() time.Time) {
	e.t.Helper()
	ui, err := web.New(web.Config{LivePoll: e.livePoll})
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: e.svc, View: e.svc, Stats: e.svc, Keys: e.db, WebSessions: e.db,
		Web: ui, ReadOnly: e.readOnly, Now: now})
	if err := srv.Open(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { srv.Close() })
	e.srv, e.url = srv, srv.URL()
}

// restart closes the server and opens another over the same database, on a clock.
func (e *env) restart(now func() time.Time) {
	e.t.Helper()
	e.srv.Close()
	e.serve(now)
}

// chat creates a chat with entries (their ids and seqs are given here) straight in the store.
func (e *env) chat(c *annals.Chat, entries ...*annals.Entry) {
	e.t.Helper()
	ctx := context.Background()
	if c.TenantID == "" {
		c.TenantID = "local"
	}
	if _, err := annals.CreateChat(ctx, e.db, c); err != nil {
		e.t.Fatal(err)
	}
	for i, en := range entries {
		if en.ID == "" {
			en.ID = "m" + itoa(i+1)
		}
		if en.Time.IsZero() {
			en.Time = c.CreatedAt.Add(time.Duration(i) * time.Second)
		}
	}
	for len(entries) > 0 {
		n := min(len(entries), 500)
		if _, err := annals.AppendEntries(ctx, e.db, c.ID, entries[:n]); err != nil {
			e.t.Fatal(err)
		}
		entries = entries[n:]
	}
}

func (e *env) run(r *annals.Run) {
	e.t.Helper()
	if _, err := annals.RecordRun(context.Background(), e.db, r); err != nil {
		e.t.Fatal(err)
	}
}

// key creates an API key for p and returns its secret.
func mustKey(t testing.TB, db *sqlite.DB, p annals.Principal) string {
	t.Helper()
	secret, err := annals.NewKeySecret()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := annals.NewKeyID()
	if _, err := db.CreateKey(context.Background(), &annals.APIKey{ID: id, Principal: p, Hash: annals.HashKeySecret(secret)}); err != nil {
		t.Fatal(err)
	}
	return secret
}

// client is an HTTP client with a cookie jar that does not follow redirects.
func client(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func do(t testing.TB, c *http.Client, method, u string, form url.Values, header map[string]string) answer {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

func itoa(i int) string { return strconv.Itoa(i) }

// ownerCtx is a context carrying the local owner, for setting up through the service.
func (e *env) ownerCtx() context.Context {
	return annals.NewContextWithPrincipal(context.Background(), history.LocalOwner())
}
