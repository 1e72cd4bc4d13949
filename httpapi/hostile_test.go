package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
)

// The findings of the hostile test of the server, each as it was reached over HTTP.

func TestABatchCannotSkipTheWriteCheckWithACreateOpFirst(t *testing.T) {
	db, _ := mustOpenDB(t)
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "theirs", TenantID: "A", UserID: "ua2"}); err != nil {
		t.Fatal(err)
	}
	service := mustKey(t, db, member("A", "", "", annals.ScopeTenant))
	e := startEnv(t, db, "", false)
	e.must(http.StatusForbidden, "POST", "/v1/sessions/theirs/entries", service, `{"entries":[{"id":"x","kind":"user","text":"planted"}]}`)
	for name, body := range map[string]string{
		"capture append":   `{"ops":[{"chat":{"id":"theirs","tenant_id":"A","user_id":"ua2"}},{"append":{"chat_id":"theirs","entries":[{"id":"x","kind":"user","text":"planted"}]}}]}`,
		"capture truncate": `{"ops":[{"chat":{"id":"theirs","tenant_id":"A","user_id":"ua2"}},{"truncate":{"chat_id":"theirs","point":{"seq":1}}}]}`,
		"capture run":      `{"ops":[{"chat":{"id":"mine"}},{"run":{"id":"r","chat_id":"theirs","status":"failed","cost_usd":99999}}]}`,
	} {
		r := e.do("POST", "/v1/capture", service, body)
		if r.status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403: %s", name, r.status, r.body)
		}
	}
	ingest := "{\"type\":\"chat\",\"id\":\"theirs\",\"user_id\":\"ua2\"}\n{\"type\":\"run\",\"chat_id\":\"theirs\",\"id\":\"r2\",\"status\":\"failed\",\"cost_usd\":99999}\n"
	if r := e.do("POST", "/v1/ingest", service, ingest); r.status != http.StatusForbidden {
		t.Errorf("ingest: status %d, want 403: %s", r.status, r.body)
	}
	c, err := db.FindChatByID(ctx, "theirs")
	if err != nil || c.Totals.Runs != 0 || c.Totals.Entries != 0 || c.Totals.CostUSD != 0 {
		t.Errorf("the colleague's chat changed: %+v, %v", c, err)
	}
}

func TestHugeCountersAndWrappingTimesAreRefusedByName(t *testing.T) {
	f := newTwoTenants(t)
	for _, tc := range []struct{ body, field string }{
		{"{\"type\":\"entry\",\"chat_id\":\"a1\",\"id\":\"big1\",\"kind\":\"assistant\",\"text\":\"x\",\"input_tokens\":9223372036854775807}\n", "entry.input_tokens"},
		{"{\"type\":\"run\",\"chat_id\":\"a1\",\"id\":\"big-run\",\"status\":\"completed\",\"cost_usd\":1e300}\n", "run.cost_usd"},
		{"{\"type\":\"entry\",\"chat_id\":\"a1\",\"id\":\"t3000\",\"kind\":\"user\",\"text\":\"x\",\"time\":\"3000-01-01T00:00:00Z\"}\n", "entry.time"},
		{"{\"type\":\"chat\",\"id\":\"old\",\"created_at\":\"1600-01-01T00:00:00Z\"}\n", "chat.created_at"},
	} {
		r := f.do("POST", "/v1/ingest", f.keyA, tc.body)
		if r.status != http.StatusBadRequest || !strings.Contains(r.errorOf(t).Message, tc.field) {
			t.Errorf("ingest %s: status %d %s, want 400 naming %s", tc.field, r.status, r.body, tc.field)
		}
	}
	r := f.do("POST", "/v1/history", f.keyA, `{"op":"list","from":"2300-01-01T00:00:00Z"}`)
	if r.status != http.StatusBadRequest || !strings.Contains(r.errorOf(t).Message, "from") {
		t.Errorf("list from 2300: status %d %s, want 400 naming from", r.status, r.body)
	}
	// Everyone's list still answers.
	for _, key := range []string{f.keyA, f.keyB, f.keyAdmin} {
		f.must(http.StatusOK, "POST", "/v1/history", key, `{"op":"list","scope":"`+map[string]string{f.keyA: "user", f.keyB: "user", f.keyAdmin: "global"}[key]+`"}`)
	}
}

