package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// roundTripChat is a chat with what an export has to carry: attributes, tags, a description,
// several runs (one recorded twice, one still running, one failed, two starting at the same
// time), entries of every kind with tool calls, reasoning, tokens, metadata and source ids, and
// a truncation that removed two entries before the last one was appended. Its user is the
// importing principal's ("local"), because an import takes the tenant and user from whoever
// imports, not from the file. Its metadata is compact JSON, as serializers write it: the JSON
// export indents metadata and arguments and the import compacts them, so JSON spacing inside
// them is the one thing only the Markdown form keeps.
const roundTripChat = `{"type":"chat","id":"rt-1","user_id":"local","agent_id":"coder","attributes":{"source":"my-runtime","repository":"github.com/acme/api"},"created_at":"2025-05-02T08:00:00Z","title":"Why does make test fail?","description":"Asked on *Friday*.","tags":["ci","flaky"]}
{"type":"run","chat_id":"rt-1","id":"rt-1/run-1","status":"running","model":"gpt-4.1","started_at":"2025-05-02T08:00:00.123456789+02:00"}
{"type":"entry","chat_id":"rt-1","id":"m1","kind":"user","run_id":"rt-1/run-1","source_ids":["u1"],"time":"2025-05-02T08:00:00Z","text":"make test fails, can you look?"}
{"type":"entry","chat_id":"rt-1","id":"m2","kind":"tool","run_id":"rt-1/run-1","time":"2025-05-02T08:00:03Z","tool":{"name":"shell","call_id":"call_1","arguments":{"cmd":["make","test"]},"result":"make: *** No rule to make target 'test'.  Stop.","outcome":"failed"}}
{"type":"entry","chat_id":"rt-1","id":"m3","kind":"tool","run_id":"rt-1/run-1","time":"2025-05-02T08:00:05Z","tool":{"name":"read_file","call_id":"call_2","arguments":{"path":"Makefile"},"result":"check:\n\tgo test ./...\n","outcome":"succeeded"}}
{"type":"entry","chat_id":"rt-1","id":"m4","kind":"assistant","run_id":"rt-1/run-1","time":"2025-05-02T08:00:09Z","reasoning":"The target is check.","text":"Use ` + "`make check`" + `.","output_tokens":96,"metadata":{"finish":"stop","n":[1,2]}}
{"type":"run","chat_id":"rt-1","id":"rt-1/run-1","status":"completed","model":"gpt-4.1","ended_at":"2025-05-02T08:00:09Z","input_tokens":1830,"output_tokens":96,"cost_usd":0.0044123}
{"type":"run","chat_id":"rt-1","id":"rt-1/run-2","status":"failed","model":"gpt-4.1-mini","started_at":"2025-05-02T08:01:00Z","ended_at":"2025-05-02T08:01:30.5Z","input_tokens":12,"cost_usd":1.5}
{"type":"run","chat_id":"rt-1","id":"rt-1/run-3","status":"awaiting_input","started_at":"2025-05-02T08:01:00Z","output_tokens":7}
{"type":"entry","chat_id":"rt-1","id":"m5","kind":"user","source_ids":["u2"],"time":"2025-05-02T08:02:00Z","text":"Never mind."}
{"type":"entry","chat_id":"rt-1","id":"m6","kind":"event","channel":"in/agent/main","correlation_id":"k1","time":"2025-05-02T08:02:01Z","text":"checkpoint"}
{"type":"truncate","chat_id":"rt-1","source_id":"u2"}
{"type":"run","chat_id":"rt-1","id":"rt-1/run-4","status":"running","model":"o3","started_at":"2025-05-02T08:03:00Z"}
{"type":"entry","chat_id":"rt-1","id":"m7","kind":"system","run_id":"rt-1/run-4","channel":"compaction","time":"2025-05-02T08:03:01Z","text":"Summary so far."}
`

// export runs `annals export` in both forms and returns the Markdown and the JSON.
func (tm *testMain) exportBoth(t *testing.T, dir, id string) (md, js string) {
	t.Helper()
	md = tm.mustRun("", "export", id)
	path := filepath.Join(dir, "chat.json")
	tm.mustRun("", "export", "--format", "json", "--out", path, id)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return md, string(data)
}

// An export, Markdown or JSON, imported into a fresh database and exported again gives the same
// bytes, in both forms: the chat, its runs, its entries, its status, totals and last activity.
func TestExportImportExportGivesTheSameBytes(t *testing.T) {
	src := newTestMain(t)
	src.mustRun(roundTripChat, "ingest", "-")
	dir := t.TempDir()
	md, js := src.exportBoth(t, dir, "rt-1")
	if !strings.Contains(md, "<!-- annals:run ") || !strings.Contains(js, `"runs": [`) {
		t.Fatalf("the exports carry no runs:\n%s\n%s", md, js)
	}
	mdPath, jsPath := filepath.Join(dir, "rt-1.md"), filepath.Join(dir, "rt-1.json")
	for path, data := range map[string]string{mdPath: md, jsPath: js} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Each form is imported, then exported in both forms: each export matches the original.
	for _, path := range []string{mdPath, jsPath} {
		t.Run(filepath.Ext(path), func(t *testing.T) {
			dst := newTestMain(t)
			dst.mustRun("", "import", path)
			md2, js2 := dst.exportBoth(t, t.TempDir(), "rt-1")
			if md2 != md {
				t.Errorf("Markdown export after the import differs:\n%s\n---- want ----\n%s", md2, md)
			}
			if js2 != js {
				t.Errorf("JSON export after the import differs:\n%s\n---- want ----\n%s", js2, js)
			}
		})
	}
}

// The JSON export holds the chat's runs as `annals show --json` prints them, after the fields
// it always had.
func TestExportJSONHoldsTheRunsAsShowPrintsThem(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(roundTripChat, "ingest", "-")
	_, js := tm.exportBoth(t, t.TempDir(), "rt-1")
	var exp, show map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &exp); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "show", "--json", "rt-1")), &show); err != nil {
		t.Fatal(err)
	}
	var runs, showRuns []map[string]any
	if err := json.Unmarshal(exp["runs"], &runs); err != nil {
		t.Fatalf("runs: %v in %s", err, js)
	}
	if err := json.Unmarshal(show["runs"], &showRuns); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 || !reflect.DeepEqual(runs, showRuns) {
		t.Errorf("export runs %v, want the 4 runs show prints: %v", runs, showRuns)
	}
	for _, k := range []string{"chat", "format", "entries", "has_more"} {
		if _, ok := exp[k]; !ok {
			t.Errorf("the JSON export lost its %q field", k)
		}
	}
	if string(exp["format"]) != `"json"` || string(exp["has_more"]) != "false" {
		t.Errorf("format %s has_more %s, want \"json\" false", exp["format"], exp["has_more"])
	}
}
