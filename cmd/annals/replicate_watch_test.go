package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// import --watch is a long-running capture: with a remote block it pushes what it imports while
// it runs, with no 'replicate push' and no serve; verify is at zero afterwards.
func TestImportWatchPushesToTheRemote(t *testing.T) {
	p := newReplicaPair(t)
	placeImport(t, p.host.home)
	ctx, cancel := context.WithCancel(context.Background())
	m := NewMain()
	stderr := &syncWriter{ch: make(chan struct{}, 1)}
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(""), io.Discard, stderr
	m.Getenv = func(k string) string { return p.host.env[k] }
	m.HomeDir = func() (string, error) { return p.host.home, nil }
	m.IsTerminal = func(io.Writer) bool { return false }
	done := make(chan error, 1)
	go func() {
		err := m.Run(ctx, []string{"import", "--watch", "--quiet"})
		m.Close()
		done <- err
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	defer stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := httpDo(t, "POST", p.served.url+"/v1/history", p.key, `{"op":"get","session_id":"codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000","limit":1}`)
		if code == 200 {
			break
		}
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("import --watch exited: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watched session never reached the remote\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	if !strings.Contains(stderr.String(), "replication: pushing") {
		t.Errorf("import --watch did not say it pushes:\n%s", stderr.String())
	}
	if out := p.host.mustRun("", "replicate", "verify"); !strings.Contains(out, "0 differences") || strings.Contains(out, "0 lanes") {
		t.Fatalf("verify after the watch: %s", out)
	}
}
