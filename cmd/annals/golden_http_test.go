package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// goldenServer is `annals serve` over the golden data, with one API key per kind of caller.
type goldenServer struct {
	tm   *testMain
	g    *golden
	s    *served
	keys map[string]string // label -> secret
}

const goldenConfig = "agents:\n  coder:\n    history_scope: [self]\n"

func newGoldenServer(t *testing.T, g *golden, args ...string) *goldenServer {
	tm := newTestMain(t)
	tm.mustRun(goldenChats, "ingest", "-")
	cfg := filepath.Join(tm.home, "config.yaml")
	if err := os.WriteFile(cfg, []byte(goldenConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	gs := &goldenServer{tm: tm, g: g, keys: map[string]string{}}
	for _, k := range [][]string{
		{"member", "--tenant", "acme", "--user", "alice"},
		{"agent", "--tenant", "acme", "--user", "alice", "--agent", "coder"},
		{"operator", "--tenant", "acme", "--role", "operator"},
		{"admin", "--tenant", "acme", "--role", "admin"},
		{"stranger", "--tenant", "other", "--user", "mallory"},
	} {
		var key struct {
			ID     string `json:"id"`
			Secret string `json:"secret"`
		}
		out := tm.mustRun("", append([]string{"keys", "create", "--json", "--name", k[0]}, k[1:]...)...)
		if err := json.Unmarshal([]byte(out), &key); err != nil {
			t.Fatal(err)
		}
		gs.keys[k[0]] = key.Secret
		g.hide(key.Secret, "<secret:"+k[0]+">")
		g.hide(key.ID, "<key:"+k[0]+">")
	}
	// The digest worker (on by default) would summarize the idle golden chats while the answers
	// are recorded: the goldens record a fixed history, so it is off.
	gs.s = startServe(t, tm, append([]string{"--no-digest"}, args...)...)
	g.hide(gs.s.url, "<url>")
	return gs
}

// do sends one request as the caller named by key ("" for none) and records the answer.
func (gs *goldenServer) do(key, method, path, body string) {
	gs.g.t.Helper()
	req, err := http.NewRequest(method, gs.s.url+path, strings.NewReader(body))
	if err != nil {
		gs.g.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+gs.keys[key])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		gs.g.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	who := key
	if who == "" {
		who = "anonymous"
	}
	heading := method + " " + path + " as " + who
	if body != "" {
		heading += " " + strings.ReplaceAll(body, "\n", `\n`)
	}
	answer := res.Status + "\ncontent-type: " + res.Header.Get("Content-Type")
	if cd := res.Header.Get("Content-Disposition"); cd != "" {
		answer += "\ncontent-disposition: " + cd
	}
	text := string(b)
	if path == "/metrics" {
		text = stableMetrics(text)
	}
	gs.g.record(heading, answer+"\n"+text)
}

// stableMetrics keeps the metric lines that do not depend on timing: counters and gauges of
// data, without durations and uptime.
func stableMetrics(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "duration_seconds") || strings.Contains(line, "uptime_seconds") {
			continue
		}
		keep = append(keep, line)
	}
	sort.Strings(keep)
	return strings.Join(keep, "\n")
}

func TestGoldenHTTP(t *testing.T) {
	g := newGolden(t, "http.txt")
	gs := newGoldenServer(t, g)
	gs.do("", "GET", "/healthz", "")
	gs.do("", "POST", "/v1/history", `{"op":"list"}`)
	gs.do("", "GET", "/nowhere", "")
	gs.do("member", "GET", "/v1/history", "")
	goldenEnvelope(gs)
	goldenLoomcycle(gs)
	goldenQueryView(gs)
	goldenCapture(gs)
	goldenExports(gs)
	gs.do("member", "GET", "/metrics", "")
	gs.do("operator", "GET", "/metrics", "")
	gs.do("admin", "GET", "/metrics", "")
}

func TestGoldenHTTPReadOnly(t *testing.T) {
	g := newGolden(t, "http_readonly.txt")
	gs := newGoldenServer(t, g, "--read-only")
	gs.do("member", "POST", "/v1/history", `{"op":"list"}`)
	gs.do("operator", "POST", "/v1/history", `{"op":"rename","session_id":"acme-deploy","title":"x"}`)
	gs.do("operator", "POST", "/v1/history", `{"op":"delete","session_id":"acme-bob"}`)
	gs.do("operator", "POST", "/v1/history", `{"op":"recap","session_id":"acme-bob"}`)
	gs.do("operator", "POST", "/v1/_history", `{"op":"pin","session_id":"acme-deploy","scope":"tenant"}`)
	gs.do("operator", "POST", "/v1/sessions", `{"id":"ro-1","title":"refused"}`)
	gs.do("operator", "POST", "/v1/capture", `[{"chat":{"id":"ro-2"}}]`)
	gs.do("operator", "POST", "/v1/ingest", `{"type":"chat","id":"ro-3"}`)
	gs.do("member", "POST", "/query", `{"kind":"sessions"}`)
	gs.do("admin", "GET", "/metrics", "")
}

