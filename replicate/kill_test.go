package replicate

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

// The child processes of the SIGKILL tests: a host pushing its outbox, or a remote serving.
const (
	killHostEnv   = "ANNALS_REPLICATE_KILL_HOST"   // host db path, remote URL, key (tab-separated)
	killRemoteEnv = "ANNALS_REPLICATE_KILL_REMOTE" // remote db path, address, URL file (tab-separated)
)

// killBacklog writes a host's backlog: chats of single-entry appends, one operation each, and
// returns every operation id queued.
func killBacklog(t *testing.T, host *sqlite.DB, chats, entries int) []string {
	t.Helper()
	for i := range chats {
		writeChat(t, host, fmt.Sprintf("k%02d", i), entries)
	}
	var ids []string
	lanes, err := host.OutboxLanes(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lanes {
		ops, err := host.PendingOps(context.Background(), annals.OutboxRead{ChatID: l.ChatID})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			ids = append(ids, op.ID)
		}
	}
	return ids
}

// startChild re-runs this test binary as one of the children.
func startChild(t *testing.T, test, env, value string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+value)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func kill9(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// waitPartly waits until some of the host's backlog was acknowledged, but not all of it.
func waitPartly(t *testing.T, host *sqlite.DB, total int) {
	t.Helper()
	eventually(t, "part of the backlog to be acknowledged", func() bool {
		n := pendingOps(t, host)
		if n == 0 {
			t.Fatalf("the whole backlog of %d operations went before the kill; the test needs a larger one to mean anything", total)
		}
		return n <= total*3/4
	})
}

// converged checks that the remote applied every operation id once and holds every chat
// whole, and that verify is at zero.
func converged(t *testing.T, p *Pusher, host, remote *sqlite.DB, ids []string, chats int) {
	t.Helper()
	applied, err := remote.ReplicaOpsApplied(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !applied[id] {
			t.Fatalf("operation %s never reached the remote", id)
		}
	}
	for i := range chats {
		sameTranscript(t, host, remote, fmt.Sprintf("k%02d", i))
	}
	mustVerifyZero(t, p)
}

// A host killed with SIGKILL in the middle of pushing, and started again: no operation is lost
// or applied twice (the remote holds each chat entry for entry), and verify is at zero.
func TestHostKilledMidPush(t *testing.T) {
	if v := os.Getenv(killHostEnv); v != "" {
		hostChild(t, v)
		return
	}
	r := newRemote(t)
	path := filepath.Join(t.TempDir(), "host.db")
	host := openSQLite(t, path)
	if _, err := host.SetOutbox(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	const chats, entries = 30, 20
	ids := killBacklog(t, host, chats, entries)
	child := startChild(t, "TestHostKilledMidPush", killHostEnv, strings.Join([]string{path, r.url, r.key}, "\t"))
	waitPartly(t, host, len(ids))
	kill9(t, child)
	left := pendingOps(t, host)
	t.Logf("killed the pushing host with %d of %d operations still queued", left, len(ids))

	p := newPusher(host, r.url, r.key)
	eventually(t, "the restarted host to drain its queue", func() bool {
		mustPush(t, p)
		return pendingOps(t, host) == 0
	})
	converged(t, p, host, r.db, ids, chats)
}

func hostChild(t *testing.T, v string) {
	parts := strings.Split(v, "\t")
	db, err := sqlite.Open(context.Background(), parts[0], sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Two operations a request, so that the kill finds it between requests or inside one.
	p := New(Config{Endpoint: parts[1], Key: parts[2], Store: db, MaxOps: 2, Poll: 10 * time.Millisecond, MinBackoff: 10 * time.Millisecond})
	p.Run(context.Background())
}

// A remote killed with SIGKILL in the middle of applying, and started again on its address:
// the host retries on its own timer, nothing is lost or applied twice, verify is at zero.
func TestRemoteKilledMidApply(t *testing.T) {
	if v := os.Getenv(killRemoteEnv); v != "" {
		remoteChild(t, v)
		return
	}
	dir := t.TempDir()
	remotePath := filepath.Join(dir, "remote.db")
	rdb := openSQLite(t, remotePath)
	key := newKey(t, rdb, annals.RoleOperator)
	host := newHost(t)
	const chats, entries = 30, 20
	ids := killBacklog(t, host, chats, entries)

	start := func(addr string) (*exec.Cmd, string) {
		urlFile := filepath.Join(dir, fmt.Sprintf("url-%d", time.Now().UnixNano()))
		cmd := startChild(t, "TestRemoteKilledMidApply", killRemoteEnv, strings.Join([]string{remotePath, addr, urlFile}, "\t"))
		var u string
		eventually(t, "the remote to start", func() bool {
			b, err := os.ReadFile(urlFile)
			u = string(b)
			return err == nil && u != ""
		})
		return cmd, u
	}
	child, remoteURL := start("127.0.0.1:0")
	p := newPusher(host, remoteURL, key, func(c *Config) { c.MaxOps = 2 })
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	waitPartly(t, host, len(ids))
	kill9(t, child)
	t.Logf("killed the remote with %d of %d operations still queued", pendingOps(t, host), len(ids))
	u, err := url.Parse(remoteURL)
	if err != nil {
		t.Fatal(err)
	}
	start(u.Host) // the same address: the host keeps its endpoint and retries on its own
	eventually(t, "the host to drain its queue into the restarted remote", func() bool { return pendingOps(t, host) == 0 })
	stop()
	<-done
	converged(t, p, host, rdb, ids, chats)
}

func remoteChild(t *testing.T, v string) {
	parts := strings.Split(v, "\t")
	db, err := sqlite.Open(context.Background(), parts[0], sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db, View: db})
	srv := httpapi.New(httpapi.Config{Addr: parts[1], Service: svc, View: svc, Replica: svc, Keys: db})
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	tmp := parts[2] + ".tmp"
	if err := os.WriteFile(tmp, []byte(srv.URL()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, parts[2]); err != nil {
		t.Fatal(err)
	}
	select {} // serves until killed
}
