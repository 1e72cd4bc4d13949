package loomcycle_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/loomcycletest"
)

// lcReal generates a database of loomcycle's real schema and parses it.
func lcReal(t *testing.T, o loomcycletest.Options) (*sql.DB, *loomcycletest.Stats, *importer.Parsed) {
	t.Helper()
	return lcRealAt(t, filepath.Join(t.TempDir(), "loomcycle.db"), o)
}

func lcRealAt(t *testing.T, path string, o loomcycletest.Options) (*sql.DB, *loomcycletest.Stats, *importer.Parsed) {
	t.Helper()
	db, st, err := loomcycletest.GenerateSQLite(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if !importertest.SrcFormat(t, "loomcycle").Detect(path, []byte("SQLite format 3\x00")) {
		t.Fatal("a loomcycle database is not detected")
	}
	return db, st, importertest.SrcParse(t, "loomcycle", path)
}

// lcSmall covers every kind the generator writes (its patterns repeat every 13 sessions).
var lcSmall = loomcycletest.Options{Sessions: 13, Turns: 4}

func TestLoomcycleRealUserInputBecomesTheUserTurns(t *testing.T) {
	_, st, p := lcReal(t, lcSmall)
	var repeated int
	for i := 0; i < lcSmall.Sessions; i++ {
		sid := loomcycletest.SessionID(i)
		var got []string
		var systems int
		for _, e := range p.Entries["loomcycle:"+sid] {
			switch e.Kind {
			case annals.KindUser:
				got = append(got, e.Text)
				if strings.HasPrefix(e.Text, loomcycletest.RepeatedText) {
					repeated++
				}
			case annals.KindSystem:
				if e.Text == loomcycletest.SystemPrompt {
					systems++
				}
			}
		}
		if want := st.UserTexts[sid]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s user turns:\n got %q\nwant %q", sid, got, want)
		}
		if systems != lcSmall.Turns {
			t.Errorf("%s: %d system prompts, want one per run (%d)", sid, systems, lcSmall.Turns)
		}
	}
	if repeated != lcSmall.Sessions {
		t.Errorf("the repeated user text was kept %d times, want once per session: %d", repeated, lcSmall.Sessions)
	}
}

func TestLoomcycleRealToolCallsJoinTheirResultsByID(t *testing.T) {
	_, st, p := lcReal(t, lcSmall)
	seen := map[string]bool{}
	var orphans int
	for _, es := range p.Entries {
		for _, e := range es {
			if e.Kind != annals.KindTool {
				continue
			}
			if importertest.SrcMeta(t, e)["orphan_result"] == true {
				orphans++
				if e.Tool.Name != "web_fetch" || e.Tool.Result != "late result" {
					t.Errorf("orphan result %s: got %+v", e.ID, e.Tool)
				}
				continue
			}
			c := st.Calls[e.Tool.CallID]
			if c == nil || seen[e.Tool.CallID] {
				t.Fatalf("%s: tool entry of unknown or repeated call %q", e.ID, e.Tool.CallID)
			}
			seen[e.Tool.CallID] = true
			if e.Tool.Name != c.Name || !lcSameJSON(e.Tool.Arguments, c.Input) || e.Tool.Result != c.Result {
				t.Errorf("%s: got %s(%s) = %q, want %s(%s) = %q", e.ID, e.Tool.Name, e.Tool.Arguments, e.Tool.Result, c.Name, c.Input, c.Result)
			}
			if want := map[bool]annals.Outcome{false: annals.OutcomeSucceeded, true: annals.OutcomeFailed}[c.IsError]; e.Tool.Outcome != want {
				t.Errorf("%s: outcome %q, want %q", e.ID, e.Tool.Outcome, want)
			}
			if m := importertest.SrcMeta(t, e); m["result_event"] == nil || m["result_time"] == nil {
				t.Errorf("%s: the result's event and time are not kept: %s", e.ID, e.Metadata)
			}
		}
	}
	if len(seen) != len(st.Calls) || orphans != st.Orphans || st.Orphans == 0 {
		t.Errorf("got %d calls and %d orphans, want %d and %d", len(seen), orphans, len(st.Calls), st.Orphans)
	}
}

