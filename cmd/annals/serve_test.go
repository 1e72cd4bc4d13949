package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// served is an `annals serve` running in-process.
type served struct {
	url      string
	portFile string
	stderr   *syncWriter
	stop     func() error
}

type syncWriter struct {
	ch  chan struct{}
	buf bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.ch <- struct{}{}
	defer func() { <-w.ch }()
	return w.buf.Write(p)
}

func (w *syncWriter) String() string {
	w.ch <- struct{}{}
	defer func() { <-w.ch }()
	return w.buf.String()
}

// startServe runs `annals serve --addr 127.0.0.1:0 --port-file ... args...` and waits for the
// port file, the way a harness discovers the server.
func startServe(t *testing.T, tm *testMain, args ...string) *served {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "http.json")
	ctx, cancel := context.WithCancel(context.Background())
	m := NewMain()
	stderr := &syncWriter{ch: make(chan struct{}, 1)}
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(""), io.Discard, stderr
	m.Getenv = func(k string) string { return tm.env[k] }
	m.HomeDir = func() (string, error) { return tm.home, nil }
	m.IsTerminal = func(io.Writer) bool { return false }
	done := make(chan error, 1)
	go func() {
		err := m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--port-file", pf}, args...))
		m.Close()
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	var port portFile
	for {
		b, err := os.ReadFile(pf)
		if err == nil && json.Unmarshal(b, &port) == nil {
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve exited: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("no port file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := &served{url: "http://" + port.Bind + ":" + strconv.Itoa(port.Port), portFile: pf, stderr: stderr}
	var once bool
	s.stop = func() error {
		if once {
			return nil
		}
		once = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop")
			return nil
		}
	}
	t.Cleanup(func() { s.stop() })
	return s
}

func httpDo(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestServeWritesAValidPortFileServesAndStopsCleanly(t *testing.T) {
	tm := newTestMain(t)
	s := startServe(t, tm)
	b, err := os.ReadFile(s.portFile)
	if err != nil {
		t.Fatal(err)
	}
	var pf map[string]any
	if err := json.Unmarshal(b, &pf); err != nil {
		t.Fatalf("port file %s: %v", b, err)
	}
	if pf["bind"] != "127.0.0.1" || pf["port"].(float64) <= 0 || int(pf["pid"].(float64)) != os.Getpid() || len(pf) != 3 {
		t.Errorf("port file %s", b)
	}
	if fi, _ := os.Stat(s.portFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("port file mode %v, want 0600", fi.Mode().Perm())
	}
	if code, body := httpDo(t, "GET", s.url+"/healthz", "", ""); code != 200 || !strings.Contains(body, `"ok":true`) {
		t.Errorf("healthz: %d %s", code, body)
	}
	// The README's curl walk-through: post a chat, its entries, and search it.
	if code, body := httpDo(t, "POST", s.url+"/v1/sessions", "", `{"id":"demo","title":"First chat over HTTP"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := httpDo(t, "POST", s.url+"/v1/sessions/demo/entries", "", "{\"id\":\"m1\",\"kind\":\"user\",\"text\":\"why is the build red?\"}\n{\"id\":\"m2\",\"kind\":\"assistant\",\"text\":\"a flaky integration test\"}\n"); code != 200 {
		t.Fatalf("append: %d %s", code, body)
	}
	code, body := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"search","query":"flaky"}`)
	if code != 200 || !strings.Contains(body, `"id":"demo"`) || !strings.Contains(body, "[flaky]") {
		t.Errorf("search: %d %s", code, body)
	}
	if err := s.stop(); err != nil {
		t.Errorf("serve returned %v on a stop signal", err)
	}
	if _, err := os.Stat(s.portFile); !os.IsNotExist(err) {
		t.Errorf("the port file outlived the server: %v", err)
	}
	for _, want := range []string{`msg="http request" method=POST route="POST /v1/history" status=200`, "stopped"} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, s.stderr.String())
		}
	}
	// The chat is in the database the CLI reads.
	if out := tm.mustRun("", "list"); !strings.Contains(out, "First chat over HTTP") {
		t.Errorf("list after serve:\n%s", out)
	}
}

