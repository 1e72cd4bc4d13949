package main

import (
	"net/http"
	"strings"
	"testing"
)

// A delete followed by a re-import (issue 26, "deletes stay deleted"): a chat imported, pushed,
// deleted and the deletion pushed stays deleted when the same source files are imported again —
// on the host and on the remote — and verify is at zero.
func TestReplicateDeleteThenReimport(t *testing.T) {
	p := newReplicaPair(t)
	placeImport(t, p.host.home)
	p.host.mustRun("", "import", "--quiet")
	p.host.mustRun("", "replicate", "push")
	const id = "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
	get := `{"op":"get","session_id":"` + id + `","limit":1}`
	if code, body := httpDo(t, "POST", p.served.url+"/v1/history", p.key, get); code != http.StatusOK {
		t.Fatalf("the imported chat on the remote = %d %s", code, body)
	}
	p.host.mustRun("", "delete", "--yes", id)
	p.host.mustRun("", "replicate", "push")
	if code, _ := httpDo(t, "POST", p.served.url+"/v1/history", p.key, get); code != http.StatusNotFound {
		t.Fatalf("the deleted chat on the remote = %d; want 404", code)
	}

	p.host.mustRun("", "import", "--quiet")
	if _, _, err := p.host.run("", "show", "--local", id); err == nil {
		t.Fatal("the re-import brought the deleted chat back on the host")
	}
	p.host.mustRun("", "replicate", "push")
	if code, _ := httpDo(t, "POST", p.served.url+"/v1/history", p.key, get); code != http.StatusNotFound {
		t.Fatalf("the deleted chat on the remote after the re-import = %d; want 404", code)
	}
	if out := p.host.mustRun("", "replicate", "verify"); !strings.Contains(out, "0 differences") {
		t.Fatalf("verify after the re-import: %s", out)
	}
}
