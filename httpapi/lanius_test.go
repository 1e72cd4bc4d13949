package httpapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/laniustest"
	"github.com/annals-dev/annals/sqlite"
)

// A client of lanius's history view (POST /query) pointed at annals, on the data it already has:
// its own lanius.db, imported. The expected answers are computed from that database by the
// reference's own rules (its queries, as reference 003 and its code define them), never from
// annals.

type laniusEnv struct {
	*env
	src *sql.DB
	key string
}

func newLaniusEnv(t *testing.T, sessions, turns int) *laniusEnv {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lanius.db")
	src, err := laniustest.Generate(path, laniustest.Options{Sessions: sessions, Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	var key string
	e := newEnv(t, func(db *sqlite.DB) {
		f, ok := importer.Lookup(importer.Formats(), "lanius")
		if !ok {
			t.Fatal("no lanius format")
		}
		rep, _, err := importer.New(db, importer.Options{Formats: []importer.Format{f}}).ImportPath(context.Background(), path, f)
		if err != nil || len(rep.Errors) > 0 {
			t.Fatalf("import: %v %+v", err, rep.Errors)
		}
		key = mustKey(t, db, member("local", "", "", annals.ScopeTenant))
	})
	return &laniusEnv{env: e, src: src, key: key}
}

// query posts a body and decodes the answer, which must have the given status.
func (l *laniusEnv) query(t *testing.T, status int, body string) map[string]any {
	t.Helper()
	r := l.do("POST", "/query", l.key, body)
	if r.status != status {
		t.Fatalf("%s: status %d, want %d: %.300s", body, r.status, status, r.body)
	}
	var m map[string]any
	r.json(t, &m)
	return m
}

func (l *laniusEnv) strings(t *testing.T, q string, args ...any) []string {
	t.Helper()
	rows, err := l.src.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func sortedStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	sort.Strings(out)
	return out
}

func TestLaniusClientAgentsAndOrphans(t *testing.T) {
	l := newLaniusEnv(t, 15, 2)
	ans := l.query(t, http.StatusOK, `{"kind":"agents"}`)
	if ans["ok"] != true || ans["kind"] != "agents" {
		t.Fatalf("want ok true and kind agents, got %v %v", ans["ok"], ans["kind"])
	}
	got := map[string][]string{}
	for _, a := range ans["agents"].([]any) {
		a := a.(map[string]any)
		got[a["agent"].(string)] = sortedStrings(a["sessions"])
	}
	// The reference: a session is under noun N when one of its messages' events is
	// in/agent/N[/...]; orphans are the sessions under no noun.
	want := map[string][]string{}
	for _, n := range laniustest.Nouns {
		ss := l.strings(t, `SELECT DISTINCT m.session_id FROM messages m JOIN events e ON m.event_id = e.id
			WHERE e.type = 'in/agent/' || ? OR e.type LIKE 'in/agent/' || ? || '/%' ORDER BY 1`, n, n)
		want[n] = ss
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("agents: got %v, want %v", got, want)
	}
	orphans := l.strings(t, `SELECT DISTINCT session_id FROM messages WHERE session_id NOT IN (
		SELECT m.session_id FROM messages m JOIN events e ON m.event_id = e.id WHERE e.type LIKE 'in/agent/%') ORDER BY 1`)
	if g := sortedStrings(ans["orphan_sessions"]); !slices.Equal(g, orphans) || len(orphans) == 0 {
		t.Errorf("orphan_sessions: got %v, want %v", g, orphans)
	}
	// The UI's liveness probe sends a stringified limit.
	if probe := l.query(t, http.StatusOK, `{"kind":"agents","limit":"1"}`); probe["ok"] != true {
		t.Errorf("liveness probe: %v", probe)
	}
}

func TestLaniusClientSessionsAreTheMessageSessions(t *testing.T) {
	l := newLaniusEnv(t, 12, 3)
	ans := l.query(t, http.StatusOK, `{"kind":"sessions"}`)
	if ans["ok"] != true || ans["kind"] != "sessions" {
		t.Fatalf("want ok true and kind sessions, got %v %v", ans["ok"], ans["kind"])
	}
	rows, err := l.src.Query(`SELECT session_id, MIN(created_at), MAX(created_at), COUNT(*), COUNT(DISTINCT event_id) FROM messages GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string][4]any{}
	for rows.Next() {
		var id, first, last string
		var n, events float64
		if err := rows.Scan(&id, &first, &last, &n, &events); err != nil {
			t.Fatal(err)
		}
		want[id] = [4]any{first, last, n, events}
	}
	got := map[string][4]any{}
	for _, s := range ans["sessions"].([]any) {
		s := s.(map[string]any)
		got[s["session"].(string)] = [4]any{s["first_ts"], s["last_ts"], s["message_count"], s["event_count"]}
	}
	// Same sessions (the ledger is none), same counts (event_count: the distinct events behind
	// the messages), times as stored: "...19.950Z".
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessions:\ngot  %v\nwant %v", got, want)
	}
	agent := l.query(t, http.StatusOK, `{"kind":"sessions","agent":"ops"}`)
	if n := len(agent["sessions"].([]any)); n == 0 || n >= len(want) {
		t.Errorf("sessions of agent ops: %d of %d", n, len(want))
	}
}

func TestLaniusClientTranscriptBySessionIDWithStringParameters(t *testing.T) {
	l := newLaniusEnv(t, 4, 4)
	sid := l.strings(t, `SELECT session_id FROM messages ORDER BY id LIMIT 1`)[0]
	n := len(l.strings(t, `SELECT id FROM messages WHERE session_id = ?`, sid))
	ans := l.query(t, http.StatusOK, `{"kind":"transcript","session":"`+sid+`","limit":"3"}`)
	msgs := ans["messages"].([]any)
	if ans["ok"] != true || ans["session"] != sid || len(msgs) != 3 || ans["has_more"] != true {
		t.Fatalf("transcript of %s (%d messages), limit \"3\": got %d messages, has_more %v: %v", sid, n, len(msgs), ans["has_more"], ans)
	}
	// Page backwards to the start, with before_id stringified as the GET proxy sends it.
	seen := len(msgs)
	for ans["has_more"] == true {
		first := msgs[0].(map[string]any)["id"].(float64)
		ans = l.query(t, http.StatusOK, `{"kind":"transcript","session":"`+sid+`","limit":"3","before_id":"`+jsonNumber(first)+`"}`)
		msgs = ans["messages"].([]any)
		seen += len(msgs)
	}
	if seen != n {
		t.Errorf("paging %s: saw %d messages, lanius holds %d", sid, seen, n)
	}
	for _, m := range msgs {
		if s := m.(map[string]any)["session"]; s != sid {
			t.Errorf("a message names its session %v, want %s", s, sid)
		}
	}
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// laniusPayload is the reference's capped_json of a stored text.
func laniusPayload(p sql.NullString) any {
	if !p.Valid {
		return nil
	}
	if utf8.RuneCountInString(p.String) > 16384 {
		return map[string]any{"truncated": true, "chars": float64(utf8.RuneCountInString(p.String)), "preview": string([]rune(p.String)[:2048])}
	}
	var v any
	if json.Unmarshal([]byte(p.String), &v) == nil {
		return v
	}
	return p.String
}

func TestLaniusClientConversationAnswersEventsAsStored(t *testing.T) {
	l := newLaniusEnv(t, 9, 2)
	corrs := l.strings(t, `SELECT DISTINCT correlation_id FROM events WHERE correlation_id IS NOT NULL ORDER BY 1`)
	kinds := map[string]bool{}
	for _, corr := range corrs {
		ans := l.query(t, http.StatusOK, `{"kind":"conversation","correlation":"`+corr+`"}`)
		if ans["ok"] != true || ans["kind"] != "conversation" || ans["correlation"] != corr || ans["truncated"] != false {
			t.Fatalf("conversation %s: %v", corr, ans)
		}
		rows, err := l.src.Query(`SELECT id, type, cause_id, state, payload, created_at FROM events WHERE correlation_id = ? ORDER BY id`, corr)
		if err != nil {
			t.Fatal(err)
		}
		var want []map[string]any
		for rows.Next() {
			var id float64
			var typ, state, created string
			var cause sql.NullFloat64
			var payload sql.NullString
			if err := rows.Scan(&id, &typ, &cause, &state, &payload, &created); err != nil {
				t.Fatal(err)
			}
			ev := map[string]any{"id": id, "type": typ, "cause_id": nil, "state": state, "payload": laniusPayload(payload), "created_at": created}
			if cause.Valid {
				ev["cause_id"] = cause.Float64
			}
			switch v := ev["payload"].(type) {
			case nil:
				kinds["null"] = true
			case string:
				kinds["raw string"] = true
			case float64:
				kinds["number"] = true
			case map[string]any:
				if v["truncated"] == true {
					kinds["capped"] = true
				}
			}
			want = append(want, ev)
		}
		rows.Close()
		var got []map[string]any
		for _, e := range ans["events"].([]any) {
			e := e.(map[string]any)
			delete(e, "session") // annals's addition
			got = append(got, e)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("conversation %s events:\ngot  %.600v\nwant %.600v", corr, got, want)
		}
	}
	if len(kinds) != 4 {
		t.Errorf("the fixture covered payload kinds %v; want null, raw string, number and capped", kinds)
	}
}

func TestLaniusClientSearchHoldsMessagesNotLedgerEvents(t *testing.T) {
	l := newLaniusEnv(t, 12, 3)
	ans := l.query(t, http.StatusOK, `{"kind":"search","page":{"limit":"100"}}`)
	msgs := ans["messages"].([]any)
	if ans["ok"] != true || ans["kind"] != "search" || len(msgs) != 100 || ans["has_more"] != true || ans["cursor"] == nil {
		t.Fatalf("search: ok %v kind %v, %d messages, has_more %v", ans["ok"], ans["kind"], len(msgs), ans["has_more"])
	}
	tools := 0
	for _, m := range msgs {
		m := m.(map[string]any)
		switch m["role"] {
		case "user", "assistant":
		case "tool":
			tools++
			tool := m["content"].(map[string]any)["tool"].(map[string]any)
			if tool["name"] != "read_sensor" || !strings.HasPrefix(tool["call_id"].(string), "call_") || tool["arguments"] == nil {
				t.Errorf("a tool message without its call: %v", tool)
			}
		default:
			t.Errorf("a search row of role %v (session %v): the ledger leaks into search", m["role"], m["session"])
		}
	}
	if tools == 0 {
		t.Error("no tool messages on the first page")
	}
}

func TestLaniusClientErrorsAreOkFalseWithTheMessage(t *testing.T) {
	l := newLaniusEnv(t, 1, 1)
	for _, tc := range []struct {
		body    string
		status  int
		message string
	}{
		{`{"kind":"nope"}`, http.StatusBadRequest, `unknown kind "nope"`},
		{`{"kind":"transcript"}`, http.StatusBadRequest, "session"},
		{`{"kind":"search","filter":{"roles":["robot"]}}`, http.StatusBadRequest, "robot"},
		{`[1]`, http.StatusBadRequest, "JSON object"},
	} {
		ans := l.query(t, tc.status, tc.body)
		msg, _ := ans["error"].(string)
		if ans["ok"] != false || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: got %v, want {\"ok\": false, \"error\": \"...%s...\"}", tc.body, ans, tc.message)
		}
	}
}

func TestLaniusClientTranscriptRowsAreTheStoredMessages(t *testing.T) {
	l := newLaniusEnv(t, 5, 3)
	for _, sid := range l.strings(t, `SELECT DISTINCT session_id FROM messages ORDER BY 1`) {
		rows, err := l.src.Query(`SELECT m.role, m.content, m.event_id, e.type FROM messages m LEFT JOIN events e ON m.event_id = e.id WHERE m.session_id = ? ORDER BY m.id`, sid)
		if err != nil {
			t.Fatal(err)
		}
		var want []map[string]any
		for rows.Next() {
			var role string
			var content sql.NullString
			var event sql.NullInt64
			var typ sql.NullString
			if err := rows.Scan(&role, &content, &event, &typ); err != nil {
				t.Fatal(err)
			}
			var eventID any
			if event.Valid {
				eventID = float64(event.Int64)
			}
			want = append(want, map[string]any{"role": role, "content": cappedJSON(content), "event_type": typ.String, "event_id": eventID})
		}
		rows.Close()
		ans := l.query(t, http.StatusOK, `{"kind":"transcript","session":"`+sid+`","limit":200}`)
		got := ans["messages"].([]any)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, lanius has %d", sid, len(got), len(want))
		}
		for i, g := range got {
			g := g.(map[string]any)
			w := want[i]
			if g["role"] != w["role"] || g["event_type"] != w["event_type"] || g["event_id"] != w["event_id"] {
				t.Fatalf("%s row %d: role %v event_type %v event_id %v, want %v %v %v", sid, i, g["role"], g["event_type"], g["event_id"], w["role"], w["event_type"], w["event_id"])
			}
			// A content that is no object (a bare string, blocks), or the reference's marker in
			// place of an oversized one, is answered exactly as the reference answers it.
			wc, _ := w["content"].(map[string]any)
			if wc == nil || wc["truncated"] == true {
				if !reflect.DeepEqual(g["content"], w["content"]) {
					t.Errorf("%s row %d (%s): content = %.200v, want %.200v", sid, i, w["role"], g["content"], w["content"])
				}
				continue
			}
			gc := g["content"].(map[string]any)
			for _, k := range []string{"role", "tool_calls", "tool_call_id", "name", "content", "reasoning"} {
				if wv, ok := wc[k]; ok && !reflect.DeepEqual(gc[k], wv) {
					t.Errorf("%s row %d (%s): content.%s = %v, want %v as stored", sid, i, w["role"], k, gc[k], wv)
				}
			}
			if text, ok := wc["text"]; ok && gc["text"] != text {
				t.Errorf("%s row %d: content.text = %v, want %v", sid, i, gc["text"], text)
			}
		}
		// select.tool_calls false drops them from assistant rows, as the reference does.
		bare := l.query(t, http.StatusOK, `{"kind":"transcript","session":"`+sid+`","limit":200,"select":{"tool_calls":false}}`)
		for _, m := range bare["messages"].([]any) {
			if c, _ := m.(map[string]any)["content"].(map[string]any); c["tool_calls"] != nil {
				t.Fatalf("%s: tool_calls false left %v", sid, c["tool_calls"])
			}
		}
	}
}

func TestLaniusClientTruncatedToolResultsAreCutAsTheReferenceCutsThem(t *testing.T) {
	l := newLaniusEnv(t, 3, 2)
	ans := l.query(t, http.StatusOK, `{"kind":"search","filter":{"roles":["tool"]},"select":{"tool_results":{"truncate":5}}}`)
	msgs := ans["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("no tool messages")
	}
	for _, m := range msgs {
		c := m.(map[string]any)["content"].(map[string]any)
		// The reference: content[:5] + "…" and truncated_to 5, for a result longer than 5.
		if s, _ := c["content"].(string); utf8.RuneCountInString(s) != 6 || !strings.HasSuffix(s, "…") || c["truncated_to"] != float64(5) {
			t.Errorf("a truncated tool row: content %v truncated_to %v", c["content"], c["truncated_to"])
		}
	}
}

// cappedJSON is what the reference's view answers for a stored content (its capped_json): a
// text over 16384 characters becomes {"truncated": true, "chars", "preview": its first 2048
// characters}; valid JSON is the value it holds; anything else is the string; NULL is null.
func cappedJSON(s sql.NullString) any {
	if !s.Valid {
		return nil
	}
	if n := utf8.RuneCountInString(s.String); n > 16384 {
		return map[string]any{"truncated": true, "chars": float64(n), "preview": string([]rune(s.String)[:2048])}
	}
	var v any
	if err := json.Unmarshal([]byte(s.String), &v); err != nil {
		return s.String
	}
	return v
}
