package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestEveryRouteTakesTheIDsPeopleHave proves the op envelope, the loomcycle adapter and the
// session routes take a chat by the source tool's own id, a prefix or a pasted transcript path,
// that an export is named after the whole id, that an empty session_id is required rather than
// matched, and that another tenant's chat is the same 404 as a missing one by every form.
func TestEveryRouteTakesTheIDsPeopleHave(t *testing.T) {
	f := newTwoTenants(t)
	const mine, theirs = "3c9d1e2f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", "3c9e0000-1111-4222-8333-444455556666"
	f.must(http.StatusOK, "POST", "/v1/ingest", f.keyAdmin, fmt.Sprintf(`{"type":"chat","id":"claude-code:%s","tenant_id":"A","user_id":"ua1","title":"Mine"}
{"type":"entry","chat_id":"claude-code:%s","id":"m1","kind":"user","text":"hello"}
{"type":"chat","id":"claude-code:%s","tenant_id":"B","user_id":"ub1","agent_id":"bot","title":"Theirs"}
`, mine, mine, theirs))
	full := "claude-code:" + mine
	for _, given := range []string{mine, strings.ToUpper(mine), "3c9d", "/home/u/.claude/projects/-src/" + mine + ".jsonl"} {
		body := fmt.Sprintf(`{"op":"get","session_id":%q}`, given)
		if r := f.do("POST", "/v1/history", f.keyA, body); r.status != http.StatusOK || !strings.Contains(string(r.body), `"id":"`+full+`"`) {
			t.Errorf("op get %q: %d %.200s", given, r.status, r.body)
		}
		lc := fmt.Sprintf(`{"op":"get","scope":"tenant","session_id":%q}`, given)
		if r := f.do("POST", "/v1/_history", f.keyA, lc); r.status != http.StatusOK || !strings.Contains(string(r.body), full) {
			t.Errorf("/v1/_history get %q: %d %.200s", given, r.status, r.body)
		}
		esc := url.PathEscape(given)
		r := f.do("GET", "/v1/sessions/"+esc+"/export", f.keyA, "")
		if r.status != http.StatusOK || !strings.Contains(string(r.body), "# Mine") || r.header.Get("Content-Disposition") != `attachment; filename="claude-code_`+mine+`.md"` {
			t.Errorf("export %q: %d %q %.200s", given, r.status, r.header.Get("Content-Disposition"), r.body)
		}
		r = f.do("GET", "/v1/sessions/"+esc+"/export?format=json", f.keyA, "")
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"id":"`+full+`"`) || !strings.Contains(string(r.body), `"hello"`) {
			t.Errorf("json export %q: %d %.200s", given, r.status, r.body)
		}
		if r := f.do("GET", "/v1/sessions/"+esc+"/runs", f.keyA, ""); r.status != http.StatusOK {
			t.Errorf("runs %q: %d %.200s", given, r.status, r.body)
		}
	}
	if r := f.do("POST", "/v1/history", f.keyA, `{"op":"pin","session_id":" 3C9D1E2F "}`); r.status != http.StatusOK || !strings.Contains(string(r.body), `"pinned":true`) {
		t.Errorf("pin by an upper-case prefix with spaces: %d %.200s", r.status, r.body)
	}
	if r := f.do("POST", "/v1/history", f.keyA, `{"op":"get","session_id":"  "}`); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "session_id is required") {
		t.Errorf("blank session_id: %d %s, want 400 session_id is required", r.status, r.body)
	}
	for _, given := range []string{theirs, "3c9e", strings.ToUpper(theirs), "claude-code:" + theirs, "5d5d5d5d-0000-4000-8000-000000000000"} {
		msg, _ := json.Marshal(fmt.Sprintf("chat %q not found", given))
		want := `{"error":{"code":"not_found","message":` + string(msg) + "}}\n"
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/v1/history", fmt.Sprintf(`{"op":"get","session_id":%q}`, given)},
			{"POST", "/v1/history", fmt.Sprintf(`{"op":"rename","session_id":%q,"title":"taken"}`, given)},
			{"GET", "/v1/sessions/" + url.PathEscape(given) + "/export", ""},
		} {
			if r := f.do(c.method, c.path, f.keyA, c.body); r.status != http.StatusNotFound || string(r.body) != want {
				t.Errorf("tenant A: %s %s %s: %d %s, want 404 %s", c.method, c.path, c.body, r.status, r.body, want)
			}
		}
	}
	// Tenant B's key does not reach tenant A's chat by its source id or a prefix either.
	for _, given := range []string{mine, "3c9d"} {
		if r := f.do("POST", "/v1/history", f.keyB, fmt.Sprintf(`{"op":"get","session_id":%q}`, given)); r.status != http.StatusNotFound || strings.Contains(string(r.body), full) {
			t.Errorf("tenant B get %q: %d %s", given, r.status, r.body)
		}
	}
}
