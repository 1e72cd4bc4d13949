package tau_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestTauHistoryMapsOneToOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.sqlite")
	importertest.TauDB(t, path)
	if !importertest.SrcFormat(t, "tau").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a Tau history database is not detected")
	}
	p := importertest.SrcParse(t, "tau", path)
	if len(p.Chats) != 3 {
		t.Fatalf("got %d chats, want 3", len(p.Chats))
	}
	c := importertest.SrcChat(t, p, "tau:tau-1")
	if c.Attributes["source"] != "tau" || c.Attributes["tau_source"] != "tui" || c.Attributes["repository"] != "github.com/acme/api,github.com/acme/web" {
		t.Errorf("attributes: got %v", c.Attributes)
	}
	es := p.Entries["tau:tau-1"]
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	if got := strings.Join(order, " "); got != "e1 e2 e3 e4 e5 e6" {
		t.Errorf("order by seq: got %s", got)
	}
	if e := importertest.SrcEntry(t, es, "e1"); e.Kind != annals.KindUser || !strings.Contains(e.Text, "<system>repo rules</system>") || e.SourceIDs[0] != "msg-1" {
		t.Errorf("user entry keeps its system block and source id: got %+v", e)
	}
	if e := importertest.SrcEntry(t, es, "e3"); e.Tool.Name != "bash" || e.Tool.Outcome != annals.OutcomeSucceeded || e.Tool.Result != "ok  ./..." || string(e.Tool.Arguments) != `{"cmd":"make check"}` {
		t.Errorf("tool entry: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "e4"); e.Tool.Outcome != annals.OutcomeBlocked || string(e.Tool.Arguments) != `"not json"` {
		t.Errorf("denied call with arguments that are not JSON: got %+v", e.Tool)
	}
	if e := importertest.SrcEntry(t, es, "e5"); e.Tool.Outcome != "" || importertest.SrcMeta(t, e)["tau_outcome"] != "timed_out" {
		t.Errorf("an unknown outcome is kept in metadata: got %+v %s", e.Tool, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "e6"); e.Kind != annals.KindSystem || e.Text != "history unavailable" {
		t.Errorf("warning: got %+v", e)
	}
	if e := importertest.SrcEntry(t, p.Entries["tau:tau-2"], "f2"); e.Kind != annals.KindEvent || e.Channel != "tau/dream" {
		t.Errorf("unknown kind: got %+v", e)
	}
	if es := p.Entries["tau:tau-9"]; len(es) != 1 {
		t.Errorf("entries of a missing session row: got %d", len(es))
	}
	importertest.SrcIdempotent(t, "tau", path)
}

func TestTauAttributesFromAKeyValueTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.sqlite")
	importertest.TauDB(t, path,
		`CREATE TABLE history_attributes (session_id TEXT, key TEXT, value TEXT)`,
		`INSERT INTO history_attributes VALUES ('tau-2', 'source', 'telegram'), ('tau-2', 'chat', 'ops-room')`)
	p := importertest.SrcParse(t, "tau", path)
	if a := importertest.SrcChat(t, p, "tau:tau-2").Attributes; a["tau_source"] != "telegram" || a["chat"] != "ops-room" || a["source"] != "tau" {
		t.Errorf("attributes: got %v", a)
	}
}

// FuzzTauEntry feeds arbitrary kind, arguments and outcome into one entry.
func FuzzTauEntry(f *testing.F) {
	f.Add("tool", `{"a":[1,2]}`, "succeeded", "id")
	f.Add("tool", `{`, "\x00", "")
	f.Add("assistant", ``, "", "\xff")
	f.Add("", "null", "CANCELLED", "x")
	path := filepath.Join(f.TempDir(), "history.sqlite")
	db := importertest.SrcDB(f, path, importertest.TauSchema...)
	importertest.SrcExec(f, db, `INSERT INTO history_sessions VALUES ('s', '2026-01-01T00:00:00Z', '{"k":"v"}')`)
	format := importertest.SrcFormat(f, "tau")
	f.Fuzz(func(t *testing.T, kind, args, outcome, id string) {
		importertest.SrcExec(t, db, `DELETE FROM history_entries`)
		importertest.SrcExec(t, db, `INSERT INTO history_entries VALUES ('s', 1, ?, 'm', ?, 'text', 'tool', ?, 'result', ?, 'not a time')`, id, kind, args, outcome)
		p, err := importer.Parse(context.Background(), format, path)
		if err != nil {
			t.Fatalf("a bad entry must not fail the import: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}
