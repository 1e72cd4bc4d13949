package opencode_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestOpenCodeStorageMapsEveryPartKind(t *testing.T) {
	p := importertest.SrcParse(t, "opencode", "testdata/opencode/storage")
	if len(p.Chats) != 2 {
		t.Fatalf("got %d chats, want 2 (the session and its sub-agent session)", len(p.Chats))
	}
	main := importertest.SrcChat(t, p, "opencode:ses_main")
	for k, v := range map[string]string{"source": "opencode", "cwd": "/home/u/repo", "project": "proj1", "model": "claude-sonnet-4", "share_url": "https://opencode.ai/s/abc"} {
		if main.Attributes[k] != v {
			t.Errorf("main chat attribute %s: got %q, want %q", k, main.Attributes[k], v)
		}
	}
	if got := p.ChatTitles["opencode:ses_main"]; got != "Fix the flaky test" {
		t.Errorf("main chat title: got %q", got)
	}
	child := importertest.SrcChat(t, p, "opencode:ses_child")
	if child.Attributes["parent"] != "opencode:ses_main" {
		t.Errorf("sub-agent chat parent: got %q, want opencode:ses_main", child.Attributes["parent"])
	}

	es := p.Entries["opencode:ses_main"]
	importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 2, annals.KindTool: 4, annals.KindSystem: 3, annals.KindEvent: 2})

	if e := importertest.SrcEntry(t, es, "prt_001"); e.Kind != annals.KindUser || e.Text != "Why is TestFlakyPort failing on CI?" || e.SourceIDs[0] != "msg_001" {
		t.Errorf("user text part: %+v", e)
	}
	if e := importertest.SrcEntry(t, es, "prt_002"); e.Channel != "opencode/file" || strings.Contains(string(e.Metadata)+e.Text, "iVBOR") {
		t.Errorf("file part: want an event without the inline bytes, got %+v %s", e, e.Metadata)
	}
	r := importertest.SrcEntry(t, es, "prt_004")
	if r.Reasoning != "The port is probably reused between parallel tests." || r.Text != "" {
		t.Errorf("reasoning part: text %q reasoning %q", r.Text, r.Reasoning)
	}
	if importertest.SrcMeta(t, r)["encrypted_reasoning"] != true {
		t.Errorf("reasoning part: the dropped signature is not flagged: %s", r.Metadata)
	}
	importertest.SrcNoSecret(t, p, "secretsignatureblob")

	bash := importertest.SrcEntry(t, es, "prt_005")
	if bash.Tool == nil || bash.Tool.Name != "bash" || bash.Tool.CallID != "toolu_bash1" || bash.Tool.Outcome != annals.OutcomeFailed ||
		!strings.Contains(bash.Tool.Result, "address already in use") || !strings.Contains(string(bash.Tool.Arguments), "TestFlakyPort") {
		t.Errorf("completed tool with exit 1: want outcome failed with its output, got %+v", bash.Tool)
	}
	if read := importertest.SrcEntry(t, es, "prt_006"); read.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(read.Tool.Result, "File not found") {
		t.Errorf("errored tool: got %+v", read.Tool)
	}
	if task := importertest.SrcEntry(t, es, "prt_007"); task.Tool.Outcome != annals.OutcomeSucceeded || task.Tool.Result != "It is hard-coded in testutil/port.go" {
		t.Errorf("task tool: got %+v", task.Tool)
	}
	if pending := importertest.SrcEntry(t, es, "prt_010"); pending.Tool.Outcome != annals.OutcomeCancelled {
		t.Errorf("a call running when its turn was aborted: want cancelled, got %q", pending.Tool.Outcome)
	}
	if e := importertest.SrcEntry(t, es, "msg_003#error"); e.Kind != annals.KindSystem || !strings.Contains(e.Text, "aborted") {
		t.Errorf("message error: got %+v", e)
	}
	if e := importertest.SrcEntry(t, es, "prt_011"); e.Kind != annals.KindSystem || importertest.SrcMeta(t, e)["compaction"] != true {
		t.Errorf("compaction part: got %+v %s", e, e.Metadata)
	}
	if e := importertest.SrcEntry(t, es, "prt_012"); e.Kind != annals.KindSystem || importertest.SrcMeta(t, e)["compaction"] != true || !strings.Contains(e.Text, "listen on port 0") {
		t.Errorf("compaction summary: got %+v %s", e, e.Metadata)
	}
	agent := importertest.SrcEntry(t, es, "prt_013")
	if agent.Kind != annals.KindEvent || agent.Channel != "opencode/agent" || !strings.Contains(string(agent.Metadata), "@reviewer") {
		t.Errorf("unknown part type: want an event keeping the part, got %+v %s", agent, agent.Metadata)
	}
	if !strings.Contains(string(agent.Metadata), "futureField") {
		t.Errorf("an unknown message field is not kept in metadata: %s", agent.Metadata)
	}
	for _, e := range es {
		if e.ID == "prt_003" || e.ID == "prt_009" {
			t.Errorf("step markers are bookkeeping, not entries: %s", e.ID)
		}
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Message, "prt_014.json") {
		t.Errorf("the corrupt part file: want one warning naming it, got %+v", p.Warnings)
	}

	runs := importertest.SrcRuns(p)
	if run := runs["opencode:ses_main/msg_002"]; run == nil || run.Status != annals.StatusCompleted || run.InputTokens != 2400 || run.OutputTokens != 250 || run.CostUSD != 0.0123 || run.EndedAt == nil ||
		run.CacheReadTokens != 900 || run.CacheCreationTokens != 0 {
		t.Errorf("assistant turn run: got %+v", run)
	}
	if run := runs["opencode:ses_main/msg_003"]; run == nil || run.Status != annals.StatusCancelled {
		t.Errorf("aborted turn run: got %+v", run)
	}
	if es := p.Entries["opencode:ses_child"]; len(es) != 2 || es[1].Text != "It is hard-coded in testutil/port.go" {
		t.Errorf("sub-agent transcript: got %d entries", len(es))
	}
}

