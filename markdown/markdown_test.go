package markdown_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/markdown"
)

var t0 = time.Date(2026, 3, 14, 10, 2, 11, 0, time.UTC)

func ptrTime(t time.Time) *time.Time { return &t }

// fullChat returns a chat with every metadata field set, its runs, and entries of every kind
// with content chosen to confuse a delimiter-based parser.
func fullChat() (*annals.Chat, []*annals.Run, []*annals.Entry) {
	chat := &annals.Chat{
		ID:               "chat-1",
		TenantID:         "acme",
		UserID:           "ana",
		AgentID:          "coder",
		Attributes:       annals.Attributes{"source": "claude-code", "repository": "github.com/o/r", "odd": "a`b|c --> d"},
		CreatedAt:        t0,
		LastActivity:     t0.Add(9 * time.Minute),
		Status:           annals.StatusCompleted,
		Title:            "Fix the *flaky* test <now> # 1\nsecond line",
		Description:      "- starts like a list item\n\nand continues.",
		Tags:             []string{"ci", "flaky", "with`tick"},
		Pinned:           true,
		ArchivedAt:       ptrTime(t0.Add(time.Hour)),
		Summary:          "The user asked about **TestFoo**.\n\n```go\nfunc TestFoo(t *testing.T) {}\n```\n",
		SummaryUpdatedAt: ptrTime(t0.Add(2 * time.Hour)),
		Totals:           annals.Totals{Runs: 2, Entries: 11, InputTokens: 12345, OutputTokens: 678, CostUSD: 0.0123},
	}
	runs := []*annals.Run{
		{ID: "r1", ChatID: "chat-1", Status: annals.StatusCompleted, Model: "claude-sonnet-4", StartedAt: t0, EndedAt: ptrTime(t0.Add(time.Minute)), InputTokens: 1000, OutputTokens: 200, CostUSD: 0.01},
		{ID: "r|2", ChatID: "chat-1", Status: annals.StatusFailed, StartedAt: t0.Add(2 * time.Minute)},
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	entries := []*annals.Entry{
		{ChatID: "chat-1", ID: "e1", Seq: 1, Kind: annals.KindUser, Time: at(0), SourceIDs: []string{"msg-1", "msg-1b"},
			Text: "Why does `TestFoo` fail? Ünïcödé ✓ 日本語 🚀"},
		{ChatID: "chat-1", ID: "e2", Seq: 2, Kind: annals.KindAssistant, RunID: "r1", Time: at(4).Add(123456789 * time.Nanosecond),
			Reasoning:   "Let me think.\n```\nnot closed on purpose",
			Text:        "Run this:\n\n```bash\ngo test ./...\n```\n\nand a ```` longer run.",
			InputTokens: 1200, OutputTokens: 310, Metadata: json.RawMessage(`{"model": "x", "nested": {"a": [1, 2]}, "html": "<b>&</b> -->"}`)},
		{ChatID: "chat-1", ID: "e3", Seq: 3, Kind: annals.KindTool, RunID: "r1", Time: at(5),
			Tool: &annals.ToolCall{Name: "Bash", CallID: "toolu_1", Arguments: json.RawMessage(`{"command":"go test ./...","timeout":120,"env":{"A":"<x>"}}`),
				Result: "--- FAIL: TestFoo (0.00s)\n    foo_test.go:12: ``` boom\nFAIL\n", Outcome: annals.OutcomeFailed}},
		{ChatID: "chat-1", ID: "e4", Seq: 4, Kind: annals.KindTool, Time: at(6),
			Tool: &annals.ToolCall{Name: "Read", Arguments: json.RawMessage(`{"path": "a.go"}`), Result: "package a", Outcome: annals.OutcomeSucceeded}},
		{ChatID: "chat-1", ID: "e5", Seq: 5, Kind: annals.KindTool, Time: at(7),
			Tool: &annals.ToolCall{Name: "Write", Arguments: json.RawMessage(`[1, 2]`), Outcome: annals.OutcomeBlocked}},
		{ChatID: "chat-1", ID: "e6", Seq: 6, Kind: annals.KindTool, Time: at(8),
			Tool: &annals.ToolCall{Name: "Sleep", Outcome: annals.OutcomeCancelled, Result: `{"ok":false}`}},
		{ChatID: "chat-1", ID: "e7", Seq: 7, Kind: annals.KindSystem, Channel: "compaction", Time: at(9),
			Text: "<!-- annals:entry {}-->\n### 99 · User · forged\n-->"},
		{ChatID: "chat-1", ID: "e8", Seq: 8, Kind: annals.KindEvent, Channel: "in/agent/main/x", CorrelationID: "corr-42", Time: at(10).In(time.FixedZone("", 2*3600)),
			Text: "<!-- annals:end {\"entries\":0} -->\n"},
		{ChatID: "chat-1", ID: "e9", Seq: 9, Kind: annals.KindUser, Time: at(11)},
		{ChatID: "chat-1", ID: "e10", Seq: 10, Kind: annals.KindAssistant, Time: at(12), Text: "\n\n  trailing spaces and CRLF\r\nline \r\n\n"},
		{ChatID: "other-chat", ID: "e11", Seq: 11, Kind: annals.KindEvent, Time: time.Time{}, Channel: "a--b", Text: "````\nunclosed fence"},
	}
	return chat, runs, entries
}

func render(t testing.TB, chat *annals.Chat, runs []*annals.Run, entries []*annals.Entry) string {
	t.Helper()
	var buf bytes.Buffer
	if err := markdown.Render(&buf, chat, runs, entries); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

func TestRenderParseRoundTripsEveryEntryKind(t *testing.T) {
	chat, runs, entries := fullChat()
	doc := render(t, chat, runs, entries)
	got, err := markdown.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	if g, w := mustJSON(t, got.Chat), mustJSON(t, chat); g != w {
		t.Errorf("chat:\n got %s\nwant %s", g, w)
	}
	if !got.Chat.CreatedAt.Equal(chat.CreatedAt) || !got.Chat.LastActivity.Equal(chat.LastActivity) ||
		!got.Chat.ArchivedAt.Equal(*chat.ArchivedAt) || !got.Chat.SummaryUpdatedAt.Equal(*chat.SummaryUpdatedAt) {
		t.Errorf("chat times differ: got %+v", got.Chat)
	}
	if len(got.Entries) != len(entries) {
		t.Fatalf("got %d entries, want %d", len(got.Entries), len(entries))
	}
	for i, want := range entries {
		g := got.Entries[i]
		if gj, wj := mustJSON(t, g), mustJSON(t, want); gj != wj {
			t.Errorf("entry %d:\n got %s\nwant %s", i+1, gj, wj)
		}
		if !g.Time.Equal(want.Time) {
			t.Errorf("entry %d time = %v, want %v", i+1, g.Time, want.Time)
		}
		// JSON compacts raw messages; the export must keep their bytes exactly.
		if !bytes.Equal(g.Metadata, want.Metadata) {
			t.Errorf("entry %d metadata = %s, want %s", i+1, g.Metadata, want.Metadata)
		}
		if want.Tool != nil && !bytes.Equal(g.Tool.Arguments, want.Tool.Arguments) {
			t.Errorf("entry %d arguments = %s, want %s", i+1, g.Tool.Arguments, want.Tool.Arguments)
		}
	}
	// Rendering what was parsed gives the same document: nothing drifts on a second trip.
	if again := render(t, &got.Chat, runs, got.Entries); again != doc {
		t.Errorf("second render differs from the first")
	}
}

func TestRenderShowsReadableHeadingsToolNamesAndOutcomes(t *testing.T) {
	chat, runs, entries := fullChat()
	doc := render(t, chat, runs, entries)
	for _, want := range []string{
		"# Fix the \\*flaky\\* test \\<now\\> \\# 1 second line\n",
		"- **Chat:** `chat-1` · **Tenant:** `acme` · **User:** `ana` · **Agent:** `coder`\n",
		"- **Created:** 2026-03-14T10:02:11Z · **Last activity:** 2026-03-14T10:11:11Z · **Status:** completed\n",
		"- **Pinned:** yes · **Archived:** 2026-03-14T11:02:11Z\n",
		"- **Tags:** `ci`, `flaky`, ``with`tick``\n",
		"- **Attributes:** `odd` = ``a`b|c --> d``, `repository` = `github.com/o/r`, `source` = `claude-code`\n",
		"- **Totals:** 11 entries · 2 runs · 12,345 input / 678 output tokens · $0.0123\n",
		"## Summary\n*Updated 2026-03-14T12:02:11Z*\n\nThe user asked about **TestFoo**.\n",
		"## Runs\n",
		"| r1 | completed | claude-sonnet-4 | 2026-03-14T10:02:11Z | 2026-03-14T10:03:11Z | 1,000 in / 200 out | $0.0100 |\n",
		"| r\\|2 | failed |",
		"## Transcript\n",
		"### 1 · User · 2026-03-14 10:02:11 UTC\n*source `msg-1`, `msg-1b`*\n\nWhy does `TestFoo` fail? Ünïcödé ✓ 日本語 🚀\n\n",
		"### 2 · Assistant · 2026-03-14 10:02:15 UTC\n*run `r1` (claude-sonnet-4) · 1,200 in / 310 out tokens*\n\n**Reasoning**\n````text\nLet me think.\n```\nnot closed on purpose\n````\n",
		"Run this:\n\n```bash\ngo test ./...\n```\n\nand a ```` longer run.\n\n",
		"### 3 · Tool `Bash` · ✗ failed · 2026-03-14 10:02:16 UTC\n*run `r1` (claude-sonnet-4) · call `toolu_1`*\n",
		"**Arguments**\n```json\n{\n  \"command\": \"go test ./...\",\n  \"timeout\": 120,\n  \"env\": {\n    \"A\": \"<x>\"\n  }\n}\n```\n",
		"**Result**\n````text\n--- FAIL: TestFoo (0.00s)\n    foo_test.go:12: ``` boom\nFAIL\n````\n",
		"### 4 · Tool `Read` · ✓ succeeded",
		"**Arguments**\n```json\n{\"path\": \"a.go\"}\n```\n",
		"### 5 · Tool `Write` · ⊘ blocked",
		"**Arguments**\n```json\n[1, 2]\n```\n",
		"### 6 · Tool `Sleep` · ⊗ cancelled",
		"**Result**\n```json\n{\"ok\":false}\n```\n",
		"### 7 · System `compaction` · 2026-03-14 10:02:20 UTC\n\n```markdown\n<!-- annals:entry {}-->\n",
		"### 8 · Event `in/agent/main/x` · 2026-03-14 10:02:21 UTC\n*correlation `corr-42`*\n",
		"### 9 · User · 2026-03-14 10:02:22 UTC\n\n<!-- annals:entry",
		"### 11 · Event `a--b`\n\n`````markdown\n````\nunclosed fence\n`````\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("document:\n%s", doc)
	}
}

func TestRenderSimpleChatMatchesExpectedText(t *testing.T) {
	chat := &annals.Chat{
		ID: "c1", TenantID: "t1", CreatedAt: t0, LastActivity: t0.Add(time.Minute),
		Title:  "Hello",
		Totals: annals.Totals{Entries: 2, InputTokens: 10, OutputTokens: 5},
	}
	entries := []*annals.Entry{
		{ChatID: "c1", ID: "u1", Seq: 1, Kind: annals.KindUser, Time: t0, Text: "Hi there"},
		{ChatID: "c1", ID: "a1", Seq: 2, Kind: annals.KindAssistant, Time: t0.Add(time.Minute), Text: "Hello!", OutputTokens: 5},
	}
	want := `<!-- annals:chat {"v":1,"id":"c1","tenant_id":"t1","created_at":"2026-03-14T10:02:11Z","last_activity":"2026-03-14T10:03:11Z","title":"Hello","totals":{"runs":0,"entries":2,"input_tokens":10,"output_tokens":5,"cost_usd":0}} -->
# Hello

- **Chat:** ` + "`c1`" + ` · **Tenant:** ` + "`t1`" + `
- **Created:** 2026-03-14T10:02:11Z · **Last activity:** 2026-03-14T10:03:11Z
- **Totals:** 2 entries · 0 runs · 10 input / 5 output tokens · $0.00

## Transcript

<!-- annals:entry {"id":"u1","seq":1,"kind":"user","time":"2026-03-14T10:02:11Z","text_bytes":8} -->
### 1 · User · 2026-03-14 10:02:11 UTC

Hi there

<!-- annals:entry {"id":"a1","seq":2,"kind":"assistant","time":"2026-03-14T10:03:11Z","output_tokens":5,"text_bytes":6} -->
### 2 · Assistant · 2026-03-14 10:03:11 UTC
*0 in / 5 out tokens*

Hello!

<!-- annals:end {"entries":2} -->
`
	if got := render(t, chat, nil, entries); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestCommentJSONCannotEndItsComment puts comment terminators in every field carried by the
// JSON comments and checks that each marker line holds exactly one comment.
func TestCommentJSONCannotEndItsComment(t *testing.T) {
	nasty := "x --> y -- z --!> <!-- w --- <\u2028>"
	chat := &annals.Chat{
		ID: nasty, TenantID: nasty, UserID: nasty, AgentID: nasty, Title: nasty, Tags: []string{nasty},
		Attributes: annals.Attributes{nasty: nasty}, Status: annals.RunStatus(nasty),
		Totals: annals.Totals{InputTokens: -5, CostUSD: -1e-7},
	}
	entries := []*annals.Entry{{
		ChatID: nasty, ID: nasty, Seq: -1, Kind: annals.EntryKind(nasty), RunID: nasty, SourceIDs: []string{nasty},
		Channel: nasty, CorrelationID: nasty, InputTokens: -2,
		Metadata: json.RawMessage(`{"k":"` + nasty + `"}`),
		Tool:     &annals.ToolCall{Name: nasty, CallID: nasty, Outcome: annals.Outcome(nasty)},
	}}
	doc := render(t, chat, nil, entries)
	markers := 0
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "<!-- annals:") {
			continue
		}
		markers++
		inner := strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->")
		if len(inner) != len(line)-len("<!---->") || strings.Contains(inner, "--") || strings.ContainsAny(inner, "<>") {
			t.Errorf("marker line can end early or nest: %s", line)
		}
	}
	if markers != 3 {
		t.Errorf("found %d marker lines, want 3 (chat, entry, end)", markers)
	}
	got, err := markdown.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if g, w := mustJSON(t, got.Entries[0]), mustJSON(t, entries[0]); g != w {
		t.Errorf("entry:\n got %s\nwant %s", g, w)
	}
	if g, w := mustJSON(t, got.Chat), mustJSON(t, chat); g != w {
		t.Errorf("chat:\n got %s\nwant %s", g, w)
	}
}

// TestRenderWritesMessagesRawUnlessTheyCouldLeak checks which messages are written as Markdown
// and which are fenced because, raw, they could change how the rest of the document renders.
func TestRenderWritesMessagesRawUnlessTheyCouldLeak(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		raw  bool
	}{
		{"plain", "hello **world**", true},
		{"closed fence", "see:\n```go\nx := 1\n```\ndone", true},
		{"closed tilde fence with backticks in info", "~~~ a`b\ncode\n~~~", true},
		{"longer closing fence", "```\ncode\n``````", true},
		{"html inside a closed fence", "```html\n<script>\n<!-- x\n```", true},
		{"list item with an indented fence", "1. run:\n   ```bash\n   ls\n   ```\n2. done", true},
		{"inline triple backticks", "use ```x``` inline", true},
		{"indented code that looks like a fence", "    ```\n    code", true},
		{"div block without fences", "<div>\nhi\n</div>", true},
		{"fence in a block quote", "> ```\n> code", true},
		{"crlf closed fence", "```\r\ncode\r\n```\r\n", true},
		{"unclosed fence", "```\ncode", false},
		{"unclosed tilde fence", "~~~\ncode", false},
		{"closing fence too short", "````\ncode\n```", false},
		{"closing fence with trailing text", "```\ncode\n``` x", false},
		{"cr only line endings", "```\rcode", false},
		{"html comment", "<!-- hidden", false},
		{"forged entry marker", "<!-- annals:entry {}-->", false},
		{"script", "<script>alert(1)", false},
		{"pre uppercase", "<PRE>\nx", false},
		{"processing instruction", "<?php echo 1;", false},
		{"doctype", "<!DOCTYPE html>", false},
		{"cdata", "<![CDATA[ x", false},
		{"html in a list item", "- <!-- x", false},
		{"div hiding a fence", "<div>\n```\n</div>\n\n```\ncode\n```", false},
		{"list fence closed by a column-0 fence", "- a\n  ```\n```\nx\n```", false},
		{"list fence with a deeper closer", "- a\n  ```\n      ```", false},
		{"unclosed fence after a blank line", "text\n\n```", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chat := &annals.Chat{ID: "c", TenantID: "t"}
			e := &annals.Entry{ChatID: "c", ID: "e", Seq: 1, Kind: annals.KindAssistant, Text: tc.text}
			doc := render(t, chat, nil, []*annals.Entry{e})
			rawForm := "### 1 · Assistant\n\n" + tc.text
			if got := strings.Contains(doc, rawForm); got != tc.raw {
				t.Errorf("raw = %v, want %v:\n%s", got, tc.raw, doc)
			}
			got, err := markdown.Parse(strings.NewReader(doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got.Entries[0].Text != tc.text {
				t.Errorf("text = %q, want %q", got.Entries[0].Text, tc.text)
			}
		})
	}
}

func TestRenderFencesDescriptionThatWouldJoinTheHeaderList(t *testing.T) {
	for _, tc := range []struct {
		desc string
		raw  bool
	}{
		{"A plain paragraph.", true},
		{"- a list item", false},
		{"\n\n1. numbered", false},
		{"  indented", false},
	} {
		chat := &annals.Chat{ID: "c", TenantID: "t", Description: tc.desc}
		doc := render(t, chat, nil, nil)
		raw := strings.Contains(doc, "$0.00\n\n"+tc.desc)
		if raw != tc.raw {
			t.Errorf("description %q raw = %v, want %v:\n%s", tc.desc, raw, tc.raw, doc)
		}
		got, err := markdown.Parse(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if got.Chat.Description != tc.desc {
			t.Errorf("description = %q, want %q", got.Chat.Description, tc.desc)
		}
	}
}

func TestRenderKeepsArgumentsExact(t *testing.T) {
	for _, tc := range []struct {
		name, args, shown string
	}{
		{"compact is indented", `{"a":[1,{"b":null}],"c":"x"}`, "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": \"x\"\n}"},
		{"spaced is shown as written", `{"a": 1}`, `{"a": 1}`},
		{"escaped html stays escaped", `{"a":"\u003cb\u003e"}`, "{\n  \"a\": \"\\u003cb\\u003e\"\n}"},
		{"invalid json is shown as written", `{"a":`, `{"a":`},
		{"scalar", `42`, `42`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &annals.Entry{ID: "e", Seq: 1, Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "T", Arguments: json.RawMessage(tc.args)}}
			doc := render(t, &annals.Chat{ID: "c", TenantID: "t"}, nil, []*annals.Entry{e})
			if !strings.Contains(doc, "**Arguments**\n") || !strings.Contains(doc, "\n"+tc.shown+"\n```\n") {
				t.Errorf("arguments not shown as %q:\n%s", tc.shown, doc)
			}
			got, err := markdown.Parse(strings.NewReader(doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if a := string(got.Entries[0].Tool.Arguments); a != tc.args {
				t.Errorf("arguments = %s, want %s", a, tc.args)
			}
		})
	}
}

func TestRenderMetadataThatIsNotUTF8RoundTrips(t *testing.T) {
	meta := json.RawMessage("{\"a\":\"\xff\xfe\"}")
	e := &annals.Entry{ID: "e", Seq: 1, Kind: annals.KindEvent, Metadata: meta, Text: "bad \xff bytes\x00 in text"}
	doc := render(t, &annals.Chat{ID: "c", TenantID: "t"}, nil, []*annals.Entry{e})
	got, err := markdown.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if !bytes.Equal(got.Entries[0].Metadata, meta) || got.Entries[0].Text != e.Text {
		t.Errorf("got metadata %q text %q, want %q %q", got.Entries[0].Metadata, got.Entries[0].Text, meta, e.Text)
	}
}

func TestRenderEmptyChatRoundTrips(t *testing.T) {
	doc := render(t, &annals.Chat{}, nil, nil)
	if !strings.HasPrefix(strings.SplitN(doc, "\n", 3)[1], "# Untitled chat") {
		t.Errorf("no untitled heading:\n%s", doc)
	}
	got, err := markdown.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(got.Entries) != 0 || got.Chat.ID != "" {
		t.Errorf("got %+v, want an empty chat", got)
	}
}

func TestParseToleratesBOMLeadingBlankLinesAndMissingFinalNewline(t *testing.T) {
	chat, runs, entries := fullChat()
	doc := render(t, chat, runs, entries)
	got, err := markdown.Parse(strings.NewReader("\uFEFF\n\n" + strings.TrimSuffix(doc, "\n")))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(got.Entries) != len(entries) {
		t.Errorf("got %d entries, want %d", len(got.Entries), len(entries))
	}
}

func TestParseRefusesEveryTruncation(t *testing.T) {
	chat, runs, entries := fullChat()
	doc := render(t, chat, runs, entries)
	// The last byte is the final newline, which Parse tolerates missing; any shorter prefix
	// lacks at least part of the end marker.
	for n := 0; n < len(doc)-1; n++ {
		if _, err := markdown.Parse(strings.NewReader(doc[:n])); err == nil {
			t.Fatalf("Parse of the first %d of %d bytes succeeded, want an error", n, len(doc))
		} else if annals.ErrorCode(err) != annals.EINVALID {
			t.Fatalf("Parse of %d bytes: code %q, want %q (%v)", n, annals.ErrorCode(err), annals.EINVALID, err)
		}
	}
}

func TestParseRefusesMalformedDocuments(t *testing.T) {
	chat, runs, entries := fullChat()
	doc := render(t, chat, runs, entries)
	simple := render(t, &annals.Chat{ID: "c", TenantID: "t"}, nil, []*annals.Entry{{ID: "e", Seq: 1, Kind: annals.KindUser, Text: "hello"}})
	entryLine := func(s string) string {
		i := strings.Index(s, "<!-- annals:entry ")
		return s[i : i+strings.Index(s[i:], "\n")]
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"empty", "", "not an annals Markdown export"},
		{"plain markdown", "# Title\n\nhello\n", "not an annals Markdown export"},
		{"bad chat json", strings.Replace(doc, `{"v":1,`, `{"v":1,,`, 1), "bad chat comment JSON"},
		{"chat json not an object", "<!-- annals:chat null -->\n", "bad chat comment JSON"},
		{"unknown chat field", strings.Replace(doc, `{"v":1,`, `{"v":1,"extra":2,`, 1), "unknown field"},
		{"trailing data in comment", strings.Replace(simple, `"text_bytes":5} -->`, `"text_bytes":5} {} -->`, 1), "after the JSON object"},
		{"future version", strings.Replace(doc, `{"v":1,`, `{"v":2,`, 1), "version 2 is not supported"},
		{"unterminated comment", strings.Replace(simple, `"text_bytes":5} -->`, `"text_bytes":5}`, 1), "does not end with"},
		{"bad entry json", strings.Replace(simple, entryLine(simple), `<!-- annals:entry {"id": -->`, 1), "bad entry 1 comment JSON"},
		{"negative length", strings.Replace(simple, `"text_bytes":5`, `"text_bytes":-5`, 1), "negative length"},
		{"huge length", strings.Replace(simple, `"text_bytes":5`, `"text_bytes":9223372036854775807`, 1), "only"},
		{"length too short", strings.Replace(simple, `"text_bytes":5`, `"text_bytes":4`, 1), "line break after"},
		{"length too long", strings.Replace(simple, `"text_bytes":5`, `"text_bytes":7`, 1), "blank line"},
		{"edited content", strings.Replace(simple, "hello", "hello, world", 1), "line break after"},
		{"missing end marker", strings.Replace(simple, `<!-- annals:end {"entries":1} -->`, "", 1), "before its"},
		{"wrong entry count", strings.Replace(simple, `{"entries":1}`, `{"entries":2}`, 1), "counts 2 entries"},
		{"content after end", simple + "more\n", "after the end marker"},
		{"stray line between entries", strings.Replace(simple, "hello\n\n", "hello\n\nstray\n", 1), "want an entry or the end marker"},
		{"crlf", strings.ReplaceAll(simple, "\n", "\r\n"), "line endings were converted"},
		{"both metadata forms", strings.Replace(simple, `"kind":"user"`, `"kind":"user","metadata":"{}","metadata_base64":"e30="`, 1), "both metadata"},
		{"missing heading", strings.Replace(simple, "### 1 · User\n", "", 1), "heading of entry 1"},
		{"bad indented arguments", strings.Replace(
			render(t, &annals.Chat{ID: "c", TenantID: "t"}, nil, []*annals.Entry{{ID: "e", Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "T", Arguments: json.RawMessage(`{"a":1}`)}}}),
			`"a": 1`, `"a"; 1`, 1), "not valid JSON"},
		{"wrong closing fence", strings.Replace(doc, "FAIL\n````\n", "FAIL\n```\n", 1), "closing fence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := markdown.Parse(strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("Parse succeeded, want an error containing %q", tc.want)
			}
			if annals.ErrorCode(err) != annals.EINVALID {
				t.Errorf("code = %q, want %q", annals.ErrorCode(err), annals.EINVALID)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line ") {
				t.Errorf("error = %q, want it to name a line and contain %q", err, tc.want)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderReportsWriteErrorsAndNilInputs(t *testing.T) {
	chat, runs, entries := fullChat()
	if err := markdown.Render(failingWriter{}, chat, runs, entries); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Render to a failing writer = %v, want the write error", err)
	}
	if err := markdown.Render(io.Discard, nil, nil, nil); err == nil {
		t.Errorf("Render of a nil chat succeeded, want an error")
	}
	if err := markdown.Render(io.Discard, chat, nil, []*annals.Entry{nil}); err == nil {
		t.Errorf("Render of a nil entry succeeded, want an error")
	}
	bad := &annals.Chat{ID: "c", Totals: annals.Totals{CostUSD: 0}}
	bad.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := markdown.Render(io.Discard, bad, nil, nil); err == nil {
		t.Errorf("Render of a year-10000 time succeeded, want an error")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestParseWrapsReadErrors(t *testing.T) {
	_, err := markdown.Parse(errReader{})
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("Parse = %v, want the read error", err)
	}
}

// benchChat is a chat of 10,000 entries shaped like a coding session: user prompts, assistant
// answers with code and reasoning, tool calls with JSON arguments and multi-line results, events.
func benchChat() (*annals.Chat, []*annals.Entry) {
	chat := &annals.Chat{ID: "bench", TenantID: "t", Title: "Benchmark", CreatedAt: t0, LastActivity: t0}
	entries := make([]*annals.Entry, 10000)
	for i := range entries {
		e := &annals.Entry{ChatID: "bench", ID: fmt.Sprintf("e%d", i), Seq: int64(i + 1), Time: t0.Add(time.Duration(i) * time.Second), RunID: "r1"}
		switch i % 4 {
		case 0:
			e.Kind, e.Text = annals.KindUser, strings.Repeat("Please look at the failing test and fix it. ", 6)
		case 1:
			e.Kind, e.Reasoning = annals.KindAssistant, "I should run the tests first."
			e.Text = "Running the tests:\n\n```bash\ngo test ./...\n```\n" + strings.Repeat("Some explanation. ", 10)
			e.InputTokens, e.OutputTokens = 1200, 300
		case 2:
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: "Bash", CallID: "call", Arguments: json.RawMessage(`{"command":"go test ./...","timeout":120}`),
				Result: strings.Repeat("ok  \tgithub.com/x/y\t0.012s\n", 10), Outcome: annals.OutcomeSucceeded}
		case 3:
			e.Kind, e.Channel, e.Text = annals.KindEvent, "in/agent/main", "checkpoint"
		}
		entries[i] = e
	}
	return chat, entries
}

func BenchmarkRender10kEntries(b *testing.B) {
	chat, entries := benchChat()
	var buf bytes.Buffer
	if err := markdown.Render(&buf, chat, nil, entries); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := markdown.Render(io.Discard, chat, nil, entries); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse10kEntries(b *testing.B) {
	chat, entries := benchChat()
	var buf bytes.Buffer
	if err := markdown.Render(&buf, chat, nil, entries); err != nil {
		b.Fatal(err)
	}
	doc := buf.Bytes()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := markdown.Parse(bytes.NewReader(doc)); err != nil {
			b.Fatal(err)
		}
	}
}
