package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

func TestHealthzAnswersTheViewKindsWithoutAKey(t *testing.T) {
	f := newTwoTenants(t)
	var got httpapi.HealthAnswer
	f.must(http.StatusOK, "GET", "/healthz", "", "").json(t, &got)
	if !got.OK || strings.Join(got.Kinds, ",") != "agents,conversation,search,sessions,transcript" {
		t.Errorf("got %+v", got)
	}
}

func TestEveryOpRunsThroughTheEnvelopeAndItsAlias(t *testing.T) {
	f := newTwoTenants(t)
	k := f.keyA
	for _, path := range []string{"/v1/history", "/v1/_history"} {
		var list envelope.ListResponse
		f.must(http.StatusOK, "POST", path, k, `{"op":"list","scope":"tenant","limit":1000}`).json(t, &list)
		if list.Total != 2 || list.Limit != annals.MaxListLimit || list.Scope != "tenant" {
			t.Errorf("%s list: total %d limit %d scope %q, want 2, %d, tenant", path, list.Total, list.Limit, list.Scope, annals.MaxListLimit)
		}
	}
	var search envelope.SearchResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"search","query":"reactor pressure"}`).json(t, &search)
	if search.Total != 1 || search.Chats[0].Chat.ID != "a1" || len(search.Chats[0].Snippets) == 0 {
		t.Errorf("search: %+v", search)
	}
	var get envelope.GetResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"get","session_id":"a1","limit":2}`).json(t, &get)
	if len(get.Entries) != 2 || !get.HasMore || get.NextCursor == "" {
		t.Errorf("get: %d entries, has_more %v", len(get.Entries), get.HasMore)
	}
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"get","session_id":"a1","format":"markdown"}`).json(t, &get)
	if !strings.Contains(get.Markdown, "# Reactor pressure review") {
		t.Errorf("markdown: %q", get.Markdown)
	}
	var chat envelope.ChatResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"rename","session_id":"a1","title":"Valve check"}`).json(t, &chat)
	if chat.Chat.Title != "Valve check" {
		t.Errorf("rename: %q", chat.Chat.Title)
	}
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"annotate","session_id":"a1","description":"d","tags":["x","y"]}`).json(t, &chat)
	if chat.Chat.Description != "d" || strings.Join(chat.Chat.Tags, ",") != "x,y" {
		t.Errorf("annotate: %+v", chat.Chat)
	}
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"pin","session_id":"a1"}`).json(t, &chat)
	if !chat.Chat.Pinned {
		t.Error("pin did not pin")
	}
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"archive","session_id":"a1"}`).json(t, &chat)
	if chat.Chat.ArchivedAt == nil {
		t.Error("archive did not archive")
	}
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"archive","session_id":"a1","archived":false}`)
	var recap envelope.RecapResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"recap","session_id":"a1"}`).json(t, &recap)
	if recap.Summary == "" || recap.Chat.SummaryUpdatedAt == nil {
		t.Errorf("recap: %+v", recap)
	}
	var related envelope.RelatedResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"related","query":"reactor valve pressure"}`).json(t, &related)
	for _, r := range related.Results {
		if r.Chat.TenantID != "A" {
			t.Errorf("related reached tenant %s", r.Chat.TenantID)
		}
	}
	var resume envelope.ResumeResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"resume","session_id":"a1"}`).json(t, &resume)
	if resume.SessionID != "a1" || resume.Status != annals.StatusCompleted {
		t.Errorf("resume: %+v", resume)
	}
	// delete: a member may delete its own user's chat, not another user's in scope.
	if e := f.must(http.StatusForbidden, "POST", "/v1/history", k, `{"op":"delete","session_id":"a2","scope":"tenant"}`).errorOf(t); e.Code != annals.EFORBIDDEN {
		t.Errorf("delete of another user's chat: %+v", e)
	}
	var del envelope.DeleteResponse
	f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"delete","session_id":"a1"}`).json(t, &del)
	if del.Deleted != "a1" {
		t.Errorf("delete: %+v", del)
	}
	f.must(http.StatusNotFound, "POST", "/v1/history", k, `{"op":"get","session_id":"a1"}`)
	if e := f.must(http.StatusBadRequest, "POST", "/v1/history", k, `{"op":"explode"}`).errorOf(t); !strings.Contains(e.Message, "want one of: list, search") {
		t.Errorf("unknown op: %+v", e)
	}
}

