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
	if code != 200 || !strings.Contains(body, `"id":"demo"`) || !strings.Contains(body, "«flaky»") {
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
