package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals/replicate"
)

// retry --drop against a real remote: a damaged queued operation quarantines its lane; without
// --yes and nobody to ask, the plan is shown and nothing dropped; with --yes it is dropped and
// the lane flows; verify then reports the change given up and does not send it; verify --reset
// sends the chat whole.
func TestReplicateRetryDrop(t *testing.T) {
	p := newReplicaPair(t)
	p.host.mustRun(twoChats, "ingest")
	p.host.mustRun("", "replicate", "push")
	p.host.mustRun(`{"type":"entry","chat_id":"c2","id":"e9","kind":"user","text":"one more"}`+"\n", "ingest")
	raw, err := sql.Open("sqlite", filepath.Join(p.host.home, "annals.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE replication_outbox SET payload = CAST(replace(CAST(payload AS TEXT), 'one more', 'ONE MORE') AS BLOB) WHERE chat_id = 'c2'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if out := p.host.mustRun("", "replicate", "push"); !strings.Contains(out, "1 quarantined") {
		t.Fatalf("push of the damaged operation: %s", out)
	}
	out, _, err := p.host.run("", "replicate", "retry", "--chat", "c2", "--drop")
	if err == nil || !strings.Contains(out, "will drop operation") || !strings.Contains(out, "append, lane seq") || !strings.Contains(err.Error(), "--yes") {
		t.Fatalf("retry --drop without --yes: %v\n%s", err, out)
	}
	if st := replicateStatusJSON(t, p.host); len(st.Quarantined) != 1 || st.PendingOps != 1 {
		t.Fatalf("status after a drop not confirmed: %+v; want the lane still quarantined with its operation", st)
	}
	var res replicate.DropResult
	if err := json.Unmarshal([]byte(p.host.mustRun("", "replicate", "retry", "--chat", "c2", "--drop", "--yes", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.DropPlan == nil || res.Op.Kind != "append" || res.Later != 0 || res.Push == nil {
		t.Fatalf("retry --drop --yes --json: %+v", res)
	}
	if st := replicateStatusJSON(t, p.host); len(st.Quarantined) != 0 || st.PendingOps != 0 || len(st.GivenUp) != 1 || st.GivenUp[0].OpID != res.Op.ID || st.GivenUp[0].Kind != "append" {
		t.Fatalf("status after the drop: %+v; want nothing queued and the dropped append given up", st)
	}
	if out := p.host.mustRun("", "replicate", "status"); !strings.Contains(out, "given up c2 at ") || !strings.Contains(out, "op "+res.Op.ID+" (append, lane seq") || !strings.Contains(out, "verify --reset c2") {
		t.Fatalf("status after the drop:\n%s\nwant the given-up operation", out)
	}
	out = p.host.mustRun("", "replicate", "verify")
	if !strings.Contains(out, "0 differences, 0 repaired") || !strings.Contains(out, "c2: given up by 'annals replicate retry --drop'") || !strings.Contains(out, "verify --reset c2") {
		t.Fatalf("verify after the drop: %s; want the given-up change explained and not sent", out)
	}
	if out := p.host.mustRun("", "replicate", "verify", "--reset", "c2"); !strings.Contains(out, "repaired c2") || !strings.Contains(out, "0 differences, 1 repaired") {
		t.Fatalf("verify --reset c2: %s", out)
	}
	if out := p.host.mustRun("", "replicate", "verify"); !strings.Contains(out, "0 differences, 0 repaired") || strings.Contains(out, "given up") {
		t.Fatalf("verify again: %s", out)
	}
	if st := replicateStatusJSON(t, p.host); len(st.GivenUp) != 0 {
		t.Fatalf("status after verify --reset: given up %+v; want none", st.GivenUp)
	}
}
