package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/internal/pgtest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/redact"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/summarize"
	"github.com/annals-dev/annals/view"
)

// A client of the loomcycle History tool's HTTP route (POST /v1/_history) pointed at annals. The
// expected answers are written from the reference tool's rules (its defaults, field names,
// refusal texts and statuses), not read back from annals.

// lcStore is what the fixture needs of a backend.
type lcStore interface {
	history.Store
	view.Store
	annals.KeyStore
}

// lcSeed holds, in tenant T: an imported loomcycle session (loomcycle:s_alpha) and native chats
// of the same agent, another agent's chat, and a chat of tenant U that shares every word.
const lcSeed = `{"type":"chat","id":"loomcycle:s_alpha","tenant_id":"T","user_id":"u1","agent_id":"bot","title":"Why is Caching hard","tags":["project:infra"],"created_at":"2026-03-01T10:00:00Z"}
{"type":"run","chat_id":"loomcycle:s_alpha","id":"loomcycle:r1","status":"completed","model":"m","started_at":"2026-03-01T10:00:01Z","input_tokens":10,"output_tokens":5,"cost_usd":0.25}
{"type":"entry","chat_id":"loomcycle:s_alpha","id":"e1","kind":"user","text":"Why is caching hard?","run_id":"loomcycle:r1","time":"2026-03-01T10:00:01Z"}
{"type":"entry","chat_id":"loomcycle:s_alpha","id":"e2","kind":"assistant","text":"Because ","run_id":"loomcycle:r1","time":"2026-03-01T10:00:02Z"}
{"type":"entry","chat_id":"loomcycle:s_alpha","id":"e3","kind":"assistant","text":"invalidation.","run_id":"loomcycle:r1","time":"2026-03-01T10:00:03Z"}
{"type":"entry","chat_id":"loomcycle:s_alpha","id":"e4","kind":"tool","run_id":"loomcycle:r1","time":"2026-03-01T10:00:04Z","tool":{"name":"Read","call_id":"c1","arguments":{"path":"cache.go"},"result":"package cache","outcome":"succeeded"}}
{"type":"entry","chat_id":"loomcycle:s_alpha","id":"e5","kind":"assistant","text":"Also naming.","run_id":"loomcycle:r1","time":"2026-03-01T10:00:05Z"}
{"type":"entry","chat_id":"loomcycle:s_alpha","id":"e6","kind":"user","text":"thanks","time":"2026-03-01T10:00:06Z"}
{"type":"chat","id":"n1","tenant_id":"T","user_id":"u1","agent_id":"bot","title":"100%_done\\ok","created_at":"2026-03-02T10:00:00Z"}
{"type":"chat","id":"n2","tenant_id":"T","user_id":"u1","agent_id":"bot","title":"done ok","created_at":"2026-03-03T10:00:00Z"}
{"type":"chat","id":"n3","tenant_id":"T","user_id":"u2","agent_id":"other","title":"Caching elsewhere","created_at":"2026-03-04T10:00:00Z"}
{"type":"chat","id":"u1chat","tenant_id":"U","user_id":"u1","agent_id":"bot","title":"Why is caching hard in U","created_at":"2026-03-05T10:00:00Z"}
`

type lcEnv struct {
	*env
	key, keyNoAgent, keyU, admin string
}

// newLCEnv starts a server on :0 over backend ("sqlite" or "postgres") with lcSeed ingested.
func newLCEnv(t *testing.T, backend string) *lcEnv {
	t.Helper()
	var st lcStore
	switch backend {
	case "sqlite":
		db, _ := mustOpenDB(t)
		st = db
	case "postgres":
		db, err := postgres.Open(context.Background(), pgtest.FreshSchema(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		st = db
	}
	l := &lcEnv{
		key:        mustKey(t, st, member("T", "u1", "bot", annals.ScopeSelf, annals.ScopeUser, annals.ScopeTenant)),
		keyNoAgent: mustKey(t, st, member("T", "u1", "", annals.ScopeSelf, annals.ScopeTenant)),
		keyU:       mustKey(t, st, member("U", "u1", "bot", annals.ScopeSelf, annals.ScopeTenant)),
	}
	l.admin = mustKey(t, st, admin("root"))
	l.env = serveStore(t, st)
	l.must(http.StatusOK, "POST", "/v1/ingest", l.admin, lcSeed)
	return l
}

func serveStore(t *testing.T, st lcStore) *env {
	t.Helper()
	red, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: st, View: st, Summarizer: summarize.Extractive{}, Embedder: emb, Redactor: red})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Stats: svc, Keys: st, Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &env{tb: t, svc: svc, srv: srv, url: srv.URL(), logs: &syncBuffer{}}
}