func lcSameJSON(a json.RawMessage, b string) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, []byte(b)) == nil && x.String() == y.String()
}

// Every event is accounted for: each kind by the entries it maps to, the deltas by their text.
func TestLoomcycleRealNothingIsLost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	src, st, p := lcRealAt(t, path, lcSmall)
	got := map[string]int{}
	var text, reasoning strings.Builder
	for i := 0; i < lcSmall.Sessions; i++ {
		for _, e := range p.Entries["loomcycle:"+loomcycletest.SessionID(i)] {
			switch {
			case e.Kind == annals.KindEvent:
				got[strings.TrimPrefix(e.Channel, "loomcycle/")]++
			case e.Kind == annals.KindSystem && importertest.SrcMeta(t, e)["compaction"] == true:
				got[importertest.SrcMeta(t, e)["type"].(string)]++
			case e.Kind == annals.KindAssistant:
				text.WriteString(e.Text)
				reasoning.WriteString(e.Reasoning)
			}
		}
	}
	for _, typ := range []string{"usage", "done", "retry", "error", "awaiting_input", "prompt_snapshot", "context_compaction", "context_recap"} {
		if got[typ] != st.ByType[typ] || st.ByType[typ] == 0 {
			t.Errorf("%s: %d entries, want one per event: %d", typ, got[typ], st.ByType[typ])
		}
	}
	wantText, wantReasoning := lcSourceText(t, src)
	if text.String() != wantText || reasoning.String() != wantReasoning {
		t.Errorf("assistant text and reasoning are not the deltas' (and done's reasoning), in order:\n got %d/%d bytes\nwant %d/%d",
			text.Len(), reasoning.Len(), len(wantText), len(wantReasoning))
	}
	importertest.SrcNoSecret(t, p, loomcycletest.Secret)
	importertest.SrcIdempotent(t, "loomcycle", path)
}

// lcSourceText concatenates, session by session in seq order, the text deltas, and the
// thinking deltas with done's reasoning where no thinking streamed.
func lcSourceText(t *testing.T, src *sql.DB) (string, string) {
	rows, err := src.Query(`SELECT type, payload FROM events WHERE type IN ('text', 'thinking', 'done') ORDER BY session_id, seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var text, reasoning strings.Builder
	thought := false
	for rows.Next() {
		var typ string
		var payload []byte
		if err := rows.Scan(&typ, &payload); err != nil {
			t.Fatal(err)
		}
		var ev struct{ Text, Reasoning string }
		if err := json.Unmarshal(payload, &ev); err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "text":
			text.WriteString(ev.Text)
		case "thinking":
			reasoning.WriteString(ev.Text)
			thought = true
		case "done":
			if !thought {
				reasoning.WriteString(ev.Reasoning)
			}
			thought = false
		}
	}
	return text.String(), reasoning.String()
}

// Times are loomcycle's Unix nanoseconds, exactly: the entries', the chats' and the runs'.
func TestLoomcycleRealTimesAreExactToTheNanosecond(t *testing.T) {
	src, _, p := lcReal(t, lcSmall)
	ts := map[string]int64{}
	rows, err := src.Query(`SELECT seq, ts FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var seq, at int64
		if err := rows.Scan(&seq, &at); err != nil {
			t.Fatal(err)
		}
		ts["ev"+strconv.FormatInt(seq, 10)] = at
	}
	rows.Close()
	var checked, subMicro int
	for _, es := range p.Entries {
		for _, e := range es {
			want, ok := ts[strings.SplitN(e.ID, "#", 2)[0]]
			if !ok {
				t.Fatalf("entry %s names no event", e.ID)
			}
			if e.Time.UnixNano() != want {
				t.Fatalf("%s: time %d, want %d", e.ID, e.Time.UnixNano(), want)
			}
			checked++
			if want%1000 != 0 {
				subMicro++
			}
		}
	}
	if checked == 0 || subMicro == 0 {
		t.Fatalf("checked %d times, %d of them below the microsecond", checked, subMicro)
	}
	var created, archived int64
	if err := src.QueryRow(`SELECT created_at, archived_at FROM sessions WHERE id = ?`, loomcycletest.SessionID(5)).Scan(&created, &archived); err != nil {
		t.Fatal(err)
	}
	c := importertest.SrcChat(t, p, "loomcycle:"+loomcycletest.SessionID(5))
	if c.CreatedAt.UnixNano() != created || c.ArchivedAt == nil || c.ArchivedAt.UnixNano() != archived {
		t.Errorf("chat times: got %v %v, want %d %d", c.CreatedAt, c.ArchivedAt, created, archived)
	}
	var started, ended int64
	if err := src.QueryRow(`SELECT started_at, completed_at FROM runs WHERE id = ?`, loomcycletest.RunID(5, 1)).Scan(&started, &ended); err != nil {
		t.Fatal(err)
	}
	r := importertest.SrcRuns(p)["loomcycle:"+loomcycletest.RunID(5, 1)]
	if r == nil || r.StartedAt.UnixNano() != started || r.EndedAt == nil || r.EndedAt.UnixNano() != ended {
		t.Errorf("run times: got %+v, want %d..%d", r, started, ended)
	}
}

