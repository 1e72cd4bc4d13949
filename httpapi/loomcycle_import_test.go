package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/loomcycletest"
)

// POST /v1/_history over chats the loomcycle importer made from a database of loomcycle's own
// schema: a client reading a transcript gets the events loomcycle recorded with the payloads it
// stored, not empty shells.

// newImportedLCEnv imports a generated loomcycle database into a SQLite store and serves it;
// key reads tenant acme's support-triage agent (sessions 0, 3, 6, ... of the generator).
func newImportedLCEnv(t *testing.T) (*lcEnv, *loomcycletest.Stats) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loomcycle.db")
	src, st, err := loomcycletest.GenerateSQLite(path, loomcycletest.Options{Sessions: 6, Turns: 3})
	if err != nil {
		t.Fatal(err)
	}
	src.Close()
	db, _ := mustOpenDB(t)
	lc, _ := importer.Lookup(importer.Formats(), "loomcycle")
	rep, ok, err := importer.New(db, importer.Options{Formats: []importer.Format{lc}}).ImportPath(context.Background(), path, lc)
	if err != nil || !ok || len(rep.Errors) > 0 || rep.Chats != st.Sessions {
		t.Fatalf("import: ok %v, err %v, report %+v", ok, err, rep)
	}
	l := &lcEnv{key: mustKey(t, db, member("acme", "", "support-triage", annals.ScopeSelf))}
	l.env = serveStore(t, db)
	return l, st
}

// payloadsOf returns the payloads of the transcript's events of type typ.
func payloadsOf(t *testing.T, ans map[string]any, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range ans["transcript"].([]any) {
		ev := e.(map[string]any)
		if ev["type"] != typ {
			continue
		}
		p, _ := ev["payload"].(map[string]any)
		out = append(out, p)
	}
	return out
}

func TestLoomcycleImportedEventsKeepTheirPayloads(t *testing.T) {
	l, _ := newImportedLCEnv(t)
	// Session 3 failed: its runs recorded an error event {"type":"error","error":...}.
	ans := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"sess_0003"}`)
	usage := payloadsOf(t, ans, "usage")
	if len(usage) == 0 {
		t.Fatal("no usage events in the transcript")
	}
	for _, p := range usage {
		u, _ := p["usage"].(map[string]any)
		if u == nil || u["input_tokens"] == nil || u["model"] != "claude-sonnet-4" {
			t.Fatalf("usage payload %v, want loomcycle's {usage: {input_tokens, output_tokens, model, provider}}", p)
		}
	}
	for _, p := range payloadsOf(t, ans, "done") {
		if p["stop_reason"] == nil || p["usage"] == nil || p["reasoning_signature"] != nil {
			t.Fatalf("done payload %v, want its stop_reason and usage (and never the signature)", p)
		}
	}
	errs := payloadsOf(t, ans, "error")
	if len(errs) == 0 {
		t.Fatal("no error events in the transcript of a failed session")
	}
	for _, p := range errs {
		if p["error"] != "anthropic: 529 overloaded" || len(p) != 1 {
			t.Fatalf("error payload %v, want {error} as loomcycle stored it", p)
		}
	}
	// Session 0 retried: {"retry": {provider, attempt, wait_ms, reason}}.
	ans = l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"sess_0000"}`)
	retries := payloadsOf(t, ans, "retry")
	if len(retries) == 0 {
		t.Fatal("no retry events in session 0")
	}
	if r, _ := retries[0]["retry"].(map[string]any); r == nil || r["attempt"] != 1.0 || r["reason"] != "retry-after header" {
		t.Errorf("retry payload %v", retries[0])
	}
}