// call posts a body to /v1/_history and decodes the answer, which must have the given status.
func (l *lcEnv) call(t *testing.T, key string, status int, body string) map[string]any {
	t.Helper()
	r := l.do("POST", "/v1/_history", key, body)
	if r.status != status {
		t.Fatalf("%s: status %d, want %d: %.400s", body, r.status, status, r.body)
	}
	var m map[string]any
	r.json(t, &m)
	return m
}

// refused asserts the reference's refusal: 422 {code: tool_refused, error, tool: History}.
func (l *lcEnv) refused(t *testing.T, key, body, want string) {
	t.Helper()
	m := l.call(t, key, http.StatusUnprocessableEntity, body)
	if m["code"] != "tool_refused" || m["tool"] != "History" || len(m) != 3 {
		t.Errorf("%s: refusal shape %v", body, m)
	}
	if got, _ := m["error"].(string); got != want && !(strings.HasSuffix(want, "…") && strings.HasPrefix(got, strings.TrimSuffix(want, "…"))) {
		t.Errorf("%s: error %q, want %q", body, got, want)
	}
}

func forBackends(t *testing.T, fn func(t *testing.T, l *lcEnv)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) { fn(t, newLCEnv(t, b)) })
	}
}

func sessionIDs(rows any) []string {
	var out []string
	for _, r := range rows.([]any) {
		out = append(out, r.(map[string]any)["session_id"].(string))
	}
	sort.Strings(out)
	return out
}

func TestLoomcycleListRowsAndDefaultScopeSelf(t *testing.T) {
	forBackends(t, func(t *testing.T, l *lcEnv) {
		// No scope is self: this agent's chats in this tenant, not the widest scope allowed.
		ans := l.call(t, l.key, http.StatusOK, `{"op":"list"}`)
		if ans["scope"] != "self" || ans["total"] != 3.0 || ans["limit"] != 50.0 || ans["offset"] != 0.0 {
			t.Errorf("list envelope: %v", ans)
		}
		if got := sessionIDs(ans["chats"]); !reflect.DeepEqual(got, []string{"n1", "n2", "s_alpha"}) {
			t.Errorf("self chats %v", got)
		}
		var row map[string]any
		for _, r := range ans["chats"].([]any) {
			if r.(map[string]any)["session_id"] == "s_alpha" {
				row = r.(map[string]any)
			}
		}
		want := map[string]any{"session_id": "s_alpha", "tenant_id": "T", "agent": "bot", "user_id": "u1",
			"created_at": "2026-03-01T10:00:00Z", "last_activity": "2026-03-01T10:00:06Z", "run_count": 1.0,
			"title": "Why is Caching hard", "tags": []any{"project:infra"}, "input_tokens": 10.0, "output_tokens": 5.0,
			"cost": 0.25, "status": "completed"}
		if !reflect.DeepEqual(row, want) {
			t.Errorf("chat row:\n got %v\nwant %v", row, want)
		}
		// Pinned first, then most recent: n2 is newer than n1.
		l.call(t, l.key, http.StatusOK, `{"op":"pin","session_id":"s_alpha"}`)
		ans = l.call(t, l.key, http.StatusOK, `{"op":"list","limit":1000}`)
		var order []string
		for _, r := range ans["chats"].([]any) {
			order = append(order, r.(map[string]any)["session_id"].(string))
		}
		if strings.Join(order, ",") != "s_alpha,n2,n1" || ans["limit"] != 500.0 {
			t.Errorf("order %v, limit %v", order, ans["limit"])
		}
		// Tenant scope is echoed and reaches the other agent's chat, never tenant U's.
		ans = l.call(t, l.key, http.StatusOK, `{"op":"list","scope":"tenant","limit":-3,"include_internal":true}`)
		if ans["scope"] != "tenant" || ans["total"] != 4.0 || ans["limit"] != 50.0 {
			t.Errorf("tenant list: %v", ans)
		}
	})
}

