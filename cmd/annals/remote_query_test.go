package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Remote query mode: a host with a remote block lists, searches and shows the shared
// collection (what it pushed, not what it holds only locally); --local asks its own database;
// with the remote down a read is a clear error, never the local results.
func TestRemoteQueryMode(t *testing.T) {
	p := newReplicaPair(t)
	p.host.mustRun(twoChats, "ingest")
	p.host.mustRun("", "replicate", "push")
	p.host.mustRun(`{"type":"chat","id":"only-here","title":"Kept on the laptop"}
{"type":"entry","chat_id":"only-here","id":"e1","kind":"user","text":"laptop only deploy notes"}
`, "ingest")

	ids := func(out string) []string {
		var l listJSON
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("list --json: %v\n%s", err, out)
		}
		var got []string
		for _, c := range l.Chats {
			got = append(got, c.ID)
		}
		return got
	}
	if got := strings.Join(ids(p.host.mustRun("", "list", "--json")), ","); got != "c2,c1" && got != "c1,c2" {
		t.Fatalf("list in remote query mode = %s; want the shared collection's c1 and c2 only", got)
	}
	if got := ids(p.host.mustRun("", "list", "--local", "--json")); len(got) != 3 {
		t.Fatalf("list --local = %v; want the host's three chats", got)
	}
	if out := p.host.mustRun("", "search", "deploy"); !strings.Contains(out, "c1") || strings.Contains(out, "only-here") {
		t.Fatalf("search in remote query mode:\n%s", out)
	}
	if out := p.host.mustRun("", "show", "c1"); !strings.Contains(out, "The deploy failed") {
		t.Fatalf("show in remote query mode:\n%s", out)
	}
	if _, _, err := p.host.run("", "show", "only-here"); err == nil {
		t.Fatal("show of a chat the remote does not hold succeeded in remote query mode")
	}
	if out := p.host.mustRun("", "show", "--local", "only-here"); !strings.Contains(out, "laptop only") {
		t.Fatalf("show --local:\n%s", out)
	}

	if out := p.host.mustRun("", "export", "c1"); !strings.Contains(out, "The deploy failed") {
		t.Fatalf("export in remote query mode:\n%s", out)
	}
	if _, _, err := p.host.run("", "export", "only-here"); err == nil {
		t.Fatal("export of a chat the remote does not hold succeeded in remote query mode")
	}
	if out := p.host.mustRun("", "export", "--local", "only-here"); !strings.Contains(out, "laptop only") {
		t.Fatalf("export --local:\n%s", out)
	}
	p.host.mustRun("", "usage", "--all")
	p.host.mustRun("", "usage", "--all", "--local")

	if err := p.served.stop(); err != nil {
		t.Fatal(err)
	}
	out, _, err := p.host.run("", "list")
	if err == nil || strings.Contains(out, "only-here") || strings.Contains(out, "c1") {
		t.Fatalf("list with the remote down = %q, %v; want an error and no local results", out, err)
	}
	if !strings.Contains(err.Error(), "cannot reach the annals server at "+p.served.url) {
		t.Errorf("the error with the remote down does not say what failed: %v", err)
	}
	if got := ids(p.host.mustRun("", "list", "--local", "--json")); len(got) != 3 {
		t.Fatalf("list --local with the remote down = %v; want the host's three chats", got)
	}
	for _, read := range [][]string{{"search", "deploy"}, {"show", "c1"}, {"export", "c1"}, {"usage", "--all"}, {"related", "c1"}} {
		out, _, err := p.host.run("", read...)
		if err == nil || !strings.Contains(err.Error(), "cannot reach the annals server at "+p.served.url) || strings.Contains(out, "deploy") {
			t.Errorf("%s with the remote down = %q, %v; want the unreachable remote named and no local results", read[0], out, err)
		}
	}
	if out := p.host.mustRun("", "export", "--local", "c1"); !strings.Contains(out, "The deploy failed") {
		t.Fatalf("export --local with the remote down:\n%s", out)
	}
}
