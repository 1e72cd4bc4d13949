package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/replicate"
)

// replicaPair is a remote `annals serve` with an operator key, and a host whose config names it.
type replicaPair struct {
	remote, host *testMain
	served       *served
	key          string
}

func newReplicaPair(t *testing.T) *replicaPair {
	t.Helper()
	remote := newTestMain(t)
	var created struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(remote.mustRun("", "keys", "create", "--tenant", "team", "--role", "operator", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, remote)
	host := newTestMain(t)
	cfg := filepath.Join(host.home, "config.yaml")
	if err := os.WriteFile(cfg, []byte("remote:\n  endpoint: "+s.url+"/\n  api_key_env: TEAM_KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	host.env["ANNALS_CONFIG"] = cfg
	host.env["TEAM_KEY"] = created.Secret
	return &replicaPair{remote: remote, host: host, served: s, key: created.Secret}
}

func replicateStatusJSON(t *testing.T, tm *testMain) *replicate.Status {
	t.Helper()
	var st replicate.Status
	if err := json.Unmarshal([]byte(tm.mustRun("", "replicate", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// push, status and verify against a real remote server: the outbox is turned on by the first
// command, what is captured after is queued, pushed and verified at zero differences.
func TestReplicatePushStatusVerify(t *testing.T) {
	p := newReplicaPair(t)
	if out := p.host.mustRun("", "replicate", "status"); !strings.Contains(out, "host: none yet") {
		t.Fatalf("status before the outbox: %s", out)
	}
	if out := p.host.mustRun("", "replicate", "push"); !strings.Contains(out, "pushed 0 operations") {
		t.Fatalf("first push: %s", out)
	}
	p.host.mustRun(twoChats, "ingest")
	st := replicateStatusJSON(t, p.host)
	if st.Host == nil || st.Host.Moved || st.PendingOps == 0 || len(st.Lanes) != 2 || !strings.HasSuffix(st.Endpoint, strings.TrimPrefix(p.served.url, "http://")) {
		t.Fatalf("status = %+v; want a host, two lanes queued, the endpoint without its slash", st)
	}
	if out := p.host.mustRun("", "replicate", "push"); !strings.Contains(out, "pushed") || strings.Contains(out, "pushed 0") {
		t.Fatalf("push: %s", out)
	}
	if out := p.host.mustRun("", "replicate", "verify"); !strings.Contains(out, "2 lanes, 2 in sync") || !strings.Contains(out, "0 differences") {
		t.Fatalf("verify: %s", out)
	}
	if st := replicateStatusJSON(t, p.host); st.PendingOps != 0 || st.LastPush.IsZero() {
		t.Fatalf("status after the push = %+v", st)
	}
	// The remote serves the chats it was sent, in the operator key's tenant.
	p.remote.env["ANNALS_SERVER"] = p.served.url
	out := p.remote.mustRun("", "--server", p.served.url, "--key", p.key, "show", "c1")
	if !strings.Contains(out, "The deploy failed") {
		t.Fatalf("the remote's copy of c1:\n%s", out)
	}
}

// annals serve with a remote block pushes on its own, on its timer: a chat ingested while it
// runs reaches the remote with no command.
func TestServePushesToTheRemote(t *testing.T) {
	p := newReplicaPair(t)
	p.host.mustRun("", "replicate", "push") // turns the outbox on
	hostServe := startServe(t, p.host)
	p.host.mustRun(twoChats, "ingest")
	deadline := time.Now().Add(30 * time.Second)
	for replicateStatusJSON(t, p.host).PendingOps > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the serving host never pushed:\n%s", hostServe.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out := p.host.mustRun("", "replicate", "verify"); !strings.Contains(out, "0 differences") {
		t.Fatalf("verify: %s", out)
	}
	if _, body := httpDo(t, "GET", hostServe.url+"/metrics", "", ""); !strings.Contains(body, "annals_replication_pending_ops 0\n") ||
		!strings.Contains(body, "annals_replication_quarantined_lanes 0\n") || !strings.Contains(body, "annals_replication_lag_seconds 0.000\n") ||
		!strings.Contains(body, "annals_replication_given_up_ops 0\n") {
		t.Fatalf("metrics after the drain:\n%s", body)
	}
	// The remote goes away: what is captured now waits, and the metrics say so.
	if err := p.served.stop(); err != nil {
		t.Fatal(err)
	}
	p.host.mustRun(`{"type":"chat","id":"c3","title":"third"}`+"\n", "ingest")
	_, body := httpDo(t, "GET", hostServe.url+"/metrics", "", "")
	if !strings.Contains(body, "annals_replication_pending_ops 1\n") || !strings.Contains(body, "annals_replication_lag_seconds ") {
		t.Fatalf("metrics with the remote down:\n%s", body)
	}
}

// The configuration's refusals: a remote block without a key refuses to start (serve and the
// commands), an endpoint with credentials is refused at load, and a key the remote does not
// know is one clear error naming its fingerprint, never the key, with nothing queued lost.
func TestReplicateConfigurationRefusals(t *testing.T) {
	p := newReplicaPair(t)
	key := p.host.env["TEAM_KEY"]
	delete(p.host.env, "TEAM_KEY")
	if _, _, err := p.host.run("", "replicate", "push"); err == nil || !strings.Contains(err.Error(), "ANNALS_REMOTE_KEY or TEAM_KEY") {
		t.Fatalf("push without a key: %v", err)
	}
	if _, _, err := p.host.run("", "serve", "--addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "no API key") {
		t.Fatalf("serve without a key: %v", err)
	}
	p.host.env["ANNALS_REMOTE_KEY"] = "ak_" + strings.Repeat("x", 40)
	p.host.mustRun("", "replicate", "status")
	_, _, err := p.host.run("", "replicate", "push")
	if err == nil || !strings.Contains(err.Error(), replicate.Fingerprint(p.host.env["ANNALS_REMOTE_KEY"])) || strings.Contains(err.Error(), p.host.env["ANNALS_REMOTE_KEY"]) {
		t.Fatalf("push with a wrong key: %v", err)
	}
	p.host.env["ANNALS_REMOTE_KEY"] = key // ANNALS_REMOTE_KEY wins over api_key_env
	p.host.mustRun("", "replicate", "push")
	bad := filepath.Join(p.host.home, "bad.yaml")
	if err := os.WriteFile(bad, []byte("remote:\n  endpoint: https://user:pw@example.com/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.host.run("", "replicate", "status", "--config", bad); err == nil || !strings.Contains(err.Error(), "credentials") {
		t.Fatalf("an endpoint with credentials: %v", err)
	}
}

// A host with history before any remote: the first replicate command turns the outbox on and
// queues that history, so the push brings every chat; backfill again queues nothing.
func TestReplicateQueuesTheExistingHistoryFirst(t *testing.T) {
	p := newReplicaPair(t)
	p.host.mustRun(twoChats, "ingest")
	if out := p.host.mustRun("", "replicate", "push"); strings.Contains(out, "pushed 0") {
		t.Fatalf("first push: %s", out)
	}
	if out := p.host.mustRun("", "replicate", "verify"); !strings.Contains(out, "2 lanes, 2 in sync") {
		t.Fatalf("verify: %s", out)
	}
	if out := p.host.mustRun("", "replicate", "backfill"); !strings.Contains(out, "2 chats, 0 queued, 2 already") {
		t.Fatalf("backfill again: %s", out)
	}
	out := p.remote.mustRun("", "--server", p.served.url, "--key", p.key, "show", "c1")
	if !strings.Contains(out, "The deploy failed") {
		t.Fatalf("the remote's copy of c1:\n%s", out)
	}
}

// replicate --help says which long-running commands push on their own, so nobody adds a cron
// 'replicate push' beside a running serve or watch.
func TestReplicateHelpNamesThePushers(t *testing.T) {
	out := newTestMain(t).mustRun("", "replicate", "--help")
	for _, want := range []string{"'annals serve' and 'annals import --watch' both\npush on their own", "one-shot import or ingest only\nqueues"} {
		if !strings.Contains(out, want) {
			t.Errorf("replicate --help lacks %q:\n%s", want, out)
		}
	}
}