func TestLoomcycleSearchIsATitleSubstring(t *testing.T) {
	forBackends(t, func(t *testing.T, l *lcEnv) {
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"hy is C", []string{"s_alpha"}},
			{"CACHING", []string{"n3", "s_alpha"}},
			{"%", []string{"n1"}},
			{"_", []string{"n1"}},
			{`\`, []string{"n1"}},
			{"0%_d", []string{"n1"}},
			{"done", []string{"n1", "n2"}},
		} {
			body, _ := json.Marshal(map[string]any{"op": "search", "scope": "tenant", "query": c.query})
			ans := l.call(t, l.key, http.StatusOK, string(body))
			if got := sessionIDs(ans["chats"]); !reflect.DeepEqual(got, c.want) || ans["total"] != float64(len(c.want)) {
				t.Errorf("search %q: %v (total %v), want %v", c.query, got, ans["total"], c.want)
			}
			if ans["scope"] != "tenant" || ans["limit"] != 50.0 {
				t.Errorf("search %q envelope: %v", c.query, ans)
			}
		}
		l.refused(t, l.key, `{"op":"search","query":"  "}`, "history: search requires a non-empty query")
	})
}

func TestLoomcycleGetTranscriptAndFormats(t *testing.T) {
	forBackends(t, func(t *testing.T, l *lcEnv) {
		for _, id := range []string{"s_alpha", "loomcycle:s_alpha"} {
			ans := l.call(t, l.key, http.StatusOK, fmt.Sprintf(`{"op":"get","session_id":%q}`, id))
			chat := ans["chat"].(map[string]any)
			if ans["scope"] != "self" || chat["session_id"] != "s_alpha" || chat["run_count"] != 1.0 || chat["cost"] != 0.25 {
				t.Errorf("get %s: %v", id, ans)
			}
			if _, ok := chat["last_activity"]; ok {
				t.Errorf("get's chat carries last_activity, which the reference's chat metadata has not")
			}
			tr := ans["transcript"].([]any)
			var types []string
			for _, e := range tr {
				types = append(types, e.(map[string]any)["type"].(string))
			}
			if strings.Join(types, ",") != "user_input,text,text,tool_call,text,user_input" {
				t.Errorf("transcript types %v", types)
			}
			first := tr[0].(map[string]any)
			if first["seq"] != 1.0 || first["run_id"] != "r1" || first["ts"] != "2026-03-01T10:00:01Z" {
				t.Errorf("first event %v", first)
			}
			seg := first["payload"].([]any)[0].(map[string]any)
			if seg["role"] != "user" || seg["content"].([]any)[0].(map[string]any)["text"] != "Why is caching hard?" {
				t.Errorf("user_input payload %v", first["payload"])
			}
			use := tr[3].(map[string]any)["payload"].(map[string]any)["tool_use"].(map[string]any)
			if use["id"] != "c1" || use["name"] != "Read" || use["input"].(map[string]any)["path"] != "cache.go" {
				t.Errorf("tool_call payload %v", tr[3])
			}
		}
		conv := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_alpha","format":"conversation"}`)
		want := "### user\n\nWhy is caching hard?\n\n### assistant\n\nBecause invalidation.\n\n### assistant\n\nAlso naming.\n\n### user\n\nthanks\n\n"
		if conv["format"] != "conversation" || conv["markdown"] != want || conv["transcript"] != nil {
			t.Errorf("conversation: %q", conv["markdown"])
		}
		md := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_alpha","format":"markdown"}`)
		if md["format"] != "markdown" || !strings.Contains(md["markdown"].(string), "Why is Caching hard") {
			t.Errorf("markdown: %v", md)
		}
	})
}