func TestOpenCodeExportDropsEncryptedReasoning(t *testing.T) {
	p := importertest.SrcParse(t, "opencode", "testdata/opencode/export.json")
	c := importertest.SrcChat(t, p, "opencode:ses_export")
	if c.Attributes["cwd"] != "/home/u/other" || c.Attributes["project"] != "" {
		t.Errorf("attributes: got %v (the global project is not a project)", c.Attributes)
	}
	es := p.Entries[c.ID]
	importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 2})
	if r := importertest.SrcEntry(t, es, "prt_e2"); r.Reasoning != "Reading it." || importertest.SrcMeta(t, r)["encrypted_reasoning"] != true {
		t.Errorf("reasoning: got %q %s", r.Reasoning, r.Metadata)
	}
	importertest.SrcNoSecret(t, p, "gAAAAABencrypted")
	if run := importertest.SrcRuns(p)["opencode:ses_export/msg_e2"]; run == nil || run.OutputTokens != 25 || run.Model != "gpt-5" {
		t.Errorf("run: got %+v", run)
	}
}

func TestOpenCodeDetect(t *testing.T) {
	f := importertest.SrcFormat(t, "opencode")
	if !f.Detect("testdata/opencode/storage", nil) {
		t.Error("the storage directory is not detected")
	}
	if !f.Detect("testdata/opencode", nil) {
		t.Error("the data directory holding storage/ is not detected")
	}
	head, err := os.ReadFile("testdata/opencode/export.json")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Detect("export.json", head) {
		t.Error("an export document is not detected")
	}
	if f.Detect("x.json", []byte(`{"messages":[]}`)) || f.Detect("testdata/copilot-cli", nil) {
		t.Error("a foreign file or directory is claimed")
	}
}

