package copilot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestCopilotCLIMapsEventsToEntries(t *testing.T) {
	p := importertest.SrcParse(t, "copilot-cli", importertest.CopilotFixture)
	if len(p.Chats) != 1 {
		t.Fatalf("got %d chats, want 1", len(p.Chats))
	}
	c := p.Chats[0]
	if c.ID != "copilot-cli:0f1e2d3c-aaaa-4bbb-8ccc-123456789abc" {
		t.Errorf("chat id: got %q", c.ID)
	}
	for k, v := range map[string]string{"source": "copilot-cli", "cwd": "/home/u/repo", "repository": "github.com/acme/widgets", "git_branch": "fix/port", "model": "claude-sonnet-4.5"} {
		if c.Attributes[k] != v {
			t.Errorf("attribute %s: got %q, want %q", k, c.Attributes[k], v)
		}
	}
	es := p.Entries[c.ID]
	importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 4, annals.KindTool: 4, annals.KindSystem: 2, annals.KindEvent: 4})

	a := importertest.SrcEntry(t, es, "ev-04")
	if a.Text != "Let me read the logs and the config." || a.Reasoning != "The crash is probably in config parsing." || a.OutputTokens != 0 {
		t.Errorf("assistant message: got text %q reasoning %q tokens %d (usage inside a turn belongs to its run)", a.Text, a.Reasoning, a.OutputTokens)
	}
	if importertest.SrcMeta(t, a)["encrypted_reasoning"] != true {
		t.Errorf("dropped opaque reasoning not flagged: %s", a.Metadata)
	}
	importertest.SrcNoSecret(t, p, "c2lnbmVkLWJsb2I=", "gAAAAAB-opaque")

	read := importertest.SrcEntry(t, es, "ev-04#1")
	if read.Tool.Name != "view" || read.Tool.CallID != "call-read" || read.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(read.Tool.Result, "mapping values") {
		t.Errorf("view call: got %+v", read.Tool)
	}
	// Its execution_complete's time is when the result arrived: the call's duration.
	if got := importertest.SrcMeta(t, read)[annals.MetaResultTime]; got != "2026-04-01T09:00:03.5Z" {
		t.Errorf("view call's result time: got %v, want the execution_complete's 2026-04-01T09:00:03.5Z", got)
	}
	if !strings.Contains(string(read.Metadata), "goroutine 1") {
		t.Errorf("the detailed result is not kept: %s", read.Metadata)
	}
	task := importertest.SrcEntry(t, es, "ev-04#2")
	var args map[string]string
	if err := json.Unmarshal(task.Tool.Arguments, &args); err != nil || args["agent_type"] != "explore" {
		t.Errorf("string-encoded arguments are not decoded: %s", task.Tool.Arguments)
	}
	if task.Tool.Result != "Config is parsed in cmd/server/config.go:42." {
		t.Errorf("task result: got %q", task.Tool.Result)
	}
	sub := importertest.SrcEntry(t, es, "ev-07")
	if sub.Channel != "subagent" || sub.CorrelationID != "call-task" {
		t.Errorf("sub-agent message: want channel subagent correlated to call-task, got %q %q", sub.Channel, sub.CorrelationID)
	}
	if rm := importertest.SrcEntry(t, es, "ev-11#1"); rm.Tool.Outcome != annals.OutcomeBlocked || !strings.Contains(string(rm.Metadata), "m-2") {
		t.Errorf("rejected call: want blocked, carrying the fields of its text-less message, got %+v %s", rm.Tool, rm.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "ev-16"); e.Kind != annals.KindSystem || importertest.SrcMeta(t, e)["compaction"] != true {
		t.Errorf("compaction summary: got %+v %s", e, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "ev-15"); e.Kind != annals.KindEvent || e.Channel != "copilot-cli/future/telemetry" || !strings.Contains(string(e.Metadata), "weird") {
		t.Errorf("unknown event type: got %+v %s", e, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "ev-19#1"); e.Tool.Outcome != annals.OutcomeCancelled {
		t.Errorf("a call pending at the abort: want cancelled, got %q", e.Tool.Outcome)
	}
	// Transcript order is the file's order, even though calls were held for their results.
	var order []string
	for _, e := range es {
		order = append(order, e.ID)
	}
	want := "ev-02 ev-04 ev-04#1 ev-04#2 ev-06 ev-07 ev-09 ev-11#1 ev-13 ev-15 ev-16 ev-17 ev-19 ev-19#1 ev-20 ev-21"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Line != 9 {
		t.Errorf("the corrupt line: want one warning at line 9, got %+v", p.Warnings)
	}
	runs := importertest.SrcRuns(p)
	// 42 + 11 (the sub-agent's message) + 9 + 15 output tokens were spent in the first turn.
	if r := runs[c.ID+"/turn/int-1/0"]; r == nil || r.Status != annals.StatusCompleted || r.EndedAt == nil || r.OutputTokens != 77 {
		t.Errorf("first turn: got %+v", r)
	}
	if r := runs[c.ID+"/turn/int-2/0"]; r == nil || r.Status != annals.StatusCancelled {
		t.Errorf("aborted turn: got %+v", r)
	}
}

// TestCopilotCLIResumesFromACheckpoint proves the incremental path: a session fed the first
// lines, checkpointed at a settled line, and a new session resumed from its state over the rest
// produce the same transcript as one pass.
func TestCopilotCLIResumesFromACheckpoint(t *testing.T) {
	data, err := os.ReadFile(importertest.CopilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	lp := importertest.SrcFormat(t, "copilot-cli").(importer.LineParser)
	src := &importer.Source{Path: importertest.CopilotFixture}
	ctx := context.Background()

	whole := &importertest.SrcOut{}
	s, err := lp.NewSession(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if err := s.Line(ctx, i+1, l, whole); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(ctx, whole); err != nil {
		t.Fatal(err)
	}

	part := &importertest.SrcOut{}
	s1, err := lp.NewSession(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	for i, l := range lines[:14] {
		if err := s1.Line(ctx, i+1, l, part); err != nil {
			t.Fatal(err)
		}
		if s1.Settled() {
			cut = i + 1
		}
	}
	if cut == 0 {
		t.Fatal("the session never settled")
	}
	state, err := s1.State()
	if err != nil {
		t.Fatal(err)
	}
	// What was emitted after the checkpoint is provisional: the framework drops it and
	// re-parses from the checkpoint.
	part = &importertest.SrcOut{}
	replay := &importertest.SrcOut{}
	s0, _ := lp.NewSession(src, nil)
	for i, l := range lines[:cut] {
		if err := s0.Line(ctx, i+1, l, replay); err != nil {
			t.Fatal(err)
		}
	}
	part.Ops = append(part.Ops, replay.Ops...)
	s2, err := lp.NewSession(src, state)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines[cut:] {
		if err := s2.Line(ctx, cut+i+1, l, part); err != nil {
			t.Fatal(err)
		}
	}
	if err := s2.Finish(ctx, part); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(whole.Entries())
	b, _ := json.Marshal(part.Entries())
	if string(a) != string(b) {
		t.Fatalf("resumed parse differs from one pass:\n%s\n%s", a, b)
	}
	for _, op := range part.Ops {
		if op.Chat != nil && op.Chat.ID != "copilot-cli:0f1e2d3c-aaaa-4bbb-8ccc-123456789abc" {
			t.Fatalf("the resumed session created chat %q", op.Chat.ID)
		}
	}
}

func TestCopilotCLIWithoutStartLineUsesTheDirectoryName(t *testing.T) {
	p, err := importer.ParseBytes(context.Background(), importertest.SrcFormat(t, "copilot-cli").(importer.LineParser),
		"/home/u/.copilot/session-state/abc-123/events.jsonl",
		[]byte(`{"type":"user.message","data":{"content":"hi"},"id":"e1","timestamp":"2026-01-01T00:00:00Z"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Chats) != 1 || p.Chats[0].ID != "copilot-cli:abc-123" || len(p.Entries["copilot-cli:abc-123"]) != 1 {
		t.Fatalf("got chats %+v entries %v", p.Chats, p.Entries)
	}
}

func TestCopilotCLIReimportIsIdempotent(t *testing.T) {
	importertest.SrcIdempotent(t, "copilot-cli", importertest.CopilotFixture)
}

func TestCopilotCLICorpus(t *testing.T) {
	t.Run("v1.0.11", func(t *testing.T) {
		p := importertest.SrcParse(t, "copilot-cli", importertest.SrcCorpusPath(t, "copilot-cli/jazzyalex__events_v1.0.11.jsonl"))
		if len(p.Chats) != 1 {
			t.Fatalf("got %d chats", len(p.Chats))
		}
		es := p.Entries["copilot-cli:aaaabbbb-1111-2222-3333-ccccddddeeee"]
		importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindTool: 1, annals.KindAssistant: 1})
		importertest.SrcToolsLinked(t, es)
		if e := importertest.SrcEntry(t, es, "e4#1"); e.Tool.Result != "file1\nfile2\n" || e.Tool.Outcome != annals.OutcomeSucceeded {
			t.Errorf("tool: got %+v", e.Tool)
		}
		importertest.SrcWantText(t, p, "List the files", "The directory contains file1 and file2.")
		if c := p.Chats[0]; c.Attributes["repository"] != "github.com/example/repo" || c.Attributes["git_branch"] != "main" {
			t.Errorf("attributes: got %v", c.Attributes)
		}
	})
	t.Run("schema catalog", func(t *testing.T) {
		p := importertest.SrcParse(t, "copilot-cli", importertest.SrcCorpusPath(t, "copilot-cli/jazzyalex__copilot_small_schema_catalog.jsonl"))
		if len(p.Chats) != 1 || len(p.Warnings) != 0 {
			t.Fatalf("got %d chats, warnings %v", len(p.Chats), p.Warnings)
		}
		es := p.Entries["copilot-cli:copilot_stage0_small"]
		// Every line but session.start and the two turn markers is an entry, each tool
		// request is one, and the trimmed duplicate ids still each get their own entry.
		importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 6, annals.KindTool: 5, annals.KindSystem: 3, annals.KindEvent: 12})
		if e := importertest.SrcEntry(t, es, "e9#1"); e.Tool.Result != "a.txt\nb.txt\n" || e.Tool.Outcome != annals.OutcomeSucceeded {
			t.Errorf("shell call: got %+v", e.Tool)
		}
		importertest.SrcWantText(t, p, "List the files", "Listing the files.", "Done", "Example model error", "Folder /tmp/repo has been added to trusted folders.")
		importertest.SrcNoSecret(t, p, `"encryptedContent"`, `"reasoningOpaque"`)
	})
}

// FuzzCopilotCLILine runs the line parser over arbitrary input: it must never panic or fail,
// and everything it emits must be valid.
func FuzzCopilotCLILine(f *testing.F) {
	data, err := os.ReadFile(importertest.CopilotFixture)
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"tool.execution_complete","data":{"toolCallId":"x","success":"yes","result":[1]}}`))
	f.Add([]byte(`{"type":"assistant.message","data":{"toolRequests":[1,{"toolCallId":"a"},{"toolCallId":"a"}]}}`))
	lp := importertest.SrcFormat(f, "copilot-cli").(importer.LineParser)
	f.Fuzz(func(t *testing.T, line []byte) {
		in := append(append([]byte(`{"type":"session.start","data":{"sessionId":"s"},"id":"0"}`+"\n"), line...), '\n')
		in = append(in, line...)
		p, err := importer.ParseBytes(context.Background(), lp, "events.jsonl", in)
		if err != nil {
			t.Fatalf("a bad line must be a warning, not an error: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry or chat: %s", w.Message)
			}
		}
	})
}