// get returns the whole transcript, past annals's own page limits, unless the client pages.
func TestLoomcycleGetReturnsTheWholeTranscript(t *testing.T) {
	l := newLCEnv(t, "sqlite")
	var b strings.Builder
	b.WriteString(`{"type":"chat","id":"loomcycle:s_long","tenant_id":"T","user_id":"u1","agent_id":"bot"}` + "\n")
	n := history.MaxGetLimit + 7
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"type":"entry","chat_id":"loomcycle:s_long","id":"m%d","kind":"user","text":"line %d"}`+"\n", i, i)
	}
	l.must(http.StatusOK, "POST", "/v1/ingest", l.admin, b.String())
	ans := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_long"}`)
	tr := ans["transcript"].([]any)
	if len(tr) != n || tr[n-1].(map[string]any)["seq"] != float64(n) || ans["has_more"] != nil {
		t.Errorf("whole transcript: %d events, want %d", len(tr), n)
	}
	page := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_long","after_seq":5,"limit":3}`)
	if tr := page["transcript"].([]any); len(tr) != 3 || tr[0].(map[string]any)["seq"] != 6.0 || page["has_more"] != true {
		t.Errorf("paged get: %v", page)
	}
}

func TestLoomcycleRefusals(t *testing.T) {
	forBackends(t, func(t *testing.T, l *lcEnv) {
		ops := "list, get, search, rename, annotate, pin, archive, recap, resume, related, window"
		l.refused(t, l.key, `{"scope":"self"}`, "missing required field: op")
		l.refused(t, l.key, `{"op":"delete","session_id":"n1"}`, `unknown op "delete" (want one of: `+ops+`)`)
		l.refused(t, l.key, `{"op":"list","scope":"any"}`, `history: unknown scope "any" (want one of: self, user, tenant, global)`)
		l.refused(t, l.key, `{"op":"list","status":"complete"}`, `history: unknown status "complete" (want one of: running, completed, failed, cancelled)`)
		l.refused(t, l.key, `{"op":"list","from":"March"}`, `history: from "March" is not a time (want a date such as 2026-01-31 …`)
		l.refused(t, l.key, `{"op":"list","limit":"5"}`, `invalid input JSON: …`)
		l.refused(t, l.key, `{"op":"get"}`, "history: get requires session_id")
		l.refused(t, l.key, `{"op":"rename","session_id":"n1"}`, "history: rename requires title")
		l.refused(t, l.key, `{"op":"annotate","session_id":"n1"}`, "history: annotate requires description and/or tags")
		l.refused(t, l.key, `{"op":"related"}`, "history: related requires session_id or query")
		// Missing, another agent's (self scope) and another tenant's chats are one opaque refusal.
		l.refused(t, l.key, `{"op":"get","session_id":"nope"}`, `history: chat "nope" not found`)
		l.refused(t, l.key, `{"op":"get","session_id":"n3"}`, `history: chat "n3" not found`)
		l.refused(t, l.key, `{"op":"get","scope":"tenant","session_id":"u1chat"}`, `history: chat "u1chat" not found`)
		l.refused(t, l.keyU, `{"op":"rename","scope":"tenant","session_id":"s_alpha","title":"x"}`, `history: chat "s_alpha" not found`)
		// A scope the caller may not use, or lacks the identity for, is refused, never widened.
		l.refused(t, l.key, `{"op":"list","scope":"global"}`, "history: …")
		l.refused(t, l.keyNoAgent, `{"op":"list"}`, "history: …")
		// Fields the tool documents (and any it does not) are accepted and ignored, as it does.
		l.call(t, l.key, http.StatusOK, `{"op":"list","include_internal":true,"quote":"x","bogus":1}`)
		// Text that is not UTF-8 is refused, never stored with replacement characters.
		l.refused(t, l.key, "{\"op\":\"rename\",\"session_id\":\"n1\",\"title\":\"bad \xff\"}", "invalid input JSON: the body is not valid UTF-8; send text as UTF-8")
		// A body that is not JSON at all never reaches the tool.
		if r := l.do("POST", "/v1/_history", l.key, `{"op":`); r.status != http.StatusBadRequest {
			t.Errorf("malformed JSON: %d %s", r.status, r.body)
		}
	})
}