// A member key reaches nothing of another tenant by any route, and the answer for such a chat
// is byte for byte the answer for a chat that does not exist.
func TestAMemberKeyCannotReachAnotherTenantsChatByAnyRoute(t *testing.T) {
	f := newTwoTenants(t)
	k := f.keyA
	notFound := func(id string) string {
		b, _ := json.Marshal(httpapi.ErrorBody{Error: httpapi.ErrorDetail{Code: "not_found", Message: fmt.Sprintf("chat %q not found", id)}})
		return string(b) + "\n"
	}
	byID := []struct{ method, path, body string }{
		{"POST", "/v1/history", `{"op":"get","session_id":"%s"}`},
		{"POST", "/v1/history", `{"op":"get","session_id":"%s","format":"markdown"}`},
		{"POST", "/v1/history", `{"op":"rename","session_id":"%s","title":"mine"}`},
		{"POST", "/v1/history", `{"op":"annotate","session_id":"%s","tags":["mine"]}`},
		{"POST", "/v1/history", `{"op":"pin","session_id":"%s"}`},
		{"POST", "/v1/history", `{"op":"archive","session_id":"%s"}`},
		{"POST", "/v1/history", `{"op":"recap","session_id":"%s"}`},
		{"POST", "/v1/history", `{"op":"resume","session_id":"%s"}`},
		{"POST", "/v1/history", `{"op":"related","session_id":"%s"}`},
		{"POST", "/v1/history", `{"op":"delete","session_id":"%s"}`},
		{"POST", "/query", `{"kind":"transcript","session":"%s"}`},
		{"GET", "/v1/sessions/%s/export", ``},
		{"GET", "/v1/sessions/%s/export?format=json", ``},
		{"GET", "/v1/sessions/%s/runs", ``},
		{"POST", "/v1/sessions/%s/entries", `{"entries":[{"id":"evil","kind":"user","text":"x"}]}`},
		{"POST", "/v1/sessions/%s/truncate", `{"seq":1}`},
		{"POST", "/v1/runs", `{"chat_id":"%s","id":"evil-run","status":"running"}`},
		{"POST", "/v1/capture", `{"ops":[{"append":{"chat_id":"%s","entries":[{"id":"evil","kind":"user","text":"x"}]}}]}`},
		{"POST", "/v1/ingest", `{"type":"entry","chat_id":"%s","id":"evil","kind":"user","text":"x"}`},
	}
	for _, c := range byID {
		for _, id := range []string{"b1", "missing"} {
			path := c.path
			if strings.Contains(path, "%s") {
				path = fmt.Sprintf(path, id)
			}
			body := c.body
			if strings.Contains(body, "%s") {
				body = fmt.Sprintf(body, id)
			}
			r := f.do(c.method, path, k, body)
			want := notFound(id)
			got := string(r.body)
			if c.path == "/v1/capture" {
				want = strings.Replace(want, `found"}`, `found","index":0}`, 1)
			}
			if c.path == "/query" {
				// The lanius view answers a session it holds nothing of with an empty page, as
				// the reference does: the same page for both ids.
				empty := `{"ok":true,"kind":"transcript","session":"` + id + `","messages":[],"has_more":false,"limit":80,"content_chars":16384,"result_chars":16384,"scope":"tenant"}` + "\n"
				if r.status != http.StatusOK || got != empty {
					t.Errorf("%s %s (%s): got %d %s, want 200 %s", c.method, path, id, r.status, got, empty)
				}
				continue
			}
			if c.path == "/v1/ingest" {
				// The ingest engine names the line, like annals ingest.
				if r.status != http.StatusNotFound || !strings.HasPrefix(got, `{"error":{"code":"not_found","message":"line 1: chat \"`+id+`\" not found`) {
					t.Errorf("%s %s: got %d %s", c.method, path, r.status, got)
				}
				continue
			}
			if r.status != http.StatusNotFound || got != want {
				t.Errorf("%s %s (%s): got %d %s, want 404 %s", c.method, path, id, r.status, got, want)
			}
		}
	}
	// Lists, searches and the view never show B's chat.
	for _, c := range []struct{ path, body string }{
		{"/v1/history", `{"op":"list","scope":"tenant"}`},
		{"/v1/history", `{"op":"search","query":"reactor"}`},
		{"/v1/history", `{"op":"search","query":"secret","mode":"entries"}`},
		{"/v1/history", `{"op":"related","query":"secret reactor pressure of B"}`},
		{"/query", `{"kind":"agents"}`},
		{"/query", `{"kind":"sessions"}`},
		{"/query", `{"kind":"search","filter":{"text":"reactor"}}`},
		{"/query", `{"kind":"conversation","correlation":"corr-1"}`},
	} {
		r := f.must(http.StatusOK, "POST", c.path, k, c.body)
		if strings.Contains(string(r.body), `"b1"`) || strings.Contains(string(r.body), "secret reactor") {
			t.Errorf("%s %s leaked tenant B: %s", c.path, c.body, r.body)
		}
	}
	// Nothing was written to B's chat by the attempts above.
	chat, err := f.db.FindChatByID(context.Background(), "b1")
	if err != nil || chat.Totals.Entries != 1 || chat.Title != "Reactor pressure in tenant B" || chat.Pinned {
		t.Errorf("tenant B's chat changed: %+v, %v", chat, err)
	}
	// A user-scoped key of the same tenant does not reach another user's chat either.
	if r := f.do("POST", "/v1/history", f.keyA2, `{"op":"get","session_id":"a1"}`); r.status != http.StatusNotFound {
		t.Errorf("user scope reached another user's chat: %d %s", r.status, r.body)
	}
}