func TestBodiesMustBeExactUTF8JSON(t *testing.T) {
	f := newTwoTenants(t)
	for _, tc := range []struct{ path, body, mention string }{
		{"/v1/history", "{\"op\":\"rename\",\"session_id\":\"a1\",\"title\":\"bad \xff title\"}", "UTF-8"},
		{"/query", "{\"kind\":\"search\",\"filter\":{\"text\":\"bad \xfe\"}}", "UTF-8"},
		{"/v1/history", `{"op":"rename","session_id":"a1","title":"\udead"}`, "surrogate"},
		{"/v1/history", `{"op":"list","scope":"user","scope":"tenant"}`, "twice"},
		{"/v1/history", `{"Op":"list"}`, "case-sensitive"},
		{"/v1/history", `{"op":"list","SCOPE":"tenant"}`, "case-sensitive"},
		{"/query", `{"kind":"sessions","kind":"agents"}`, "twice"},
		{"/v1/capture", `{"ops":[{"append":{"chat_id":"a1","Entries":[]}}]}`, "case-sensitive"},
		{"/v1/sessions", `{"id":"d1","title":"one","title":"two"}`, "twice"},
		{"/v1/sessions/a1/entries", `{"id":"e9","kind":"user","text":"a","text":"b"}`, "twice"},
		{"/query", `{"kind":"search","filter":{"TEXT":"reactor"},"annals":{"strict":true}}`, "case-sensitive"},
		{"/query", `{"kind":"search","page":{"LIMIT":1},"annals":{"strict":true}}`, "case-sensitive"},
		{"/query", `{"kind":"search","filter":{"text":"a","text":"b"}}`, "twice"},
	} {
		r := f.do("POST", tc.path, f.keyA, tc.body)
		if r.status != http.StatusBadRequest || !strings.Contains(r.errorOf(t).Message, tc.mention) {
			t.Errorf("%s %q: status %d %s, want 400 mentioning %q", tc.path, tc.body, r.status, r.body, tc.mention)
		}
	}
	if c, _ := f.db.FindChatByID(context.Background(), "a1"); c.Title != "Reactor pressure review" {
		t.Errorf("a refused rename changed the title to %q", c.Title)
	}
}

func TestQueryBodyLimitNamesItsOwnBound(t *testing.T) {
	f := newTwoTenants(t)
	body := `{"kind":"search","filter":{"text":"` + strings.Repeat("a", 2<<20) + `"}}`
	r := f.do("POST", "/query", f.keyA, body)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", r.status)
	}
	if msg := r.errorOf(t).Message; strings.Contains(msg, "--max-body") || !strings.Contains(msg, "1048576") {
		t.Errorf("413 message %q: want the route's own limit, not --max-body", msg)
	}
}

func TestInternalErrorsAreLoggedWithTheirCause(t *testing.T) {
	f := newTwoTenants(t)
	f.db.Close() // every later query fails inside the store
	r := f.do("POST", "/v1/history", f.keyA, `{"op":"list"}`)
	if r.status != http.StatusInternalServerError {
		t.Fatalf("status %d after the database closed: %s", r.status, r.body)
	}
	if strings.Contains(string(r.body), "closed") {
		t.Errorf("the cause reached the caller: %s", r.body)
	}
	if !strings.Contains(f.logs.String(), "database is closed") {
		t.Errorf("the log does not carry the cause:\n%s", f.logs.String())
	}
}

func TestMetricsNeedAnAdmin(t *testing.T) {
	db, _ := mustOpenDB(t)
	op := mustKey(t, db, annals.Principal{TenantID: "A", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
	adm := mustKey(t, db, admin("root"))
	e := startEnv(t, db, "", false)
	e.must(http.StatusForbidden, "GET", "/metrics", op, "")
	e.must(http.StatusOK, "GET", "/metrics", adm, "")
}

func TestRevokingEveryKeyNeedsAnExplicitLocalToServeWithoutKeys(t *testing.T) {
	db, _ := mustOpenDB(t)
	mustKey(t, db, member("A", "u", "", annals.ScopeUser))
	keys, err := db.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, err := db.RevokeKey(context.Background(), k.ID); err != nil {
			t.Fatal(err)
		}
	}
	cfg := httpapi.Config{Addr: "127.0.0.1:0", Service: history.New(history.Config{Store: db}), Keys: db}
	srv := httpapi.New(cfg)
	err = srv.Open(context.Background())
	if err == nil {
		srv.Close()
		t.Fatal("a server whose keys are all revoked started in local mode")
	}
	if !strings.Contains(err.Error(), "revoked") || !strings.Contains(err.Error(), "--local") {
		t.Errorf("message does not say why or how: %v", err)
	}
	cfg.AllowLocal = true
	srv = httpapi.New(cfg)
	if err := srv.Open(context.Background()); err != nil {
		t.Fatalf("with AllowLocal: %v", err)
	}
	defer srv.Close()
	if !srv.LocalMode() {
		t.Error("with AllowLocal the server is not in local mode")
	}
}