// The human layer of migration 0057 and the runs' usage arrive with each chat.
func TestLoomcycleRealChatsKeepTheirHumanLayerAndRuns(t *testing.T) {
	_, st, p := lcReal(t, lcSmall)
	if len(p.Chats) != st.Sessions {
		t.Fatalf("got %d chats, want %d", len(p.Chats), st.Sessions)
	}
	c0 := importertest.SrcChat(t, p, "loomcycle:"+loomcycletest.SessionID(0))
	if c0.TenantID != "acme" || c0.AgentID != "support-triage" || c0.UserID != "u_0" || !c0.Pinned ||
		strings.Join(c0.Tags, ",") != "project:jobember,team:ops" || c0.Summary == "" || c0.SummaryUpdatedAt == nil || !strings.HasPrefix(c0.Title, "Chat 0 ") {
		t.Errorf("session 0: got %+v", c0)
	}
	if c4 := importertest.SrcChat(t, p, "loomcycle:"+loomcycletest.SessionID(4)); c4.Title != "" || c4.Pinned || c4.ArchivedAt != nil {
		t.Errorf("session 4 has no title, pin or archive: got %+v", c4)
	}
	if c1 := importertest.SrcChat(t, p, "loomcycle:"+loomcycletest.SessionID(1)); c1.TenantID != "local" {
		t.Errorf("a session without a tenant lands in the local tenant: got %q", c1.TenantID)
	}
	runs := importertest.SrcRuns(p)
	if len(runs) != st.Runs {
		t.Fatalf("got %d runs, want %d", len(runs), st.Runs)
	}
	r := runs["loomcycle:"+loomcycletest.RunID(3, 0)]
	if r == nil || r.Status != annals.StatusFailed || r.InputTokens == 0 || r.OutputTokens == 0 || r.CostUSD == 0 || r.Model != "claude-sonnet-4" {
		t.Errorf("run of session 3: got %+v", r)
	}
	if r := runs["loomcycle:"+loomcycletest.RunID(1, lcSmall.Turns-1)]; r == nil || r.Status != annals.StatusAwaitingInput || r.EndedAt != nil {
		t.Errorf("the parked run: got %+v", r)
	}
}

// Payloads over the entry limit are kept cut and marked, never dropped.
func TestLoomcycleRealBigPayloadsAreKeptCut(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 8 MiB of payloads")
	}
	_, _, p := lcReal(t, loomcycletest.Options{Sessions: 1, Turns: 1, Big: true})
	var bigResult, bigSnapshot bool
	for _, e := range p.Entries["loomcycle:"+loomcycletest.SessionID(0)] {
		if e.Tool != nil && strings.HasPrefix(e.Tool.Result, "BIG") {
			bigResult = strings.HasSuffix(e.Tool.Result, "[... truncated by annals import ...]") && len(e.Tool.Result) <= annals.MaxEntryBytes/4
		}
		if e.Channel == "loomcycle/prompt_snapshot" {
			m := importertest.SrcMeta(t, e)
			bigSnapshot = m["payload_truncated"] == true && m["payload_bytes"].(float64) > 5<<20 && e.Size() <= annals.MaxEntryBytes
		}
	}
	if !bigResult || !bigSnapshot {
		t.Errorf("big tool result kept cut: %v; big prompt snapshot kept cut with its size: %v", bigResult, bigSnapshot)
	}
}

