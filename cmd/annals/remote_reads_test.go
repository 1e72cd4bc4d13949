package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
)

// onlyHere is a chat the host holds and never pushed: remote query mode must not show it.
const onlyHere = `{"type":"chat","id":"only-here","title":"Kept on the laptop"}
{"type":"entry","chat_id":"only-here","id":"e1","kind":"user","text":"laptop only deploy notes"}
`

// onRemote is a chat another host wrote to the remote collection: this host never holds it.
const onRemote = `{"type":"chat","id":"team-chat","title":"Written by a teammate"}
{"type":"entry","chat_id":"team-chat","id":"e1","kind":"user","text":"teammate deploy runbook"}
`

// newRemoteQueryHost is a replica pair whose remote holds c1 and c2 (pushed by the host) and
// team-chat (captured there), and whose host also holds only-here, not pushed yet.
func newRemoteQueryHost(t *testing.T) *replicaPair {
	t.Helper()
	p := newReplicaPair(t)
	p.host.mustRun(twoChats, "ingest")
	p.host.mustRun("", "replicate", "push")
	p.host.mustRun(onlyHere, "ingest")
	p.remote.mustRun(onRemote, "--server", p.served.url, "--key", p.key, "ingest")
	return p
}

// annals mcp in remote query mode: the agent's tools search and read the remote collection,
// --local this database; with the remote down a tool answers an error naming it, never the
// local results (the reference's history tool: "does not fall back to local query results").
func TestRemoteQueryModeMCP(t *testing.T) {
	p := newRemoteQueryHost(t)
	cs := mcpInProcess(t, p.host)
	text, isErr := callText(t, cs, "history_search", map[string]any{"query": "deploy", "limit": 5})
	if isErr || !strings.Contains(text, "team-chat") || strings.Contains(text, "only-here") {
		t.Fatalf("history_search in remote query mode (error %v):\n%s", isErr, text)
	}
	local := mcpInProcess(t, p.host, "--local")
	if text, isErr := callText(t, local, "history_search", map[string]any{"query": "laptop", "limit": 5}); isErr || !strings.Contains(text, "only-here") {
		t.Fatalf("history_search --local (error %v):\n%s", isErr, text)
	}
	if _, _, err := p.host.run("", "mcp", "--agent", "coder"); err == nil || !strings.Contains(err.Error(), "remote query mode") {
		t.Fatalf("mcp --agent in remote query mode: %v; want it refused (the remote's key decides)", err)
	}

	if err := p.served.stop(); err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"history_search", map[string]any{"query": "deploy"}}, {"history_list", map[string]any{}}, {"history_read", map[string]any{"id": "c1"}}} {
		text, isErr := callText(t, cs, call.tool, call.args)
		if !isErr || !strings.Contains(text, "cannot reach the annals server at "+p.served.url) || strings.Contains(text, "only-here") || strings.Contains(text, "permission denied") {
			t.Errorf("%s with the remote down (error %v):\n%s\nwant an error naming the remote and no local results", call.tool, isErr, text)
		}
	}
	if text, isErr := callText(t, local, "history_read", map[string]any{"id": "c1"}); isErr || !strings.Contains(text, "permission denied") {
		t.Errorf("history_read --local with the remote down (error %v):\n%s", isErr, text)
	}
}

