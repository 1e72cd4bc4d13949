package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals/replicate"
)

// annals replicate pull against a real remote: the shared collection lands in the mirror
// (beside the default database), which list, search, show and export read with --mirror once
// the remote is stopped; the mirror refuses writes; a second pull resumes from its cursor.
func TestReplicatePullMirror(t *testing.T) {
	p := newReplicaPair(t)
	p.host.mustRun(twoChats, "ingest")
	p.host.mustRun("", "replicate", "push")
	var rep replicate.PullReport
	if err := json.Unmarshal([]byte(p.host.mustRun("", "replicate", "pull", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Chats != 2 || rep.TenantID != "team" || rep.Cursor == 0 {
		t.Fatalf("first pull = %+v, want the two chats of team", rep)
	}
	if out := p.host.mustRun("", "replicate", "pull"); !strings.Contains(out, "0 chats pulled") {
		t.Fatalf("a second pull with nothing new: %s", out)
	}
	if err := p.served.stop(); err != nil {
		t.Fatal(err)
	}
	if out := p.host.mustRun("", "list", "--mirror"); !strings.Contains(out, "c1") || !strings.Contains(out, "c2") {
		t.Fatalf("list --mirror with the remote stopped:\n%s", out)
	}
	if out := p.host.mustRun("", "search", "--mirror", "deploy"); !strings.Contains(out, "c1") {
		t.Fatalf("search --mirror with the remote stopped:\n%s", out)
	}
	if out := p.host.mustRun("", "show", "--mirror", "c1"); !strings.Contains(out, "The deploy failed") {
		t.Fatalf("show --mirror:\n%s", out)
	}
	if out := p.host.mustRun("", "export", "--mirror", "c1"); !strings.Contains(out, "The deploy failed") {
		t.Fatalf("export --mirror:\n%s", out)
	}
	mirror := filepath.Join(p.host.home, ".local", "share", "annals", "mirror.db")
	if out := p.host.mustRun("", "list", "--local", "--db", mirror); !strings.Contains(out, "c1") {
		t.Fatalf("list --db on the mirror:\n%s", out)
	}
	_, _, err := p.host.run(`{"type":"chat","id":"mine"}`+"\n", "ingest", "--db", mirror)
	if err == nil || !strings.Contains(err.Error(), "read-only mirror") {
		t.Fatalf("ingest into the mirror: %v, want the mirror's refusal", err)
	}
	if _, _, err := p.host.run("", "list", "--mirror", "--db", mirror); err == nil {
		t.Fatal("--mirror with --db was accepted")
	}
	if _, _, err := p.host.run("", "replicate", "pull"); err == nil || !strings.Contains(err.Error(), p.served.url) {
		t.Fatalf("pull with the remote stopped: %v, want an error naming it", err)
	}
}