// Events keyed by loomcycle's seq are read in seq order, as loomcycle reads a transcript,
// even when a session's runs overlap or their clocks disagree.
func TestLoomcycleRealEventsFollowSeqAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	db := importertest.SrcDB(t, path, loomcycletest.Schema(loomcycletest.SQLite)...)
	importertest.SrcExec(t, db, `INSERT INTO sessions (id, tenant_id, agent, created_at) VALUES ('s', 't', 'a', 1781234567000000000)`)
	importertest.SrcExec(t, db, `INSERT INTO runs (id, session_id, status, started_at) VALUES ('late', 's', 'completed', 1781234567900000000), ('early', 's', 'completed', 1781234567100000000)`)
	for i, run := range []string{"late", "early", "late", "early"} {
		payload := `{"type":"text","text":"` + strconv.Itoa(i+1) + `"}`
		importertest.SrcExec(t, db, `INSERT INTO events (session_id, run_id, ts, type, payload) VALUES ('s', ?, ?, 'text', ?)`, run, 1781234568000000000+int64(i), []byte(payload))
	}
	var order []string
	for _, e := range importertest.SrcParse(t, "loomcycle", path).Entries["loomcycle:s"] {
		order = append(order, e.ID+"="+e.Text)
	}
	if got := strings.Join(order, " "); got != "ev1=1 ev2=2 ev3=3 ev4=4" {
		t.Errorf("order: got %s", got)
	}
}

// An event whose session is not in the sessions table is reported, never dropped silently.
func TestLoomcycleRealEventsOfAnUnknownSessionAreReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	db := importertest.SrcDB(t, path, loomcycletest.Schema(loomcycletest.SQLite)...)
	importertest.SrcExec(t, db, `PRAGMA foreign_keys = OFF`)
	importertest.SrcExec(t, db, `INSERT INTO sessions (id, tenant_id, agent, created_at) VALUES ('s', 't', 'a', 1781234567000000000)`)
	importertest.SrcExec(t, db, `INSERT INTO runs (id, session_id, status, started_at) VALUES ('r', 's', 'completed', 1781234567100000000)`)
	importertest.SrcExec(t, db, `INSERT INTO events (session_id, run_id, ts, type, payload) VALUES ('s', 'r', 1781234567200000000, 'text', '{"text":"kept"}'), ('gone', 'r', 1781234567300000000, 'text', '{"text":"lost"}')`)
	p := importertest.SrcParse(t, "loomcycle", path)
	if es := p.Entries["loomcycle:s"]; len(es) != 1 || es[0].Text != "kept" {
		t.Errorf("session s: got %+v", es)
	}
	var reported bool
	for _, w := range p.Warnings {
		reported = reported || strings.Contains(w.Message, "session gone")
	}
	if !reported {
		t.Errorf("the event of an unknown session is not reported: %+v", p.Warnings)
	}
}

// A done event carrying nothing but its reasoning and signature keeps the reasoning, never
// the signature.
func TestLoomcycleRealDoneNeverKeepsTheSignature(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	db := importertest.SrcDB(t, path, loomcycletest.Schema(loomcycletest.SQLite)...)
	importertest.SrcExec(t, db, `INSERT INTO sessions (id, tenant_id, agent, created_at) VALUES ('s', 't', 'a', 1781234567000000000)`)
	importertest.SrcExec(t, db, `INSERT INTO runs (id, session_id, status, started_at) VALUES ('r', 's', 'completed', 1781234567100000000)`)
	importertest.SrcExec(t, db, `INSERT INTO events (session_id, run_id, ts, type, payload) VALUES ('s', 'r', 1781234567200000000, 'done', ?), ('s', 'r', 1781234567300000000, 'custom', ?)`,
		[]byte(`{"reasoning":"weighed it","reasoning_signature":"`+loomcycletest.Secret+`"}`), []byte(`[{"signature":"`+loomcycletest.Secret+`","n":1}]`))
	p := importertest.SrcParse(t, "loomcycle", path)
	importertest.SrcNoSecret(t, p, loomcycletest.Secret)
	importertest.SrcWantText(t, p, "weighed it")
}