func TestGlobalScopeNeedsAnAdminKey(t *testing.T) {
	f := newTwoTenants(t)
	e := f.must(http.StatusForbidden, "POST", "/v1/history", f.keyA, `{"op":"list","scope":"global"}`).errorOf(t)
	if !strings.Contains(e.Message, "admin") {
		t.Errorf("message %q does not say global is for admins", e.Message)
	}
	f.must(http.StatusForbidden, "POST", "/query", f.keyA, `{"kind":"sessions","scope":"any"}`)
	var list envelope.ListResponse
	f.must(http.StatusOK, "POST", "/v1/history", f.keyAdmin, `{"op":"list","scope":"global"}`).json(t, &list)
	if list.Total != 3 {
		t.Errorf("admin global list: total %d, want 3", list.Total)
	}
	// An admin key of tenant root reads B's chat only with global.
	f.must(http.StatusNotFound, "POST", "/v1/history", f.keyAdmin, `{"op":"get","session_id":"b1","scope":"tenant"}`)
	f.must(http.StatusOK, "GET", "/v1/sessions/b1/export?scope=global", f.keyAdmin, "")
}

func TestBadCredentialsAllGetTheSame401(t *testing.T) {
	// 18 failures from one address: past the failed-authentication limit, which has its own
	// test (TestFailedAuthenticationsAreLimitedPerAddress); here every one must be the same 401.
	f := newTwoTenants(t, func(c *httpapi.Config) { c.AuthFailures = -1 })
	revoked := mustKey(t, f.db, member("A", "ua1", "", annals.ScopeUser))
	keys, _ := f.db.ListKeys(context.Background())
	for _, k := range keys {
		if k.Principal.TenantID == "A" && k.Principal.UserID == "ua1" && len(k.Principal.Scopes) == 1 {
			if _, err := f.db.RevokeKey(context.Background(), k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	unknown, _ := annals.NewKeySecret()
	var first string
	for name, auth := range map[string]string{
		"missing":   "",
		"malformed": "Bearer not-a-key",
		"wrong":     "Basic " + f.keyA,
		"unknown":   "Bearer " + unknown,
		"revoked":   "Bearer " + revoked,
		"truncated": "Bearer " + f.keyA[:len(f.keyA)-1],
	} {
		req, _ := http.NewRequest("POST", f.url+"/v1/history", strings.NewReader(`{"op":"list"}`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var eb httpapi.ErrorBody
		json.NewDecoder(res.Body).Decode(&eb)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized || eb.Error.Code != "unauthorized" || res.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: got %d %+v", name, res.StatusCode, eb)
		}
		if first == "" {
			first = eb.Error.Message
		} else if eb.Error.Message != first {
			t.Errorf("%s: message %q differs from %q: it must not say why", name, eb.Error.Message, first)
		}
	}
	// Every authenticated route refuses without a key; /healthz does not need one.
	for _, r := range []struct{ method, path string }{
		{"POST", "/v1/history"}, {"POST", "/v1/_history"}, {"POST", "/v1/sessions"}, {"POST", "/v1/sessions/a1/entries"},
		{"POST", "/v1/sessions/a1/truncate"}, {"POST", "/v1/runs"}, {"POST", "/v1/capture"}, {"POST", "/v1/ingest"},
		{"POST", "/query"}, {"GET", "/v1/sessions/a1/export"}, {"GET", "/v1/sessions/a1/runs"}, {"GET", "/metrics"},
	} {
		f.must(http.StatusUnauthorized, r.method, r.path, "", "{}")
	}
}

func TestMalformedRequestsGetTheRightStatusAndAClearMessage(t *testing.T) {
	f := newTwoTenants(t, withMaxBody(64<<10))
	k := f.keyA
	cases := []struct {
		name, method, path, body string
		status                   int
		code, message            string
	}{
		{"malformed JSON", "POST", "/v1/history", `{"op":"list"`, 400, "invalid", "malformed JSON"},
		{"not an object", "POST", "/v1/history", `[1]`, 400, "invalid", "must be"},
		{"empty body", "POST", "/v1/history", ``, 400, "invalid", "empty"},
		{"unknown field", "POST", "/v1/history", `{"op":"list","limitt":3}`, 400, "invalid", `unknown field "limitt"`},
		{"wrong type", "POST", "/v1/history", `{"op":"list","limit":"3"}`, 400, "invalid", `"limit"`},
		{"two values", "POST", "/v1/history", `{"op":"list"} {"op":"list"}`, 400, "invalid", "more than one JSON value"},
		{"unknown enum", "POST", "/v1/history", `{"op":"list","status":"done"}`, 400, "invalid", "want one of: running"},
		{"view unknown field", "POST", "/query", `{"kind":"agents","x":1,"annals":{"strict":true}}`, 400, "invalid", `unknown field "x"`},
		{"chat unknown field", "POST", "/v1/sessions", `{"id":"n1","titel":"x"}`, 400, "invalid", `unknown field "titel"`},
		{"chat wrong type", "POST", "/v1/sessions", `{"id":"n1","tags":"x"}`, 400, "invalid", "chat.tags"},
		{"entry unknown kind", "POST", "/v1/sessions/a1/entries", `{"entries":[{"id":"e9","kind":"answer"}]}`, 400, "invalid", `entries[0]: entry.kind: unknown entry kind "answer"`},
		{"entry line unknown field", "POST", "/v1/sessions/a1/entries", "{\"id\":\"e9\",\"kind\":\"user\"}\n{\"id\":\"e10\",\"kind\":\"user\",\"Text\":\"x\"}", 400, "invalid", `line 2: entry: unknown field "Text"`},
		{"entry chat_id mismatch", "POST", "/v1/sessions/a1/entries", `{"chat_id":"a2","id":"e9","kind":"user"}`, 400, "invalid", "differs from the chat in the path"},
		{"truncate two points", "POST", "/v1/sessions/a1/truncate", `{"seq":1,"entry_id":"m1"}`, 400, "invalid", "exactly one of entry_id, source_id or seq"},
		{"run bad status", "POST", "/v1/runs", `{"chat_id":"a1","id":"r9","status":"done"}`, 400, "invalid", "run.status"},
		{"capture unknown field", "POST", "/v1/capture", `{"ops":[{"chat":{"id":"x"}}],"dry":true}`, 400, "invalid", `unknown field "dry"`},
		{"export bad format", "GET", "/v1/sessions/a1/export?format=pdf", ``, 400, "invalid", "want markdown or json"},
		{"export unknown parameter", "GET", "/v1/sessions/a1/export?fromat=json", ``, 400, "invalid", `unknown query parameter "fromat"`},
		{"huge body", "POST", "/v1/history", `{"op":"list","query":"` + strings.Repeat("x", 70<<10) + `"}`, 413, "too_large", "larger than 65536 bytes"},
		{"huge ingest", "POST", "/v1/ingest", strings.Repeat(`{"type":"chat","id":"z"}`+"\n", 4000), 413, "too_large", "larger than"},
		{"huge view query", "POST", "/query", `{"kind":"search","filter":{"text":"` + strings.Repeat("y ", 40<<10) + `"}}`, 413, "too_large", "larger than"},
		{"wrong method", "GET", "/v1/history", ``, 405, "method_not_allowed", "allowed: POST"},
		{"wrong method on a GET route", "DELETE", "/v1/sessions/a1/export", ``, 405, "method_not_allowed", "allowed: GET, HEAD"},
		{"unknown route", "POST", "/v1/histories", `{}`, 404, "not_found", "no route POST /v1/histories"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do(c.method, c.path, k, c.body)
			e := r.errorOf(t)
			if r.status != c.status || e.Code != c.code || !strings.Contains(e.Message, c.message) {
				t.Errorf("got %d %s %q, want %d %s containing %q", r.status, e.Code, e.Message, c.status, c.code, c.message)
			}
			if c.status == 405 && r.header.Get("Allow") == "" {
				t.Error("405 without an Allow header")
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func TestCaptureRoutesTakeTheOwnerFromTheKey(t *testing.T) {
	f := newTwoTenants(t)
	k := f.keyA // tenant A, user ua1
	// The body's tenant is ignored for a member; user and agent default to the key's.
	var ca httpapi.ChatAnswer
	f.must(http.StatusCreated, "POST", "/v1/sessions", k, `{"id":"n1","tenant_id":"B","title":"New chat","attributes":{"source":"curl"}}`).json(t, &ca)
	if ca.Chat.TenantID != "A" || ca.Chat.UserID != "ua1" || !ca.Created {
		t.Errorf("created %+v", ca)
	}
	// Creating it again is idempotent (200), with other immutable data a conflict.
	f.must(http.StatusOK, "POST", "/v1/sessions", k, `{"id":"n1","attributes":{"source":"curl"}}`)
	f.must(http.StatusConflict, "POST", "/v1/sessions", k, `{"id":"n1","attributes":{"source":"other"}}`)
	// Another tenant's chat id answers like any conflict, saying nothing about whose it is.
	e := f.must(http.StatusConflict, "POST", "/v1/sessions", k, `{"id":"b1"}`).errorOf(t)
	if strings.Contains(e.Message, "B") || strings.Contains(e.Message, "ub1") {
		t.Errorf("conflict message names the owner: %q", e.Message)
	}
	// A key with a user cannot create a chat for another user.
	f.must(http.StatusForbidden, "POST", "/v1/sessions", k, `{"id":"n2","user_id":"ua2"}`)

	// Append as JSON, then as JSON Lines; idempotent by entry id; secrets are redacted.
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	var ar annals.AppendResult
	f.must(http.StatusOK, "POST", "/v1/sessions/n1/entries", k, `{"entries":[{"id":"e1","kind":"user","text":"my token is `+token+`","source_ids":["u1"]},{"type":"entry","id":"e2","kind":"assistant","text":"noted"}]}`).json(t, &ar)
	if ar.Appended != 2 || ar.LastSeq != 2 {
		t.Errorf("append: %+v", ar)
	}
	f.must(http.StatusOK, "POST", "/v1/sessions/n1/entries", k, "{\"id\":\"e2\",\"kind\":\"assistant\",\"text\":\"noted\"}\n\n{\"chat_id\":\"n1\",\"id\":\"e3\",\"kind\":\"tool\",\"tool\":{\"name\":\"Bash\",\"arguments\":{\"cmd\":\"ls\"},\"result\":\"ok\",\"outcome\":\"succeeded\"}}\n").json(t, &ar)
	if ar.Appended != 1 || ar.Skipped != 1 || ar.LastSeq != 3 {
		t.Errorf("append lines: %+v", ar)
	}
	var run httpapi.RunAnswer
	f.must(http.StatusOK, "POST", "/v1/runs", k, `{"chat_id":"n1","id":"n1/r1","status":"completed","input_tokens":7}`).json(t, &run)
	if run.Run.Status != annals.StatusCompleted || run.Run.StartedAt.IsZero() {
		t.Errorf("run: %+v", run.Run)
	}
	var tr annals.TruncateResult
	f.must(http.StatusOK, "POST", "/v1/sessions/n1/truncate", k, `{"source_id":"u1"}`).json(t, &tr)
	if tr.Removed != 3 || tr.LastSeq != 0 {
		t.Errorf("truncate: %+v", tr)
	}
	f.must(http.StatusOK, "POST", "/v1/sessions/n1/entries", k, `{"entries":[{"id":"e1","kind":"user","text":"again `+token+`"}]}`)
	get := f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"get","session_id":"n1"}`)
	if strings.Contains(string(get.body), token) || !strings.Contains(string(get.body), "[redacted:github_token]") {
		t.Errorf("capture over HTTP did not redact: %s", get.body)
	}
	search := f.must(http.StatusOK, "POST", "/v1/history", k, `{"op":"search","query":"ghp_0123456789abcdefghijABCDEFGHIJ012345"}`)
	if strings.Contains(string(search.body), `"n1"`) {
		t.Errorf("the secret is searchable: %s", search.body)
	}

	// The batch route: a chat and its entries in one transaction; a failure names its op.
	var cr annals.CaptureResult
	f.must(http.StatusOK, "POST", "/v1/capture", k, `{"ops":[{"chat":{"id":"n3","tenant_id":"X","created_at":"2026-01-01T00:00:00Z","last_activity":"0001-01-01T00:00:00Z","pinned":false,"totals":{"runs":0,"entries":0,"input_tokens":0,"output_tokens":0,"cost_usd":0}}},{"append":{"chat_id":"n3","entries":[{"chat_id":"n3","id":"e1","seq":0,"kind":"user","time":"2026-01-01T00:00:00Z","text":"hi"}]}}]}`).json(t, &cr)
	if cr.ChatsCreated != 1 || cr.EntriesAppended != 1 {
		t.Errorf("capture: %+v", cr)
	}
	e = f.must(http.StatusNotFound, "POST", "/v1/capture", k, `{"ops":[{"chat":{"id":"n4","created_at":"2026-01-01T00:00:00Z","last_activity":"2026-01-01T00:00:00Z","pinned":false,"totals":{}}},{"run":{"id":"q","chat_id":"nope","status":"running","started_at":"2026-01-01T00:00:00Z"}}]}`).errorOf(t)
	if e.Index == nil || *e.Index != 1 {
		t.Errorf("capture error index: %+v", e)
	}
	if _, err := f.db.FindChatByID(context.Background(), "n4"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("a failed batch left chat n4 behind: %v", err)
	}
	// The ingest route takes the capture format and reports like annals ingest.
	var rep struct {
		Lines        int `json:"lines"`
		ChatsCreated int `json:"chats_created"`
	}
	f.must(http.StatusOK, "POST", "/v1/ingest", k, "{\"type\":\"chat\",\"id\":\"n5\"}\n{\"type\":\"entry\",\"chat_id\":\"n5\",\"id\":\"e1\",\"kind\":\"user\",\"text\":\"x\"}\n").json(t, &rep)
	if rep.Lines != 2 || rep.ChatsCreated != 1 {
		t.Errorf("ingest: %+v", rep)
	}
	chat, err := f.db.FindChatByID(context.Background(), "n5")
	if err != nil || chat.TenantID != "A" || chat.UserID != "ua1" {
		t.Errorf("ingested chat %+v, %v; want tenant A user ua1", chat, err)
	}
	// An admin may name the tenant.
	f.must(http.StatusCreated, "POST", "/v1/sessions", f.keyAdmin, `{"id":"n6","tenant_id":"C","user_id":"uc"}`).json(t, &ca)
	if ca.Chat.TenantID != "C" {
		t.Errorf("admin create: %+v", ca.Chat)
	}
}

func TestExportIsADownload(t *testing.T) {
	f := newTwoTenants(t)
	r := f.must(http.StatusOK, "GET", "/v1/sessions/a1/export?format=markdown", f.keyA, "")
	if cd := r.header.Get("Content-Disposition"); cd != `attachment; filename="a1.md"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") || !strings.Contains(string(r.body), "# Reactor pressure review") {
		t.Errorf("markdown export: %s", r.body)
	}
	r = f.must(http.StatusOK, "GET", "/v1/sessions/a1/export?format=json", f.keyA, "")
	var doc httpapi.ExportDocument
	r.json(t, &doc)
	if doc.Chat.ID != "a1" || doc.Format != "json" || len(doc.Entries) != 3 || len(doc.Runs) != 1 || r.header.Get("Content-Disposition") != `attachment; filename="a1.json"` {
		t.Errorf("json export: %+v", doc)
	}
	var runs httpapi.RunsAnswer
	f.must(http.StatusOK, "GET", "/v1/sessions/a1/runs", f.keyA, "").json(t, &runs)
	if len(runs.Runs) != 1 || runs.Runs[0].ID != "a1/r1" {
		t.Errorf("runs: %+v", runs)
	}
}

func TestReadOnlyServerRefusesEveryWrite(t *testing.T) {
	db, path := mustOpenDB(t)
	key := mustKey(t, db, member("A", "ua1", "", annals.ScopeUser))
	if _, err := annals.CreateChat(context.Background(), db, &annals.Chat{ID: "a1", TenantID: "A", UserID: "ua1", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	e := startEnv(t, ro, path, true)
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/v1/sessions", `{"id":"x"}`},
		{"POST", "/v1/sessions/a1/entries", `{"entries":[{"id":"e","kind":"user"}]}`},
		{"POST", "/v1/sessions/a1/truncate", `{"seq":1}`},
		{"POST", "/v1/runs", `{"chat_id":"a1","id":"r","status":"running"}`},
		{"POST", "/v1/capture", `{"ops":[]}`},
		{"POST", "/v1/ingest", `{"type":"chat","id":"x"}`},
		{"POST", "/v1/history", `{"op":"rename","session_id":"a1","title":"x"}`},
		{"POST", "/v1/history", `{"op":"recap","session_id":"a1"}`},
		{"POST", "/v1/history", `{"op":"delete","session_id":"a1"}`},
	} {
		r := e.do(w.method, w.path, key, w.body)
		if r.status != http.StatusForbidden || !strings.Contains(r.errorOf(t).Message, "read-only") {
			t.Errorf("%s %s %s: got %d %s", w.method, w.path, w.body, r.status, r.body)
		}
	}
	e.must(http.StatusOK, "POST", "/v1/history", key, `{"op":"list"}`)
	e.must(http.StatusOK, "POST", "/v1/history", key, `{"op":"get","session_id":"a1"}`)
	e.must(http.StatusOK, "POST", "/query", key, `{"kind":"sessions"}`)
	e.must(http.StatusOK, "GET", "/v1/sessions/a1/export", key, "")
}

func TestNoKeysMeansLocalModeOnLoopbackOnly(t *testing.T) {
	db, _ := mustOpenDB(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		srv := httpapi.New(httpapi.Config{Addr: addr, Service: history.New(history.Config{Store: db}), Keys: db})
		err := srv.Open(context.Background())
		if err == nil {
			srv.Close()
			t.Fatalf("%s: listening without keys on a non-loopback address was allowed", addr)
		}
		if !strings.Contains(err.Error(), "without API keys") || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "annals keys create") {
			t.Errorf("%s: message does not say why or how to fix it: %v", addr, err)
		}
	}
	// On loopback with no keys: the local owner, no credentials needed.
	e := startEnv(t, db, "", false)
	if !e.srv.LocalMode() {
		t.Fatal("not in local mode")
	}
	e.must(http.StatusCreated, "POST", "/v1/sessions", "", `{"id":"l1","title":"local"}`)
	var list envelope.ListResponse
	e.must(http.StatusOK, "POST", "/v1/history", "", `{"op":"list"}`).json(t, &list)
	if list.Total != 1 || list.Chats[0].TenantID != "local" {
		t.Errorf("local list: %+v", list)
	}
	// A key created while the server runs ends local mode (within a second), for good.
	key := mustKey(t, db, member("local", "local", "", annals.ScopeUser))
	deadline := time.Now().Add(5 * time.Second)
	for e.do("POST", "/v1/history", "", `{"op":"list"}`).status != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("local mode did not end after a key was created")
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.must(http.StatusOK, "POST", "/v1/history", key, `{"op":"list"}`)
	if e.srv.LocalMode() {
		t.Error("LocalMode still reports true")
	}
}

func TestMetricsCountRequestsLatencyAndStoreSizes(t *testing.T) {
	f := newTwoTenants(t)
	f.must(http.StatusOK, "POST", "/v1/history", f.keyA, `{"op":"list"}`)
	f.must(http.StatusNotFound, "POST", "/v1/history", f.keyA, `{"op":"get","session_id":"zz"}`)
	f.must(http.StatusForbidden, "GET", "/metrics", f.keyA, "")
	r := f.must(http.StatusOK, "GET", "/metrics", f.keyAdmin, "")
	body := string(r.body)
	for _, want := range []string{
		`annals_http_requests_total{method="POST",route="/v1/history",code="200"} 1`,
		`annals_http_requests_total{method="POST",route="/v1/history",code="404"} 1`,
		`annals_http_requests_total{method="GET",route="/metrics",code="403"} 1`,
		`annals_http_request_duration_seconds_bucket{method="POST",route="/v1/history",le="+Inf"} 2`,
		`annals_http_request_duration_seconds_count{method="POST",route="/v1/ingest"} 1`,
		"annals_chats 3\n",
		"annals_entries 5\n",
		"# TYPE annals_http_request_duration_seconds histogram",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", r.header.Get("Content-Type"))
	}
}

func TestAccessLogNamesTheRouteButNeverKeysOrBodies(t *testing.T) {
	f := newTwoTenants(t)
	f.must(http.StatusOK, "POST", "/v1/history", f.keyA, `{"op":"search","query":"reactor"}`)
	f.do("POST", "/v1/history", "", `{"op":"search","query":"confidential-words"}`)
	logs := f.logs.String()
	for _, secret := range []string{f.keyA, f.keyAdmin, "confidential-words", "reactor", "pressure"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
	var found bool
	for _, line := range strings.Split(logs, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "http request" {
			continue
		}
		if rec["route"] == "POST /v1/history" && rec["status"] == float64(200) && rec["tenant"] == "A" && rec["key_id"] != nil && rec["duration_ms"] != nil && rec["bytes"] != nil {
			found = true
		}
	}
	if !found {
		t.Errorf("no access log line with route, status, tenant, key id, duration and bytes:\n%s", logs)
	}
}

func TestCloseDrainsRequestsInFlight(t *testing.T) {
	f := newTwoTenants(t)
	done := make(chan int, 1)
	go func() {
		r := f.do("POST", "/v1/ingest", f.keyAdmin, seedJSONL)
		done <- r.status
	}()
	time.Sleep(20 * time.Millisecond)
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case status := <-done:
		if status != http.StatusOK {
			t.Errorf("request in flight got %d", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("request in flight never finished")
	}
	if err := <-f.srv.Done(); err != nil {
		t.Errorf("serve loop: %v", err)
	}
}

func TestARequestPastItsTimeoutIsUnavailable(t *testing.T) {
	var key string
	e := newEnv(t, func(db *sqlite.DB) {
		key = mustKey(t, db, member("A", "ua1", "", annals.ScopeUser))
	}, func(c *httpapi.Config) { c.RequestTimeout = time.Nanosecond })
	got := e.must(http.StatusServiceUnavailable, "POST", "/v1/history", key, `{"op":"list"}`).errorOf(t)
	if got.Code != annals.EUNAVAILABLE || !strings.Contains(got.Message, "request timeout (1ns, --request-timeout)") {
		t.Errorf("got %+v", got)
	}
}

// TestLocalModeRefusesBrowserAndRebindingRequests: loopback binding keeps other machines out,
// but a web page can still reach 127.0.0.1 with a cross-site simple POST or, after DNS
// rebinding, under its own host name. Local mode must answer neither.
func TestLocalModeRefusesBrowserAndRebindingRequests(t *testing.T) {
	db, _ := mustOpenDB(t)
	e := startEnv(t, db, "", false)
	send := func(host string, headers map[string]string) int {
		t.Helper()
		req, err := http.NewRequest("POST", e.url+"/v1/history", strings.NewReader(`{"op":"list"}`))
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	port := e.url[strings.LastIndex(e.url, ":")+1:]
	for name, tc := range map[string]struct {
		host    string
		headers map[string]string
		want    int
	}{
		"plain loopback":      {"", nil, http.StatusOK},
		"localhost name":      {"localhost:" + port, nil, http.StatusOK},
		"same-origin browser": {"", map[string]string{"Origin": "http://127.0.0.1:" + port, "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		"rebound host name":   {"rebind.evil.example:" + port, nil, http.StatusForbidden},
		"cross-site origin":   {"", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, http.StatusForbidden},
		"cross-site fetch":    {"", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		"null origin":         {"", map[string]string{"Origin": "null"}, http.StatusForbidden},
	} {
		if got := send(tc.host, tc.headers); got != tc.want {
			t.Errorf("%s: status %d, want %d", name, got, tc.want)
		}
	}
}

// TestAMemberCannotRewriteAColleaguesChat: a member whose scope reaches a colleague's chat may
// read it, but appending to it, rewinding it or recording runs on it needs the right that delete
// needs (operator, admin, or the chat's own user or agent).
func TestAMemberCannotRewriteAColleaguesChat(t *testing.T) {
	db, _ := mustOpenDB(t)
	ctx := context.Background()
	for _, c := range []*annals.Chat{{ID: "mine", TenantID: "A", UserID: "ua1"}, {ID: "theirs", TenantID: "A", UserID: "ua2"}} {
		if _, err := annals.CreateChat(ctx, db, c); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, db, c.ID, []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hello"}}); err != nil {
			t.Fatal(err)
		}
	}
	key := mustKey(t, db, member("A", "ua1", "", annals.ScopeUser, annals.ScopeTenant))
	e := startEnv(t, db, "", false)
	e.must(http.StatusOK, "POST", "/v1/history", key, `{"op":"get","scope":"tenant","session_id":"theirs"}`)
	for _, w := range []struct{ path, body string }{
		{"/v1/sessions/theirs/truncate", `{"seq":1}`},
		{"/v1/sessions/theirs/entries", `{"entries":[{"id":"x","kind":"user","text":"planted"}]}`},
		{"/v1/runs", `{"id":"r-x","chat_id":"theirs","status":"completed"}`},
	} {
		e.must(http.StatusForbidden, "POST", w.path, key, w.body)
	}
	got, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "theirs"})
	if err != nil || len(got) != 1 || got[0].Text != "hello" {
		t.Errorf("the colleague's transcript changed: %+v %v", got, err)
	}
	e.must(http.StatusOK, "POST", "/v1/sessions/mine/entries", key, `{"entries":[{"id":"e2","kind":"assistant","text":"mine to write"}]}`)
	e.must(http.StatusOK, "POST", "/v1/sessions/mine/truncate", key, `{"seq":2}`)
}
