package importer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

func TestClaudeCodeMapsEveryConstruct(t *testing.T) {
	p := importertest.MustParse(t, "claude-code", importertest.Testdata("claude-code", "project", "sess-main.jsonl"))
	const main = "claude-code:sess-main"
	c := importertest.Chat(t, p, main)
	for k, want := range map[string]string{"source": "claude-code", "cwd": "/home/dev/zoo", "git_branch": "feature/zebra", "model": "claude-sonnet-4-5"} {
		if got := c.Attributes[k]; got != want {
			t.Errorf("attribute %s = %q, want %q", k, got, want)
		}
	}
	if got := importertest.Entry(t, p, main, "u1"); got.Kind != annals.KindUser || !strings.Contains(got.Text, "zebrafish test flake") {
		t.Errorf("u1 = %s %q, want the user's question", got.Kind, got.Text)
	}
	// A split reply: one message id over several lines, each line its own entry.
	if got := importertest.Entry(t, p, main, "a1"); got.Reasoning != "The test probably races on the aquarium clock." || got.Text != "" {
		t.Errorf("a1 reasoning %q text %q, want the thinking kept apart from text", got.Reasoning, got.Text)
	}
	if got := importertest.Entry(t, p, main, "a2"); got.Text != "Let me look at the aquarium test." || got.RunID != "claude-code:sess-main/msg_1" {
		t.Errorf("a2 = %q run %q", got.Text, got.RunID)
	}
	read := importertest.Entry(t, p, main, "a3")
	if read.Kind != annals.KindTool || read.Tool.Name != "Read" || read.Tool.CallID != "toolu_read" ||
		!strings.Contains(read.Tool.Result, "func TestZebrafish") || read.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("Read call = %+v, want its result linked by call id", read.Tool)
	}
	bash := importertest.Entry(t, p, main, "a4")
	if bash.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(bash.Tool.Result, "FAIL: TestZebrafish") {
		t.Errorf("Bash call = %+v, want the failed result", bash.Tool)
	}
	if !importertest.WarningsMention(p, 9) {
		t.Errorf("warnings %v, want the corrupt line 9 reported", p.Warnings)
	}
	a5 := importertest.Entry(t, p, main, "a5")
	if importertest.MetaOf(t, a5)["redacted_thinking"] != true || !strings.Contains(a5.Text, "helper agent") {
		t.Errorf("a5 = %q %s, want the text and a redacted_thinking mark", a5.Text, a5.Metadata)
	}
	if task := importertest.Entry(t, p, main, "a5#3"); task.Tool.Name != "Task" || !strings.Contains(task.Tool.Result, "clockwork.go") {
		t.Errorf("Task call = %+v, want the sub-agent's answer as its result", task.Tool)
	}
	if edit := importertest.Entry(t, p, main, "a6"); edit.Tool.Outcome != annals.OutcomeBlocked {
		t.Errorf("rejected Edit outcome = %q, want blocked", edit.Tool.Outcome)
	}
	for _, id := range []string{"cb1", "u6"} {
		e := importertest.Entry(t, p, main, id)
		if e.Kind != annals.KindSystem || importertest.MetaOf(t, e)["compaction"] != true {
			t.Errorf("%s = %s %s, want a system entry marked compaction", id, e.Kind, e.Metadata)
		}
	}
	if u7 := importertest.Entry(t, p, main, "u7"); !strings.Contains(string(u7.Metadata), "futureField") {
		t.Errorf("u7 metadata %s, want the unknown field kept", u7.Metadata)
	}
	var pr *annals.Entry
	for _, e := range p.Entries[main] {
		if e.Channel == "claude-code/pr-link" {
			pr = e
		}
		if e.Channel == "claude-code/progress" || e.Channel == "claude-code/file-history-snapshot" {
			t.Errorf("entry %s on %s: progress and file snapshots are dropped", e.ID, e.Channel)
		}
	}
	if pr == nil || !strings.Contains(string(pr.Metadata), "zoo/pull/7") {
		t.Errorf("pr-link line = %v, want an event holding the unknown line", pr)
	}
	// The inline side chain is a chat of its own, linked to the session.
	side := importertest.Chat(t, p, "claude-code:sess-main/sidechain-s1")
	if side.Attributes["parent"] != main {
		t.Errorf("side chain parent = %q, want %q", side.Attributes["parent"], main)
	}
	if got := len(p.Entries[side.ID]); got != 2 {
		t.Errorf("side chain has %d entries, want 2", got)
	}
	text := importertest.AllText(p)
	for _, secret := range []string{"SIGNED-BLOB", "ENCRYPTED-REASONING"} {
		if strings.Contains(text, secret) {
			t.Errorf("%s was rendered; signed and encrypted reasoning must be dropped", secret)
		}
	}
	if p.Titles["c-old-leaf"] != "Otters and their sleeping habits" {
		t.Errorf("titles by leaf = %v, want the summary line's title for c-old-leaf", p.Titles)
	}
	if p.ChatTitles[main] != "Zebrafish flake" {
		t.Errorf("chat titles = %v, want the custom title", p.ChatTitles)
	}
	// Usage: the last line of a split reply carries the final count; runs are upserts.
	var last *annals.Run
	for _, op := range p.Ops {
		if op.Run != nil && op.Run.ID == "claude-code:sess-main/msg_1" {
			last = op.Run
		}
	}
	if last == nil || last.OutputTokens != 60 || last.InputTokens != 150 || last.Model != "claude-sonnet-4-5" {
		t.Errorf("run of msg_1 = %+v, want 150 in (cache included), 60 out", last)
	}
}

