package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testMain runs the annals binary in-process with a private environment.
type testMain struct {
	tb   testing.TB
	env  map[string]string
	home string
}

func newTestMain(tb testing.TB) *testMain {
	home := tb.TempDir()
	return &testMain{tb: tb, home: home, env: map[string]string{"ANNALS_DB": filepath.Join(home, "annals.db")}}
}

// run executes one command line and returns stdout, stderr and the error.
func (tm *testMain) run(stdin string, args ...string) (string, string, error) {
	tm.tb.Helper()
	var out, errOut bytes.Buffer
	m := NewMain()
	m.Stdin = strings.NewReader(stdin)
	m.Stdout, m.Stderr = &out, &errOut
	m.Getenv = func(k string) string { return tm.env[k] }
	m.HomeDir = func() (string, error) { return tm.home, nil }
	m.IsTerminal = func(io.Writer) bool { return false }
	err := m.Run(context.Background(), args)
	if cerr := m.Close(); cerr != nil {
		tm.tb.Errorf("close: %v", cerr)
	}
	return out.String(), errOut.String(), err
}

func (tm *testMain) mustRun(stdin string, args ...string) string {
	tm.tb.Helper()
	out, errOut, err := tm.run(stdin, args...)
	if err != nil {
		tm.tb.Fatalf("annals %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out
}

const twoChats = `{"type":"chat","id":"c1","title":"Deploy the emag.ro shop","tags":["ops"],"attributes":{"source":"test"}}
{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"deploy it please"}
{"type":"entry","chat_id":"c1","id":"e2","kind":"tool","tool":{"name":"Bash","call_id":"t1","arguments":{"cmd":"make deploy"},"result":"permission denied","outcome":"failed"}}
{"type":"entry","chat_id":"c1","id":"e3","kind":"assistant","text":"The deploy failed: permission denied."}
{"type":"run","chat_id":"c1","id":"r1","status":"completed","model":"m-1","input_tokens":100,"output_tokens":20,"cost_usd":0.5}
{"type":"chat","id":"c2","title":"Second chat"}
{"type":"entry","chat_id":"c2","id":"e1","kind":"user","text":"hello"}
`

type listJSON struct {
	Chats []struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Status string `json:"status"`
		Totals struct {
			Entries int64   `json:"entries"`
			Runs    int64   `json:"runs"`
			CostUSD float64 `json:"cost_usd"`
		} `json:"totals"`
	} `json:"chats"`
	Total int `json:"total"`
	Limit int `json:"limit"`
}

func TestIngestThenListAndShow(t *testing.T) {
	tm := newTestMain(t)
	out := tm.mustRun(twoChats, "ingest", "-")
	for _, want := range []string{"chats created   2", "entries appended   4", "runs recorded   1"} {
		if !strings.Contains(strings.Join(strings.Fields(out), "   "), strings.Join(strings.Fields(want), "   ")) {
			t.Errorf("ingest report lacks %q:\n%s", want, out)
		}
	}

	var list listJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total != 2 || len(list.Chats) != 2 || list.Limit != 50 {
		t.Fatalf("list = %+v, want 2 chats, total 2, limit 50", list)
	}
	byID := map[string]int{}
	for i, c := range list.Chats {
		byID[c.ID] = i
	}
	c1 := list.Chats[byID["c1"]]
	if c1.Totals.Entries != 3 || c1.Totals.Runs != 1 || c1.Status != "completed" || c1.Totals.CostUSD != 0.5 {
		t.Errorf("c1 = %+v, want 3 entries, 1 run, completed, cost 0.5", c1)
	}

	table := tm.mustRun("", "list")
	if !strings.Contains(table, "Deploy the emag.ro shop") || !strings.Contains(table, "TITLE") {
		t.Errorf("list table:\n%s", table)
	}

	show := tm.mustRun("", "show", "c1")
	for _, want := range []string{"Deploy the emag.ro shop", "#2 tool Bash ✗ FAILED", `"cmd": "make deploy"`, "permission denied", "source: test", "tags: ops"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}

	var shown struct {
		Chat    struct{ ID string }
		Entries []struct {
			Seq  int64
			Kind string
		}
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "show", "--json", "c1")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Chat.ID != "c1" || len(shown.Entries) != 3 || shown.Entries[2].Seq != 3 {
		t.Errorf("show --json = %+v", shown)
	}
}

func TestIngestTwiceChangesNothing(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	before := tm.mustRun("", "show", "--json", "c1")
	var report struct {
		ChatsCreated    int `json:"chats_created"`
		EntriesAppended int `json:"entries_appended"`
		EntriesSkipped  int `json:"entries_skipped"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun(twoChats, "ingest", "--json")), &report); err != nil {
		t.Fatal(err)
	}
	if report.ChatsCreated != 0 || report.EntriesAppended != 0 || report.EntriesSkipped != 4 {
		t.Errorf("second ingest report = %+v, want 0 created, 0 appended, 4 skipped", report)
	}
	if after := tm.mustRun("", "show", "--json", "c1"); after != before {
		t.Errorf("chat changed after the second ingest:\nbefore %s\nafter  %s", before, after)
	}
}

func TestIngestOfBadLineNamesLineAndFieldAndStoresNothing(t *testing.T) {
	tm := newTestMain(t)
	bad := strings.Replace(twoChats, `"kind":"assistant"`, `"kind":"robot"`, 1)
	_, _, err := tm.run(bad, "ingest")
	if err == nil {
		t.Fatal("ingest of a bad kind succeeded")
	}
	msg := describe(err)
	for _, want := range []string{"line 4", "kind", `"robot"`, "user, assistant, tool, system, event"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if out := tm.mustRun("", "list"); !strings.Contains(out, "No chats.") {
		t.Errorf("a rejected ingest stored something:\n%s", out)
	}
}

func TestIngestFromFile(t *testing.T) {
	tm := newTestMain(t)
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(twoChats), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.mustRun("", "ingest", path)
	if out := tm.mustRun("", "list"); !strings.Contains(out, "Second chat") {
		t.Errorf("list after file ingest:\n%s", out)
	}
	if _, _, err := tm.run("", "ingest", filepath.Join(t.TempDir(), "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("ingest of a missing file: err = %v, want one naming the file", err)
	}
}

func TestBundledExampleIngests(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun("", "ingest", filepath.Join("..", "..", "examples", "first-chat.jsonl"))
	var list listJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total == 0 {
		t.Fatal("the bundled example produced no chats")
	}
}

func TestShowUnknownChatIsNotFound(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	_, _, err := tm.run("", "show", "nope")
	if err == nil || describe(err) != `chat "nope" not found` {
		t.Errorf("err = %v, want chat \"nope\" not found", err)
	}
}

func TestListRefusesUnknownStatusWithAllowedSet(t *testing.T) {
	tm := newTestMain(t)
	_, _, err := tm.run("", "list", "--status", "complete")
	if err == nil || !strings.Contains(err.Error(), "running, awaiting_input, completed, failed, cancelled") {
		t.Errorf("err = %v, want the allowed statuses", err)
	}
}

// Go's zero time is refused as a bound like any other time outside the stored range, in the
// --from and --to flags and in the query language alike; it never reads as "no bound".
func TestZeroTimeBoundsAreRefused(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	for _, args := range [][]string{
		{"list", "--from", "0001-01-01T00:00:00Z"},
		{"list", "--to", "0001-01-01T00:00:00Z"},
		{"search", "deploy before:0001-01-01"},
		{"search", "--entries", "deploy after:0001-01-01T00:00:00Z"},
	} {
		out, _, err := tm.run("", args...)
		if err == nil || !strings.Contains(err.Error(), "outside the range annals stores") {
			t.Errorf("annals %s: %v (output %q), want the range refusal", strings.Join(args, " "), err, out)
		}
	}
}