// An event whose payload held both a text and an error keeps both; one that held only text
// gets it back under text.
func TestLoomcycleEventPayloadPutsTheTextBack(t *testing.T) {
	l := newLCEnv(t, "sqlite")
	l.must(http.StatusOK, "POST", "/v1/ingest", l.admin, strings.Join([]string{
		`{"type":"entry","chat_id":"loomcycle:s_alpha","id":"x1","kind":"event","channel":"loomcycle/error","text":"boom","metadata":{"payload":{"error":"upstream","code":7}}}`,
		`{"type":"entry","chat_id":"loomcycle:s_alpha","id":"x2","kind":"event","channel":"loomcycle/channel_publish","text":"hello","metadata":{"payload":{"channel":"ops"}}}`,
		`{"type":"entry","chat_id":"loomcycle:s_alpha","id":"x3","kind":"event","channel":"loomcycle/note","metadata":{"payload":["a",1]}}`,
	}, "\n")+"\n")
	ans := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_alpha"}`)
	got := map[string]string{}
	for _, e := range ans["transcript"].([]any) {
		ev := e.(map[string]any)
		b, _ := json.Marshal(ev["payload"])
		got[ev["type"].(string)] = string(b)
	}
	for typ, want := range map[string]string{
		"error":           `{"code":7,"error":"upstream","text":"boom"}`,
		"channel_publish": `{"channel":"ops","text":"hello"}`,
		"note":            `["a",1]`,
	} {
		if got[typ] != want {
			t.Errorf("%s payload %s, want %s", typ, got[typ], want)
		}
	}
}

// The reference ends an assistant turn at done, the end of a model call: two model calls with
// nothing between them are two turns.
func TestLoomcycleConversationEndsATurnAtDone(t *testing.T) {
	l := newLCEnv(t, "sqlite")
	l.must(http.StatusOK, "POST", "/v1/ingest", l.admin, strings.Join([]string{
		`{"type":"chat","id":"loomcycle:s_two","tenant_id":"T","user_id":"u1","agent_id":"bot"}`,
		`{"type":"entry","chat_id":"loomcycle:s_two","id":"a1","kind":"user","text":"go"}`,
		`{"type":"entry","chat_id":"loomcycle:s_two","id":"a2","kind":"assistant","text":"First call."}`,
		`{"type":"entry","chat_id":"loomcycle:s_two","id":"a3","kind":"event","channel":"loomcycle/done","metadata":{"payload":{"stop_reason":"max_tokens"}}}`,
		`{"type":"entry","chat_id":"loomcycle:s_two","id":"a4","kind":"assistant","text":"Second call."}`,
	}, "\n")+"\n")
	conv := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_two","format":"conversation"}`)
	want := "### user\n\ngo\n\n### assistant\n\nFirst call.\n\n### assistant\n\nSecond call.\n\n"
	if conv["markdown"] != want {
		t.Errorf("conversation %q, want %q", conv["markdown"], want)
	}
}

// related by chat names its source as the reference does, by the session's own id, however
// the client spelled it.
func TestLoomcycleRelatedEchoesTheSessionID(t *testing.T) {
	l := newLCEnv(t, "sqlite")
	for _, id := range []string{"s_alpha", "loomcycle:s_alpha"} {
		ans := l.call(t, l.key, http.StatusOK, `{"op":"related","session_id":"`+id+`"}`)
		if ans["source_session_id"] != "s_alpha" {
			t.Errorf("related by %s: source_session_id %v, want s_alpha", id, ans["source_session_id"])
		}
	}
}

// An assistant entry that holds both reasoning and text (the importer merges a model call's
// thinking and text deltas into one) keeps the reasoning in its text event.
func TestLoomcycleTextEventKeepsItsReasoning(t *testing.T) {
	l := newLCEnv(t, "sqlite")
	l.must(http.StatusOK, "POST", "/v1/ingest", l.admin,
		`{"type":"entry","chat_id":"loomcycle:s_alpha","id":"r1","kind":"assistant","text":"Use a TTL.","reasoning":"Caches go stale."}`+"\n")
	ans := l.call(t, l.key, http.StatusOK, `{"op":"get","session_id":"s_alpha"}`)
	texts := payloadsOf(t, ans, "text")
	last := texts[len(texts)-1]
	if last["text"] != "Use a TTL." || last["reasoning"] != "Caches go stale." {
		t.Errorf("text event payload %v, want its text and its reasoning", last)
	}
}