func TestOpenCodeReimportIsIdempotent(t *testing.T) {
	importertest.SrcIdempotent(t, "opencode", "testdata/opencode/storage")
	importertest.SrcIdempotent(t, "opencode", "testdata/opencode/export.json")
}

func TestOpenCodeCorpus(t *testing.T) {
	t.Run("storage_v2", func(t *testing.T) {
		p := importertest.SrcParse(t, "opencode", importertest.SrcCorpusPath(t, "opencode/jazzyalex__storage_v2"))
		if len(p.Chats) != 2 {
			t.Fatalf("got %d chats, want 2", len(p.Chats))
		}
		small := p.Entries["opencode:s_stage0_small"]
		importertest.SrcWantKinds(t, small, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindTool: 1, annals.KindAssistant: 1})
		large := p.Entries["opencode:s_stage0_large"]
		importertest.SrcWantKinds(t, large, map[annals.EntryKind]int{annals.KindUser: 2, annals.KindTool: 1, annals.KindAssistant: 3, annals.KindSystem: 2, annals.KindEvent: 2})
		importertest.SrcToolsLinked(t, small)
		importertest.SrcToolsLinked(t, large)
		if e := importertest.SrcEntry(t, large, "p_tool_large_1"); e.Tool.Outcome != annals.OutcomeFailed {
			t.Errorf("exit 1: want failed, got %q", e.Tool.Outcome)
		}
		if e := importertest.SrcEntry(t, large, "p_compaction_large_1"); importertest.SrcMeta(t, e)["compaction"] != true {
			t.Errorf("compaction part not marked: %s", e.Metadata)
		}
		importertest.SrcWantText(t, p, "Found 2 files.", "Command failed with exit code 1.", "Investigating failing command.", "a.txt\nb.txt", "Step 2")
		if p.ChatTitles["opencode:s_stage0_large"] != "OpenCode Large" {
			t.Errorf("titles: got %v", p.ChatTitles)
		}
		if run := importertest.SrcRuns(p)["opencode:s_stage0_large/m_assistant_large_1"]; run == nil || run.Status != annals.StatusCancelled || run.InputTokens != 120 {
			t.Errorf("aborted run: got %+v", run)
		}
	})
	t.Run("export", func(t *testing.T) {
		p := importertest.SrcParse(t, "opencode", importertest.SrcCorpusPath(t, "opencode/ggfincke__sample-export.json"))
		if len(p.Chats) != 1 {
			t.Fatalf("got %d chats, want 1", len(p.Chats))
		}
		es := p.Entries["opencode:ses_test123abc"]
		importertest.SrcWantKinds(t, es, map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindEvent: 1})
		importertest.SrcWantText(t, p, "Hello, help me with something", "I'll help you with that.")
		runs := importertest.SrcRuns(p)
		if len(runs) != 6 {
			t.Errorf("got %d runs, want one per assistant message (6)", len(runs))
		}
		if r := runs["opencode:ses_test123abc/msg_assistant001"]; r == nil || r.InputTokens != 1600 || r.OutputTokens != 250 || r.Model != "claude-opus-4-5" {
			t.Errorf("first run: got %+v", r)
		}
	})
}

