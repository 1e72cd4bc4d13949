package lanius_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/laniustest"
)

// laniusReal generates a database of lanius's real schema and parses it.
func laniusReal(t *testing.T, sessions, turns int) (*sql.DB, *importer.Parsed) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lanius.db")
	db, err := laniustest.Generate(path, laniustest.Options{Sessions: sessions, Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, importertest.SrcParse(t, "lanius", path)
}

func TestLaniusRealToolCallsPairWithTheirResultsByCallID(t *testing.T) {
	src, p := laniusReal(t, 10, 3)
	var wantCalls int
	if err := src.QueryRow(`SELECT count(*) FROM messages WHERE role = 'tool'`).Scan(&wantCalls); err != nil {
		t.Fatal(err)
	}
	var calls int
	for id, es := range p.Entries {
		for _, e := range es {
			if e.Kind != annals.KindTool {
				continue
			}
			calls++
			if e.Tool.Name != "read_sensor" || !strings.HasPrefix(e.Tool.CallID, "call_") || !strings.Contains(string(e.Tool.Arguments), `"sensor"`) ||
				!strings.HasPrefix(e.Tool.Result, "value=") && !strings.HasPrefix(e.Tool.Result, "xxx") || e.Tool.Outcome != annals.OutcomeSucceeded {
				t.Fatalf("%s %s: want the call's name, id and arguments joined to its result, got %+v", id, e.ID, e.Tool)
			}
			if importertest.SrcMeta(t, e)["orphan_result"] != nil {
				t.Fatalf("%s %s: a result imported as an orphan", id, e.ID)
			}
		}
	}
	if calls != wantCalls {
		t.Errorf("got %d tool entries, want one per tool row: %d", calls, wantCalls)
	}
}

func TestLaniusRealOneEntryPerMessageRow(t *testing.T) {
	src, p := laniusReal(t, 10, 3)
	rows, err := src.Query(`SELECT session_id, count(*) FROM messages GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var sid string
		var want int
		if err := rows.Scan(&sid, &want); err != nil {
			t.Fatal(err)
		}
		n++
		got := 0
		for _, e := range p.Entries["lanius:"+sid] {
			switch e.Kind {
			case annals.KindUser, annals.KindAssistant, annals.KindTool:
				got++
			default:
				t.Errorf("%s: an entry of kind %s in a session (events belong to the ledger)", sid, e.Kind)
			}
		}
		if got != want {
			t.Errorf("session %s: %d message entries, lanius has %d messages", sid, got, want)
		}
	}
	if len(p.Chats) != n+1 {
		t.Errorf("got %d chats, want %d sessions and the ledger", len(p.Chats), n)
	}
	// A bare JSON string and a JSON array are one message each.
	var bare, array int
	for _, es := range p.Entries {
		for _, e := range es {
			switch e.Text {
			case "restart the pump":
				bare++
			case "first block\n\nsecond block", "first block\nsecond block", "first blocksecond block":
				array++
			}
			if e.Text == "first block" || e.Text == "second block" {
				t.Errorf("an array content split into rows: %+v", e)
			}
		}
	}
	if bare == 0 || array == 0 {
		t.Errorf("bare-string and array contents: got %d and %d one-row messages, want some of each", bare, array)
	}
}

func TestLaniusRealLedgerKeepsEveryEventInOrder(t *testing.T) {
	src, p := laniusReal(t, 6, 2)
	ledger := p.Entries["lanius:ledger"]
	rows, err := src.Query(`SELECT id, type, cause_id, correlation_id, payload, state FROM events ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var id int64
		var typ, state string
		var cause sql.NullInt64
		var corr, payload sql.NullString
		if err := rows.Scan(&id, &typ, &cause, &corr, &payload, &state); err != nil {
			t.Fatal(err)
		}
		if i >= len(ledger) {
			t.Fatalf("the ledger has %d entries, lanius more", len(ledger))
		}
		e := ledger[i]
		i++
		var meta struct {
			Ev struct {
				ID          int64  `json:"id"`
				Cause       *int64 `json:"cause_id"`
				State       string `json:"state"`
				PayloadNull bool   `json:"payload_null"`
			} `json:"lanius_event"`
		}
		if err := json.Unmarshal(e.Metadata, &meta); err != nil {
			t.Fatal(err)
		}
		if e.Kind != annals.KindEvent || e.Channel != typ || e.CorrelationID != corr.String || meta.Ev.ID != id || meta.Ev.State != state ||
			(meta.Ev.Cause == nil) != !cause.Valid || cause.Valid && *meta.Ev.Cause != cause.Int64 {
			t.Fatalf("event %d: got entry %+v meta %+v", id, e, meta.Ev)
		}
		if meta.Ev.PayloadNull != !payload.Valid || payload.Valid && e.Text != payload.String {
			t.Fatalf("event %d: payload %v stored, got text %.40q null=%v", id, payload, e.Text, meta.Ev.PayloadNull)
		}
	}
	if i != len(ledger) {
		t.Errorf("the ledger has %d entries, lanius %d events", len(ledger), i)
	}
}