func TestServeRefusesANonLoopbackAddressWithoutKeys(t *testing.T) {
	tm := newTestMain(t)
	_, _, err := tm.run("", "serve", "--addr", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "without API keys") || !strings.Contains(err.Error(), "annals keys create") {
		t.Errorf("err = %v", err)
	}
}

func TestKeysCreateListRevoke(t *testing.T) {
	tm := newTestMain(t)
	out := tm.mustRun("", "keys", "create", "--tenant", "acme", "--user", "alice", "--name", "laptop")
	secret := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "annals_") {
			secret = f
		}
	}
	if secret == "" || !strings.Contains(out, "tenant acme, user alice, role member, scopes user") {
		t.Fatalf("keys create printed:\n%s", out)
	}
	var created struct {
		ID        string `json:"id"`
		Secret    string `json:"secret"`
		Principal struct {
			Role   string   `json:"role"`
			Scopes []string `json:"scopes"`
		} `json:"principal"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "acme", "--role", "admin", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	if created.Principal.Role != "admin" || strings.Join(created.Principal.Scopes, ",") != "self,user,tenant,global" || !strings.HasPrefix(created.Secret, "annals_") {
		t.Errorf("created %+v", created)
	}
	list := tm.mustRun("", "keys", "list")
	if strings.Contains(list, secret) || strings.Contains(list, created.Secret) || !strings.Contains(list, "laptop") || !strings.Contains(list, created.ID) {
		t.Errorf("keys list:\n%s", list)
	}
	listJSON := tm.mustRun("", "keys", "list", "--json")
	if strings.Contains(listJSON, secret) || strings.Contains(listJSON, "hash") {
		t.Errorf("keys list --json shows a secret or hash:\n%s", listJSON)
	}
	// The database holds no secret either.
	db, _ := os.ReadFile(tm.env["ANNALS_DB"])
	wal, _ := os.ReadFile(tm.env["ANNALS_DB"] + "-wal")
	if bytes.Contains(db, []byte(secret)) || bytes.Contains(wal, []byte(secret)) {
		t.Error("the database file holds a key secret")
	}
	tm.mustRun("", "keys", "revoke", created.ID)
	for _, line := range strings.Split(tm.mustRun("", "keys", "list"), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == created.ID && f[len(f)-1] == "-" {
			t.Errorf("the revoked key shows no revocation time: %s", line)
		}
	}
	_, _, err := tm.run("", "keys", "create", "--tenant", "acme", "--scope", "global")
	if err == nil || !strings.Contains(err.Error(), "--role admin") {
		t.Errorf("global on a member key: %v", err)
	}
	_, _, err = tm.run("", "keys", "create", "--tenant", "acme", "--scope", "siblings")
	if err == nil || !strings.Contains(err.Error(), "retired") {
		t.Errorf("retired scope: %v", err)
	}
	_, _, err = tm.run("", "keys", "revoke", "key_nope")
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("revoke unknown: %v", err)
	}

	// The server now needs a key: the member key works, no key and the revoked key do not.
	s := startServe(t, tm)
	if code, _ := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"list"}`); code != 401 {
		t.Errorf("no key: %d", code)
	}
	if code, _ := httpDo(t, "POST", s.url+"/v1/history", created.Secret, `{"op":"list"}`); code != 401 {
		t.Errorf("revoked key: %d", code)
	}
	if code, body := httpDo(t, "POST", s.url+"/v1/history", secret, `{"op":"list"}`); code != 200 || !strings.Contains(body, `"scope":"user"`) {
		t.Errorf("member key: %d %s", code, body)
	}
}