func TestClaudeCodeSubAgentFileIsALinkedChat(t *testing.T) {
	p := importertest.MustParse(t, "claude-code", importertest.Testdata("claude-code", "project", "sess-main", "subagents", "agent-a1b2.jsonl"))
	c := importertest.Chat(t, p, "claude-code:sess-main/agent-a1b2")
	if c.Attributes["parent"] != "claude-code:sess-main" || c.Attributes["subagent"] != "a1b2" {
		t.Errorf("attributes = %v, want parent and subagent", c.Attributes)
	}
	if k := importertest.Kinds(p.Entries[c.ID]); k[annals.KindUser] != 1 || k[annals.KindAssistant] != 1 {
		t.Errorf("kinds = %v, want one user and one assistant entry", k)
	}
}

func TestCodexDeduplicatesEventsAndLinksCalls(t *testing.T) {
	p := importertest.MustParse(t, "codex", importertest.Testdata("codex", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"))
	const id = "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
	c := importertest.Chat(t, p, id)
	for k, want := range map[string]string{"cwd": "/home/dev/orchard", "git_branch": "main", "repository": "git@github.com:dev/orchard.git", "model": "gpt-5-codex"} {
		if got := c.Attributes[k]; got != want {
			t.Errorf("attribute %s = %q, want %q", k, got, want)
		}
	}
	es := p.Entries[id]
	count := func(pred func(*annals.Entry) bool) int {
		n := 0
		for _, e := range es {
			if pred(e) {
				n++
			}
		}
		return n
	}
	if n := count(func(e *annals.Entry) bool { return strings.Contains(e.Text, "Count the apple trees") }); n != 1 {
		t.Errorf("the prompt appears %d times, want once (event_msg and response_item are one message)", n)
	}
	if n := count(func(e *annals.Entry) bool { return strings.Contains(e.Text, "single apple tree") }); n != 1 {
		t.Errorf("the answer appears %d times, want once", n)
	}
	if n := count(func(e *annals.Entry) bool { return strings.Contains(e.Reasoning, "grep the csv") }); n != 1 {
		t.Errorf("the reasoning summary appears %d times, want once", n)
	}
	if n := count(func(e *annals.Entry) bool {
		return e.Kind == annals.KindSystem && strings.Contains(e.Text, "environment_context")
	}); n != 1 {
		t.Errorf("%d environment context entries, want 1 system entry", n)
	}
	var shell, patch *annals.Entry
	for _, e := range es {
		if e.Tool != nil && e.Tool.CallID == "call_grep" {
			shell = e
		}
		if e.Tool != nil && e.Tool.CallID == "call_patch" {
			patch = e
		}
	}
	if shell == nil || shell.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(shell.Tool.Result, "No such file") || !strings.Contains(string(shell.Tool.Arguments), `"grep"`) {
		t.Errorf("shell call = %+v, want arguments, result and a failed outcome", shell)
	}
	if patch == nil || patch.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(string(patch.Tool.Arguments), "Add File") {
		t.Errorf("patch call = %+v, want the patch text as arguments", patch)
	}
	if n := count(func(e *annals.Entry) bool {
		return e.Kind == annals.KindSystem && strings.Contains(string(e.Metadata), `"compaction":true`)
	}); n != 1 {
		t.Errorf("%d compaction entries, want 1", n)
	}
	if n := count(func(e *annals.Entry) bool { return e.Channel == "codex/future_record_kind" }); n != 1 {
		t.Errorf("%d events for the unknown line type, want 1", n)
	}
	if !importertest.WarningsMention(p, 17) {
		t.Errorf("warnings %v, want line 17 reported", p.Warnings)
	}
	if strings.Contains(importertest.AllText(p), "ENCRYPTED-MUST-NOT-RENDER") {
		t.Error("encrypted reasoning was rendered")
	}
	var turn *annals.Run
	for _, op := range p.Ops {
		if op.Run != nil {
			turn = op.Run
		}
	}
	if turn == nil || turn.Status != annals.StatusCompleted || turn.InputTokens != 900 || turn.OutputTokens != 80 || turn.Model != "gpt-5-codex" {
		t.Errorf("last run record = %+v, want the completed turn with its tokens", turn)
	}
}

func TestGeminiFoldsUpdatesAndRewinds(t *testing.T) {
	p := importertest.MustParse(t, "gemini-cli", importertest.Testdata("gemini", "session-2025-07-01T10-00-rewind.jsonl"))
	const id = "gemini-cli:gem-rewind-1"
	c := importertest.Chat(t, p, id)
	if c.Title != "Lighthouse keepers and astronomers" || c.Attributes["model"] != "gemini-2.5-pro" {
		t.Errorf("chat = %q %v", c.Title, c.Attributes)
	}
	var ids []string
	for _, e := range p.Entries[id] {
		ids = append(ids, e.ID)
	}
	if got, want := strings.Join(ids, " "), "g1 g2 g2#1 g3 g6 g7 g8"; got != want {
		t.Errorf("transcript %q, want %q (g4 and g5 rewound)", got, want)
	}
	search := importertest.Entry(t, p, id, "g2#1")
	if search.Tool.Result != "Grace Darling; Abbie Burgess; Ida Lewis" || search.Tool.Outcome != annals.OutcomeSucceeded {
		t.Errorf("search call = %+v, want the last version of the record with its result", search.Tool)
	}
	if g2 := importertest.Entry(t, p, id, "g2"); !strings.Contains(g2.Reasoning, "Grace Darling") {
		t.Errorf("g2 reasoning %q, want the thoughts", g2.Reasoning)
	}
	if !importertest.WarningsMention(p, 10) {
		t.Errorf("warnings %v, want the broken line 10", p.Warnings)
	}
}

func TestGeminiLegacyDocument(t *testing.T) {
	p := importertest.MustParse(t, "gemini-cli", importertest.Testdata("gemini", "session-2025-07-02T09-00-legacy.json"))
	const id = "gemini-cli:gem-legacy-1"
	if rf := importertest.Entry(t, p, id, "l2#1"); rf.Tool.Outcome != annals.OutcomeFailed || !strings.Contains(rf.Tool.Result, "no such file") {
		t.Errorf("read_file = %+v, want the failed result", rf.Tool)
	}
	if e := importertest.Entry(t, p, id, "l3"); e.Kind != annals.KindSystem {
		t.Errorf("error record kind %s, want system", e.Kind)
	}
	if e := importertest.Entry(t, p, id, "l4"); e.Kind != annals.KindEvent || e.Channel != "gemini-cli/telemetry_blip" {
		t.Errorf("unknown record = %s %s, want an event", e.Kind, e.Channel)
	}
}

func TestAiderSplitsSessionsAndBlocks(t *testing.T) {
	p := importertest.MustParse(t, "aider", importertest.Testdata("aider", ".aider.chat.history.md"))
	if len(p.Chats) != 2 {
		t.Fatalf("%d chats, want one per session header", len(p.Chats))
	}
	first := p.Chats[0]
	if first.Attributes["model"] != "gpt-4o" || first.CreatedAt.Format("2006-01-02 15:04:05") != "2025-03-10 14:00:00" {
		t.Errorf("first chat = %v %s", first.Attributes, first.CreatedAt)
	}
	es := p.Entries[first.ID]
	k := importertest.Kinds(es)
	if k[annals.KindUser] != 2 || k[annals.KindAssistant] != 1 || k[annals.KindSystem] != 3 {
		t.Errorf("kinds %v, want 2 user, 1 assistant, 3 aider output blocks", k)
	}
	var reply *annals.Entry
	for _, e := range es {
		if e.Kind == annals.KindAssistant {
			reply = e
		}
	}
	if reply == nil || !strings.Contains(reply.Text, ">>>>>>> REPLACE") || !strings.Contains(reply.Text, "plant.moisture") {
		t.Errorf("reply = %v, want the whole edit block kept in the reply", reply)
	}
	var run *annals.Run
	for _, op := range p.Ops {
		if op.Run != nil {
			run = op.Run
		}
	}
	if run == nil || run.InputTokens != 2100 || run.OutputTokens != 150 || run.CostUSD != 0.0065 {
		t.Errorf("run = %+v, want the token report", run)
	}
}

func TestChatGPTFollowsCurrentNodeAndKeepsBranches(t *testing.T) {
	p := importertest.MustParse(t, "chatgpt", importertest.Testdata("chatgpt", "conversations.json"))
	main := importertest.Chat(t, p, "chatgpt:cg-conv-1")
	if main.Title != "Sourdough starter help" || main.Attributes["model"] != "gpt-4o" {
		t.Errorf("chat = %q %v", main.Title, main.Attributes)
	}
	var ids []string
	for _, e := range p.Entries[main.ID] {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, " "); got != "n2 n3 n5" {
		t.Errorf("main path %q, want n2 n3 n5 (the hidden empty system message skipped, the tool output on its call)", got)
	}
	if call := importertest.Entry(t, p, main.ID, "n3"); call.Tool == nil || call.Tool.Name != "python" || call.Tool.Result != "100" {
		t.Errorf("python call = %+v, want its execution output", call.Tool)
	}
	branch := importertest.Chat(t, p, "chatgpt:cg-conv-1/branch-n3b")
	if branch.Attributes["parent"] != main.ID || branch.Attributes["branch_from"] != "n2" {
		t.Errorf("branch attributes %v", branch.Attributes)
	}
	if es := p.Entries[branch.ID]; len(es) != 1 || !strings.Contains(es[0].Text, "rye flour") {
		t.Errorf("branch entries %v, want the abandoned answer", es)
	}
	tides := p.Entries["chatgpt:cg-conv-2"]
	if len(tides) != 3 || !strings.Contains(tides[1].Reasoning, "inertia") || importertest.MetaOf(t, tides[0])["attachments"] != float64(1) {
		t.Errorf("tides transcript %v, want the image counted and the thoughts as reasoning", tides)
	}
}

func TestMessageArraysLinkToolResults(t *testing.T) {
	p := importertest.MustParse(t, "messages", importertest.Testdata("messages", "openai-chat.json"))
	es := p.Entries[p.Chats[0].ID]
	if k := importertest.Kinds(es); k[annals.KindSystem] != 1 || k[annals.KindUser] != 1 || k[annals.KindTool] != 1 || k[annals.KindAssistant] != 1 {
		t.Errorf("kinds %v", k)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "get_weather" || !strings.Contains(e.Tool.Result, "sleet") || string(e.Tool.Arguments) != `{"city":"Reykjavik"}`) {
			t.Errorf("tool = %+v", e.Tool)
		}
	}

	p = importertest.MustParse(t, "messages", importertest.Testdata("messages", "anthropic-request.json"))
	c := p.Chats[0]
	if c.Attributes["model"] != "claude-sonnet-4-5" {
		t.Errorf("model %q", c.Attributes["model"])
	}
	var tool *annals.Entry
	for _, e := range p.Entries[c.ID] {
		if e.Tool != nil {
			tool = e
		}
	}
	if tool == nil || tool.Tool.Outcome != annals.OutcomeFailed || tool.Tool.Result != "database offline" {
		t.Errorf("tool = %+v, want the failed tool_result on its tool_use", tool)
	}
	if text := importertest.AllText(p); strings.Contains(text, "SIG-MUST-NOT-RENDER") || !strings.Contains(text, "roughly 30 active") {
		t.Error("want the thinking kept as reasoning and its signature dropped")
	}

	p = importertest.MustParse(t, "messages", importertest.Testdata("messages", "log.jsonl"))
	if len(p.Chats) != 1 || len(p.Entries[p.Chats[0].ID]) != 4 || !importertest.WarningsMention(p, 3) {
		t.Errorf("log.jsonl: %d chats, entries %v, warnings %v", len(p.Chats), p.Entries, p.Warnings)
	}
}

func TestDetectPicksTheRightFormat(t *testing.T) {
	im := importertest.NewImporter(openDB(t), importerOptions())
	cands, unknown, err := im.Resolve([]string{"testdata"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cands {
		got[c.Path[strings.Index(c.Path, "testdata"):]] = c.Format.Name()
	}
	want := map[string]string{
		"testdata/claude-code/project/sess-main.jsonl":                                          "claude-code",
		"testdata/claude-code/project/sess-old.jsonl":                                           "claude-code",
		"testdata/claude-code/project/sess-main/subagents/agent-a1b2.jsonl":                     "claude-code",
		"testdata/codex/rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl": "codex",
		"testdata/gemini/session-2025-07-01T10-00-rewind.jsonl":                                 "gemini-cli",
		"testdata/gemini/session-2025-07-02T09-00-legacy.json":                                  "gemini-cli",
		"testdata/aider/.aider.chat.history.md":                                                 "aider",
		"testdata/chatgpt/conversations.json":                                                   "chatgpt",
		"testdata/messages/openai-chat.json":                                                    "messages",
		"testdata/messages/anthropic-request.json":                                              "messages",
		"testdata/messages/log.jsonl":                                                           "messages",
	}
	for path, f := range want {
		if got[path] != f {
			t.Errorf("%s detected as %q, want %q", path, got[path], f)
		}
	}
	_ = unknown
}

// A Claude Code message whose content list holds a plain string next to blocks is read whole:
// the string is a text block, and nothing of the line is dropped.
func TestClaudeCodeContentListWithAPlainString(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	lines := `{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2025-07-01T10:00:00Z","message":{"role":"user","content":["a plain string part",{"type":"text","text":"and a block part"}]}}
{"type":"assistant","sessionId":"s1","uuid":"a1","parentUuid":"u1","timestamp":"2025-07-01T10:00:05Z","message":{"id":"msg_1","role":"assistant","model":"m","content":["plain answer",{"type":"text","text":"block answer"}]}}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	p := importertest.MustParse(t, "claude-code", path)
	text := importertest.AllText(p)
	for _, want := range []string{"a plain string part", "and a block part", "plain answer", "block answer"} {
		if !strings.Contains(text, want) {
			t.Errorf("imported text lacks %q: %q", want, text)
		}
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
}

// Codex writes each message twice (a model item and a UI event). The two copies of one message
// collapse into one entry, and a text that repeats across turns ("continue" → "Done.") or within
// one (four "Ok" replies) is a new message each time, never a duplicate: 8 messages, 8 entries.
func TestCodexKeepsRepeatedMessages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".codex", "sessions", "2026", "01", "02")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rollout-2026-01-02T03-04-05-22222222-2222-4222-8222-222222222222.jsonl")
	var b strings.Builder
	b.WriteString(`{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"22222222-2222-4222-8222-222222222222","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.50.0","source":"cli"}}` + "\n")
	sec := 6
	line := func(typ, payload string) {
		fmt.Fprintf(&b, `{"timestamp":"2026-01-02T03:04:%02d.000Z","type":"%s","payload":%s}`+"\n", sec, typ, payload)
		sec++
	}
	message := func(role, text string) {
		event := "user_message"
		if role == "assistant" {
			event = "agent_message"
		}
		part := "input_text"
		if role == "assistant" {
			part = "output_text"
		}
		line("event_msg", fmt.Sprintf(`{"type":%q,"message":%q}`, event, text))
		line("response_item", fmt.Sprintf(`{"type":"message","role":%q,"content":[{"type":%q,"text":%q}]}`, role, part, text))
	}
	for range 2 {
		line("turn_context", `{"cwd":"/w","model":"gpt-5"}`)
		message("user", "continue")
		message("assistant", "Done.")
	}
	line("turn_context", `{"cwd":"/w","model":"gpt-5"}`)
	for range 4 {
		message("assistant", "Ok")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	p := importertest.MustParse(t, "codex", path)
	var texts []string
	for _, op := range p.Ops {
		if op.Append == nil {
			continue
		}
		for _, e := range op.Append.Entries {
			if e.Kind == annals.KindUser || e.Kind == annals.KindAssistant && e.Text != "" {
				texts = append(texts, e.Text)
			}
		}
	}
	if got, want := strings.Join(texts, "|"), "continue|Done.|continue|Done.|Ok|Ok|Ok|Ok"; got != want {
		t.Errorf("messages = %s, want %s", got, want)
	}
}