// FuzzOpenCodePart feeds arbitrary bytes as one part file of a session: the parser must never
// panic, and whatever it emits must be valid (the collector validates every entry).
func FuzzOpenCodePart(f *testing.F) {
	for _, seed := range []string{
		`{"id":"p1","type":"text","text":"hi"}`,
		`{"id":"p2","type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{"a":1},"output":"x","metadata":{"exit":2}}}`,
		`{"id":"p3","type":"reasoning","text":"r","metadata":{"anthropic":{"signature":"s"}}}`,
		`{"id":"p4","type":"file","url":"data:xx","filename":"f"}`,
		`{"type":"compaction","auto":true}`, `[]`, `null`, `{"id":"\u0000","type":"\u0007"}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	root := filepath.Join(dir, "storage")
	for path, body := range map[string]string{
		"session/p/ses.json":   `{"id":"ses","title":"t","time":{"created":1}}`,
		"message/ses/msg.json": `{"id":"msg","sessionID":"ses","role":"assistant","time":{"created":2}}`,
	} {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	partDir := filepath.Join(root, "part", "msg")
	if err := os.MkdirAll(partDir, 0o755); err != nil {
		f.Fatal(err)
	}
	format := importertest.SrcFormat(f, "opencode")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(partDir, "prt.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := importer.Parse(context.Background(), format, root)
		if err != nil {
			t.Fatalf("a bad part must be a warning, not an error: %v", err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w.Message, "not imported") {
				t.Fatalf("the parser emitted an invalid entry: %s", w.Message)
			}
		}
	})
}

// TestOpenCodeIDsNeverLeadOutOfTheStorageRoot: ids in the storage files become directory names;
// one that is a path must be skipped, never followed.
func TestOpenCodeIDsNeverLeadOutOfTheStorageRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	outside := filepath.Join(filepath.Dir(root), "secret")
	for path, body := range map[string]string{
		filepath.Join(root, "session", "p", "ses_evil.json"):      `{"id":"../../secret","title":"evil"}`,
		filepath.Join(outside, "msg_x.json"):                      `{"id":"msg_x","role":"user","sessionID":"../../secret"}`,
		filepath.Join(root, "session", "p", "ses_plain.json"):     `{"id":"ses_plain","title":"plain"}`,
		filepath.Join(root, "message", "ses_plain", "msg_1.json"): `{"id":"msg_1","role":"user","sessionID":"ses_plain"}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := importertest.SrcParse(t, "opencode", root)
	for _, c := range p.Chats {
		if strings.Contains(c.ID, "secret") {
			t.Errorf("a session whose id is a path was imported: %s", c.ID)
		}
	}
	var warned bool
	for _, w := range p.Warnings {
		warned = warned || strings.Contains(w.Message, "not a plain name")
	}
	if !warned {
		t.Errorf("no warning about the path-like id: %+v", p.Warnings)
	}
}

// Part ids are unique per message only: two messages that each hold a part "prt_1" keep both
// parts (the second one's entry id gains its message id), and a re-import adds nothing.
func TestOpenCodeKeepsPartsThatShareAnIDAcrossMessages(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	for path, body := range map[string]string{
		"session/p/ses.json":     `{"id":"ses","title":"t","time":{"created":1}}`,
		"message/ses/msg_a.json": `{"id":"msg_a","sessionID":"ses","role":"user","time":{"created":1000}}`,
		"message/ses/msg_b.json": `{"id":"msg_b","sessionID":"ses","role":"assistant","time":{"created":2000}}`,
		"part/msg_a/prt_1.json":  `{"id":"prt_1","messageID":"msg_a","sessionID":"ses","type":"text","text":"the question"}`,
		"part/msg_b/prt_1.json":  `{"id":"prt_1","messageID":"msg_b","sessionID":"ses","type":"text","text":"the answer"}`,
	} {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := importer.Parse(context.Background(), importertest.SrcFormat(t, "opencode"), root)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, op := range p.Ops {
		if op.Append != nil {
			for _, e := range op.Append.Entries {
				if prev, dup := ids[e.ID]; dup {
					t.Errorf("entry id %q used by %q and %q", e.ID, prev, e.Text)
				}
				ids[e.ID] = e.Text
			}
		}
	}
	text := strings.Join(func() []string {
		var out []string
		for _, v := range ids {
			out = append(out, v)
		}
		return out
	}(), "|")
	if !strings.Contains(text, "the question") || !strings.Contains(text, "the answer") {
		t.Errorf("entries %v: want both parts", ids)
	}
	importertest.SrcIdempotent(t, "opencode", root)
}