// A local annals serve in remote query mode: its local-mode callers (the machine's own user:
// the op endpoint, /mcp, the web UI) read the remote collection and write here; the query
// view, which only this database answers, refuses them; the remote down is a 503 naming it.
// --local-history serves this database; a caller with one of this server's keys reads this
// database (its scope is this server's, never the remote key's).
func TestRemoteQueryModeLocalServe(t *testing.T) {
	p := newRemoteQueryHost(t)
	s := startServe(t, p.host)
	list := func(url, key string) (int, []string, string) {
		t.Helper()
		code, body := httpDo(t, "POST", url+"/v1/history", key, `{"op":"list"}`)
		var page struct {
			Chats []struct {
				ID string `json:"id"`
			} `json:"chats"`
		}
		_ = json.Unmarshal([]byte(body), &page)
		var ids []string
		for _, c := range page.Chats {
			ids = append(ids, c.ID)
		}
		return code, ids, body
	}
	// (The serve pushes only-here at once: the remote's own chat tells the two apart.)
	if code, ids, body := list(s.url, ""); code != http.StatusOK || !strings.Contains(body, "team-chat") {
		t.Fatalf("op list on the host's local serve = %d %v; want the remote collection, team-chat with it\n%s", code, ids, body)
	}
	// A write through the local serve lands here and replicates.
	if code, body := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"rename","session_id":"only-here","title":"Renamed on the laptop"}`); code != http.StatusOK {
		t.Fatalf("rename through the local serve = %d %s", code, body)
	}
	if out := p.host.mustRun("", "show", "--local", "only-here"); !strings.Contains(out, "Renamed on the laptop") {
		t.Fatalf("the rename did not reach the host's database:\n%s", out)
	}
	if code, body := httpDo(t, "POST", s.url+"/query", "", `{"kind":"sessions"}`); code != http.StatusNotImplemented || !strings.Contains(body, "remote query mode") {
		t.Fatalf("POST /query in remote query mode = %d %s; want it refused, naming the mode", code, body)
	}
	own := startServe(t, p.host, "--local-history")
	if code, ids, body := list(own.url, ""); code != http.StatusOK || len(ids) != 3 || strings.Contains(body, "team-chat") {
		t.Fatalf("op list with --local-history = %d %v; want the host's three chats", code, ids)
	}

	if err := p.served.stop(); err != nil {
		t.Fatal(err)
	}
	code, ids, body := list(s.url, "")
	if code != http.StatusServiceUnavailable || len(ids) != 0 || !strings.Contains(body, "cannot reach the annals server at "+p.served.url) {
		t.Fatalf("op list with the remote down = %d %v %s; want 503 naming the remote and no local results", code, ids, body)
	}
	for _, op := range []string{`{"op":"search","query":"deploy"}`, `{"op":"get","session_id":"c1"}`} {
		if code, body := httpDo(t, "POST", s.url+"/v1/history", "", op); code != http.StatusServiceUnavailable || strings.Contains(body, "permission denied") || strings.Contains(body, "only-here") {
			t.Errorf("%s with the remote down = %d %s", op, code, body)
		}
	}

	// Once this server has a key, its holders read this database with their own scope.
	var created struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(p.host.mustRun("", "keys", "create", "--tenant", "local", "--role", "admin", "--scope", "self,user,tenant,global", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	code, body = httpDo(t, "POST", s.url+"/v1/history", created.Secret, `{"op":"list","scope":"global"}`)
	if code != http.StatusOK || !strings.Contains(body, "only-here") || strings.Contains(body, "team-chat") {
		t.Fatalf("op list with a key of the host's server = %d %s; want this database's chats", code, body)
	}
}

// annals browse in remote query mode reads the remote collection through the history it is
// handed (the same open as the command's), with --local this database; its writes go here.
func TestRemoteQueryModeBrowseHistory(t *testing.T) {
	p := newRemoteQueryHost(t)
	m := NewMain()
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(""), &strings.Builder{}, &strings.Builder{}
	m.Getenv = func(k string) string { return p.host.env[k] }
	m.HomeDir = func() (string, error) { return p.host.home, nil }
	t.Cleanup(func() { m.Close() })
	open := func(local bool) *app {
		fs := m.flagSet("browse", "", "")
		c := commonFlags(fs)
		c.remoteReads, c.forceLocal, c.existing = true, &local, true
		a, err := m.open(context.Background(), c, false)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ids := func(a *app) string {
		page, err := a.svc.FindChats(a.ctx, annals.ListParams{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range page.Chats {
			got = append(got, c.ID)
		}
		return strings.Join(got, ",")
	}
	remote, local := open(false), open(true)
	if got := ids(remote); !strings.Contains(got, "team-chat") || strings.Contains(got, "only-here") {
		t.Fatalf("browse's history in remote query mode lists %s; want the remote's chats", got)
	}
	if got := ids(local); !strings.Contains(got, "only-here") || strings.Contains(got, "team-chat") {
		t.Fatalf("browse --local lists %s; want the host's chats", got)
	}
	if _, err := remote.svc.PinChat(remote.ctx, annals.ChatSelector{ID: "only-here"}, true); err != nil {
		t.Fatalf("pin through browse's history (a write, local): %v", err)
	}
	if err := p.served.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.svc.FindChats(remote.ctx, annals.ListParams{}); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("browse's history with the remote down: %v; want the unreachable remote", err)
	}
}