// goldenEnvelope covers every op of POST /v1/history and its main errors.
func goldenEnvelope(gs *goldenServer) {
	for _, c := range []struct{ key, body string }{
		{"member", `{"op":"list"}`},
		{"member", `{"op":"list","scope":"tenant"}`},
		{"member", `{"op":"list","scope":"global"}`},
		{"admin", `{"op":"list","scope":"global"}`},
		{"agent", `{"op":"list"}`},
		{"agent", `{"op":"list","scope":"tenant"}`},
		{"stranger", `{"op":"list"}`},
		{"member", `{"op":"list","tag":"ops","limit":1}`},
		{"member", `{"op":"list","status":"bogus"}`},
		{"member", `{"op":"search","query":"deploy"}`},
		{"member", `{"op":"search","query":"deploy","explain":true}`},
		{"member", `{"op":"search","query":"deploy","rank":"hybrid","explain":true}`},
		{"member", `{"op":"search","query":"deploy","mode":"entries","mark_open":"<b>","mark_close":"</b>"}`},
		{"member", `{"op":"search","query":"permission","in":["tools"],"sort":"recent"}`},
		{"member", `{"op":"search","query":"\"unclosed"}`},
		{"member", `{"op":"search"}`},
		{"member", `{"op":"get","session_id":"acme-deploy"}`},
		{"member", `{"op":"get","session_id":"acme-deploy","format":"markdown"}`},
		{"member", `{"op":"get","session_id":"acme-deploy","format":"conversation"}`},
		{"member", `{"op":"get","session_id":"acme-deploy","around_seq":2,"context":1}`},
		{"member", `{"op":"get","session_id":"acme-deploy","limit":1}`},
		{"member", `{"op":"get","session_id":"other-deploy"}`},
		{"member", `{"op":"get","session_id":"missing"}`},
		{"member", `{"op":"get"}`},
		{"member", `{"op":"related","session_id":"acme-deploy"}`},
		{"member", `{"op":"related","query":"cache after deploy"}`},
		{"member", `{"op":"resume","session_id":"acme-deploy"}`},
		{"member", `{"op":"rename","session_id":"acme-deploy","title":"Deploy the shop, renamed"}`},
		{"member", `{"op":"rename","session_id":"acme-bob","title":"not mine"}`},
		{"member", `{"op":"annotate","session_id":"acme-deploy","description":"New description","tags":["ops","fixed"]}`},
		{"member", `{"op":"pin","session_id":"acme-deploy"}`},
		{"member", `{"op":"pin","session_id":"acme-deploy","pinned":false}`},
		{"member", `{"op":"archive","session_id":"acme-review"}`},
		{"member", `{"op":"list","include_archived":true}`},
		{"member", `{"op":"archive","session_id":"acme-review","archived":false}`},
		{"member", `{"op":"recap","session_id":"acme-deploy"}`},
		{"member", `{"op":"delete","session_id":"acme-bob"}`},
		{"agent", `{"op":"rename","session_id":"acme-deploy","title":"Agent rename"}`},
		{"operator", `{"op":"delete","session_id":"acme-bob"}`},
		{"operator", `{"op":"get","session_id":"acme-bob"}`},
		{"member", `{"op":"nope"}`},
		{"member", `{"op":"list","bogus":1}`},
		{"member", `not json`},
		{"member", ``},
	} {
		gs.do(c.key, "POST", "/v1/history", c.body)
	}
	gs.do("member", "PUT", "/v1/history", `{"op":"list"}`)
}

// goldenLoomcycle covers the loomcycle History tool's envelope at POST /v1/_history.
func goldenLoomcycle(gs *goldenServer) {
	for _, c := range []struct{ key, body string }{
		{"agent", `{"op":"list"}`},
		{"member", `{"op":"list"}`},
		{"member", `{"op":"list","scope":"tenant"}`},
		{"member", `{"op":"search","query":"DEPLOY","scope":"tenant"}`},
		{"member", `{"op":"search","query":"","scope":"tenant"}`},
		{"member", `{"op":"search","query":"x","match":"content","scope":"tenant"}`},
		{"member", `{"op":"get","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"get","session_id":"acme-deploy","scope":"tenant","format":"conversation"}`},
		{"member", `{"op":"get","session_id":"acme-deploy","scope":"tenant","format":"markdown"}`},
		{"member", `{"op":"get","session_id":"other-deploy","scope":"tenant"}`},
		{"member", `{"op":"rename","session_id":"acme-deploy","scope":"tenant","title":"Loomcycle rename"}`},
		{"member", `{"op":"annotate","session_id":"acme-deploy","scope":"tenant","tags":["lc"]}`},
		{"member", `{"op":"pin","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"archive","session_id":"acme-deploy","scope":"tenant","archived":false}`},
		{"member", `{"op":"recap","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"resume","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"related","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"window","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"delete","session_id":"acme-deploy","scope":"tenant"}`},
		{"member", `{"op":"list","scope":"bogus"}`},
		{"member", `{"scope":"tenant"}`},
		{"member", `{"op":"list","limit":"x"}`},
		{"member", `[]`},
	} {
		gs.do(c.key, "POST", "/v1/_history", c.body)
	}
}