func TestLoomcycleCurateRecapResumeRelated(t *testing.T) {
	forBackends(t, func(t *testing.T, l *lcEnv) {
		ans := l.call(t, l.key, http.StatusOK, `{"op":"rename","session_id":"s_alpha","title":"Caching, renamed"}`)
		chat := ans["chat"].(map[string]any)
		if ans["scope"] != "self" || chat["session_id"] != "s_alpha" || chat["title"] != "Caching, renamed" || chat["agent"] != "bot" {
			t.Errorf("rename: %v", ans)
		}
		if chat := l.call(t, l.key, http.StatusOK, `{"op":"pin","session_id":"s_alpha"}`)["chat"].(map[string]any); chat["pinned"] != true {
			t.Errorf("pin defaults to pinning: %v", chat)
		}
		if chat := l.call(t, l.key, http.StatusOK, `{"op":"archive","session_id":"n2"}`)["chat"].(map[string]any); chat["archived"] != true {
			t.Errorf("archive defaults to archiving: %v", chat)
		}
		if got := sessionIDs(l.call(t, l.key, http.StatusOK, `{"op":"list"}`)["chats"]); !reflect.DeepEqual(got, []string{"n1", "s_alpha"}) {
			t.Errorf("archived chat still listed: %v", got)
		}
		if chat := l.call(t, l.key, http.StatusOK, `{"op":"archive","session_id":"n2","archived":false}`)["chat"].(map[string]any); chat["archived"] != nil {
			t.Errorf("unarchive: %v", chat)
		}
		ann := l.call(t, l.key, http.StatusOK, `{"op":"annotate","session_id":"n1","description":"percent","tags":["a","b"]}`)["chat"].(map[string]any)
		if ann["description"] != "percent" || !reflect.DeepEqual(ann["tags"], []any{"a", "b"}) {
			t.Errorf("annotate: %v", ann)
		}
		rc := l.call(t, l.key, http.StatusOK, `{"op":"recap","session_id":"s_alpha"}`)
		if s, _ := rc["summary"].(string); s == "" || rc["chat"].(map[string]any)["summary"] != s || rc["scope"] != "self" {
			t.Errorf("recap: %v", rc)
		}
		res := l.call(t, l.key, http.StatusOK, `{"op":"resume","session_id":"s_alpha"}`)
		h := res["resume"].(map[string]any)
		if res["scope"] != "self" || h["session_id"] != "s_alpha" || h["agent"] != "bot" || h["tenant_id"] != "T" ||
			h["user_id"] != "u1" || h["status"] != "completed" || h["last_activity"] != "2026-03-01T10:00:06Z" || h["hint"] == "" {
			t.Errorf("resume: %v", res)
		}
		rel := l.call(t, l.key, http.StatusOK, `{"op":"related","session_id":"s_alpha","scope":"tenant"}`)
		rows := rel["related"].([]any)
		if rel["scope"] != "tenant" || rel["source_session_id"] != "s_alpha" || rel["count"] != float64(len(rows)) || len(rows) == 0 {
			t.Fatalf("related: %v", rel)
		}
		for _, r := range rows {
			r := r.(map[string]any)
			if r["session_id"] == "s_alpha" || r["session_id"] == "u1chat" || r["score"] == nil || r["tenant_id"] != "T" {
				t.Errorf("related row %v", r)
			}
		}
		q := l.call(t, l.key, http.StatusOK, `{"op":"related","query":" caching ","limit":1}`)
		if q["query"] != "caching" || q["count"] != 1.0 || q["source_session_id"] != nil {
			t.Errorf("related by query: %v", q)
		}
	})
}

// A read-only server refuses the tool's writes the tool's way, and still answers its reads.
func TestLoomcycleReadOnlyServerRefusesWritesAsTheTool(t *testing.T) {
	db, path := mustOpenDB(t)
	key := mustKey(t, db, member("A", "ua1", "bot", annals.ScopeSelf))
	if _, err := annals.CreateChat(context.Background(), db, &annals.Chat{ID: "loomcycle:s_1", TenantID: "A", UserID: "ua1", AgentID: "bot", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	l := &lcEnv{env: startEnv(t, ro, path, true), key: key}
	for _, body := range []string{`{"op":"rename","session_id":"s_1","title":"x"}`, `{"op":"pin","session_id":"s_1"}`, `{"op":"recap","session_id":"s_1"}`} {
		m := l.call(t, key, http.StatusUnprocessableEntity, body)
		if msg, _ := m["error"].(string); m["code"] != "tool_refused" || !strings.HasPrefix(msg, "history: ") || !strings.Contains(msg, "read-only") {
			t.Errorf("%s: %v", body, m)
		}
	}
	if got := sessionIDs(l.call(t, key, http.StatusOK, `{"op":"list"}`)["chats"]); !reflect.DeepEqual(got, []string{"s_1"}) {
		t.Errorf("read-only list: %v", got)
	}
}