// `annals --server URL --key KEY <command>` prints what the same command prints locally.
func TestClientModeGivesTheSameOutputAsLocal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	s := startServe(t, tm)
	for _, args := range [][]string{
		{"list"}, {"list", "--json"}, {"list", "--tag", "ops"},
		{"search", "deploy"}, {"search", "permission"},
		{"show", "c1"}, {"show", "--json", "c1"}, {"show", "--around", "2", "--context", "1", "c1"},
		{"export", "c1"}, {"export", "--format", "json", "c1"},
		{"related", "--query", "deploy shop"},
	} {
		local := tm.mustRun("", args...)
		remote := tm.mustRun("", append([]string{"--server", s.url}, args...)...)
		if local != remote {
			t.Errorf("annals %s differs through --server:\nlocal:\n%s\nremote:\n%s", strings.Join(args, " "), local, remote)
		}
	}
	// Writes through the server print what they print locally, and change the same database.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rename", "c2", "Renamed", "remotely"}, "renamed c2  Renamed remotely\n"},
		{[]string{"tag", "c2", "remote"}, "c2 tags: remote\n"},
		{[]string{"pin", "c2"}, "pinned c2  Renamed remotely\n"},
		{[]string{"archive", "--restore", "c2"}, ""},
	} {
		out := tm.mustRun("", append([]string{"--server=" + s.url}, c.args...)...)
		if c.want != "" && out != c.want {
			t.Errorf("%v printed %q, want %q", c.args, out, c.want)
		}
	}
	tm.env["ANNALS_SERVER"] = s.url
	defer delete(tm.env, "ANNALS_SERVER")
	out := tm.mustRun(`{"type":"chat","id":"c3","title":"Ingested through the server"}`+"\n", "ingest", "-")
	if !strings.Contains(out, "chats created  1") && !strings.Contains(strings.Join(strings.Fields(out), " "), "chats created 1") {
		t.Errorf("remote ingest:\n%s", out)
	}
	if out := tm.mustRun("", "recap", "c1"); !strings.Contains(out, "**Goal:** deploy it please") {
		t.Errorf("remote recap:\n%s", out)
	}
	if out := tm.mustRun("", "delete", "--yes", "c3"); !strings.Contains(out, "c3") {
		t.Errorf("remote delete:\n%s", out)
	}
	delete(tm.env, "ANNALS_SERVER")
	if out := tm.mustRun("", "list"); !strings.Contains(out, "* Renamed remotely") || strings.Contains(out, "c3") {
		t.Errorf("local list after remote writes:\n%s", out)
	}
	// What needs the database itself says so.
	for _, args := range [][]string{{"redact", "--rescan"}, {"related", "--backfill"}} {
		_, _, err := tm.run("", append([]string{"--server", s.url}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "needs a local database") {
			t.Errorf("%v through --server: %v", args, err)
		}
	}
	_, _, err := tm.run("", "--server", s.url, "list", "--db", "/tmp/x.db")
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("--db with --server: %v", err)
	}
	_, _, err = tm.run("", "--server", "http://127.0.0.1:1", "list")
	if err == nil || !strings.Contains(err.Error(), "cannot reach the annals server") {
		t.Errorf("unreachable server: %v", err)
	}
}

func TestClientModeUsesTheKeysPrincipal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest") // tenant local
	var key struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "other", "--user", "u", "--json")), &key)
	s := startServe(t, tm)
	tm.env["ANNALS_SERVER"], tm.env["ANNALS_KEY"] = s.url, key.Secret
	if out := tm.mustRun("", "list"); strings.TrimSpace(out) != "No chats." {
		t.Errorf("another tenant's key lists:\n%s", out)
	}
	_, _, err := tm.run("", "show", "c1")
	if err == nil || err.Error() != `chat "c1" not found` {
		t.Errorf("show c1 with another tenant's key: %v", err)
	}
	tm.env["ANNALS_KEY"] = ""
	_, _, err = tm.run("", "list")
	if err == nil || !strings.Contains(err.Error(), "API key is required") {
		t.Errorf("no key: %v", err)
	}
}

func TestServeReadOnlyRefusesWrites(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	s := startServe(t, tm, "--read-only")
	code, body := httpDo(t, "POST", s.url+"/v1/sessions", "", `{"id":"x"}`)
	if code != 403 || !strings.Contains(body, "read-only") {
		t.Errorf("create on a read-only server: %d %s", code, body)
	}
	if code, _ := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"list"}`); code != 200 {
		t.Errorf("list on a read-only server: %d", code)
	}
	_, _, err := tm.run("", "--server", s.url, "pin", "c1")
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("pin through a read-only server: %v", err)
	}
}
