package markdown_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/markdown"
)

// valid makes s usable in a field carried by comment JSON, which holds only valid UTF-8 (as the
// root's validation requires). Content parts get the fuzzer's bytes unchanged.
func valid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// sameTime reports whether two times are the same instant written the same way (offset
// included), which is what the export promises.
func sameTime(a, b time.Time) bool {
	return a.Equal(b) && a.Format(time.RFC3339Nano) == b.Format(time.RFC3339Nano)
}

// entryDiff describes how got differs from want, or returns "" when they are equal field for
// field, treating nil and empty slices alike (JSON does too).
func entryDiff(got, want *annals.Entry) string {
	if !sameTime(got.Time, want.Time) {
		return fmt.Sprintf("time %v, want %v", got.Time, want.Time)
	}
	norm := func(e *annals.Entry) annals.Entry {
		c := *e
		c.Time = time.Time{}
		if len(c.SourceIDs) == 0 {
			c.SourceIDs = nil
		}
		if len(c.Metadata) == 0 {
			c.Metadata = nil
		}
		if c.Tool != nil {
			t := *c.Tool
			if len(t.Arguments) == 0 {
				t.Arguments = nil
			}
			c.Tool = &t
		}
		return c
	}
	g, w := norm(got), norm(want)
	if !reflect.DeepEqual(g, w) {
		gt, wt := g.Tool, w.Tool
		g.Tool, w.Tool = nil, nil
		return fmt.Sprintf("\n got %#v tool %#v\nwant %#v tool %#v", g, gt, w, wt)
	}
	return ""
}

// chatDiff compares chats like entryDiff compares entries.
func chatDiff(got, want *annals.Chat) string {
	if !sameTime(got.CreatedAt, want.CreatedAt) || !sameTime(got.LastActivity, want.LastActivity) {
		return fmt.Sprintf("times %v %v, want %v %v", got.CreatedAt, got.LastActivity, want.CreatedAt, want.LastActivity)
	}
	if (got.ArchivedAt == nil) != (want.ArchivedAt == nil) || (got.ArchivedAt != nil && !sameTime(*got.ArchivedAt, *want.ArchivedAt)) {
		return fmt.Sprintf("archived_at %v, want %v", got.ArchivedAt, want.ArchivedAt)
	}
	norm := func(c annals.Chat) annals.Chat {
		c.CreatedAt, c.LastActivity, c.ArchivedAt, c.SummaryUpdatedAt = time.Time{}, time.Time{}, nil, nil
		if len(c.Tags) == 0 {
			c.Tags = nil
		}
		if len(c.Attributes) == 0 {
			c.Attributes = nil
		}
		return c
	}
	if g, w := norm(*got), norm(*want); !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("\n got %#v\nwant %#v", g, w)
	}
	return ""
}

// fuzzChat builds a chat and one entry of every kind from the fuzzer's values.
func fuzzChat(text, reasoning, args, result, meta, short string, seq, nanos, tokens int64, outcome uint8) (*annals.Chat, []*annals.Entry) {
	at := time.Unix(0, nanos).In(time.FixedZone("", int(tokens%1440)*60))
	id := valid(short)
	chat := &annals.Chat{
		ID: id, TenantID: id + "t", UserID: id, Title: valid(text), Description: reasoning, Summary: result,
		Tags: []string{id}, Attributes: annals.Attributes{id: valid(meta)}, CreatedAt: at, LastActivity: at,
		Status: annals.RunStatus(id), Pinned: seq%2 == 0, Totals: annals.Totals{Runs: seq, InputTokens: tokens},
	}
	if seq%3 == 0 {
		chat.ArchivedAt = &at
	}
	outcomes := append([]annals.Outcome{""}, annals.Outcomes...)
	base := func(n int64, kind annals.EntryKind) *annals.Entry {
		return &annals.Entry{ChatID: chat.ID, ID: fmt.Sprintf("%s-%d", id, n), Seq: seq + n, Kind: kind, Time: at}
	}
	user := base(0, annals.KindUser)
	user.Text = text
	assistant := base(1, annals.KindAssistant)
	assistant.Text, assistant.Reasoning, assistant.RunID = text, reasoning, id
	assistant.InputTokens, assistant.OutputTokens = tokens, -tokens
	tool := base(2, annals.KindTool)
	tool.Tool = &annals.ToolCall{Name: id, CallID: valid(meta), Arguments: json.RawMessage(args), Result: result,
		Outcome: outcomes[int(outcome)%len(outcomes)]}
	tool.Text = reasoning
	system := base(3, annals.KindSystem)
	system.Text, system.Channel = result, id
	event := base(4, annals.KindEvent)
	event.Text, event.Channel, event.CorrelationID = args, valid(reasoning), valid(text)
	event.Metadata, event.SourceIDs = json.RawMessage(meta), []string{id, valid(result)}
	if seq%2 == 1 {
		event.ChatID = valid(meta)
	}
	return chat, []*annals.Entry{user, assistant, tool, system, event}
}

// fuzzRuns builds two runs of chat from the fuzzer's values: one with every field set, one
// of another chat with only the required ones.
func fuzzRuns(chat *annals.Chat, at time.Time, text, reasoning, meta string, seq, tokens int64) []*annals.Run {
	full := &annals.Run{ID: chat.ID, ChatID: chat.ID, Status: annals.RunStatus(valid(text)), Model: valid(reasoning),
		StartedAt: at, InputTokens: tokens, OutputTokens: -tokens, CostUSD: float64(tokens) / 7}
	if seq%3 == 0 {
		end := at.Add(time.Duration(seq))
		full.EndedAt = &end
	}
	return []*annals.Run{full, {ID: valid(meta), ChatID: valid(meta) + "x", Status: annals.StatusRunning}}
}

func FuzzRenderParse(f *testing.F) {
	f.Add("hello", "", `{"a":1}`, "ok\n", `{"k":"v"}`, "c1", int64(1), int64(1773482531000000000), int64(10), uint8(2))
	f.Add("```\ncode", "<!-- annals:entry {} -->", `{"a": [1, 2]}`, "````", "{}", "x--y", int64(0), int64(0), int64(-7), uint8(4))
	f.Add("- item\n\n<script>", "\r\n\r", "not json", "", "", "", int64(-5), int64(-1), int64(1439), uint8(1))
	f.Add("~~~\n", "> ```\n", "\xff\xfe", "\x00-->", "\xffmeta", "\xff", int64(3), int64(123456789), int64(0), uint8(3))
	f.Fuzz(func(t *testing.T, text, reasoning, args, result, meta, short string, seq, nanos, tokens int64, outcome uint8) {
		chat, entries := fuzzChat(text, reasoning, args, result, meta, short, seq, nanos, tokens, outcome)
		runs := fuzzRuns(chat, entries[1].Time, text, reasoning, meta, seq, tokens)
		var buf bytes.Buffer
		if err := markdown.Render(&buf, chat, runs, entries); err != nil {
			t.Fatalf("Render: %v", err)
		}
		got, err := markdown.Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, buf.Bytes())
		}
		if d := chatDiff(&got.Chat, chat); d != "" {
			t.Errorf("chat: %s", d)
		}
		checkRuns(t, got.Runs, runs)
		if len(got.Entries) != len(entries) {
			t.Fatalf("got %d entries, want %d", len(got.Entries), len(entries))
		}
		for i := range entries {
			if d := entryDiff(got.Entries[i], entries[i]); d != "" {
				t.Errorf("entry %d: %s", i, d)
			}
		}
	})
}

// FuzzParse feeds Parse arbitrary documents: it must return an error or an export, never panic,
// and whatever it accepts must render and parse back to the same export.
func FuzzParse(f *testing.F) {
	chat, runs, entries := fullChat()
	var buf bytes.Buffer
	if err := markdown.Render(&buf, chat, runs, entries); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	buf.Reset()
	if err := markdown.Render(&buf, &annals.Chat{ID: "c", TenantID: "t"}, nil, []*annals.Entry{{ID: "e", Seq: 1, Kind: annals.KindUser, Text: "hi"}}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("<!-- annals:chat {\"v\":1,\"description_bytes\":3} -->\n# x\n\n- y\n\nabc\n\n<!-- annals:end {\"entries\":0} -->\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := markdown.Parse(bytes.NewReader(doc))
		if err != nil {
			if annals.ErrorCode(err) != annals.EINVALID {
				t.Fatalf("error code %q, want %q: %v", annals.ErrorCode(err), annals.EINVALID, err)
			}
			return
		}
		var out bytes.Buffer
		if err := markdown.Render(&out, &got.Chat, got.Runs, got.Entries); err != nil {
			// A parsed time can be outside what JSON encodes (year > 9999) only if the input
			// held one, which time.Parse refuses, so every accepted export must render.
			t.Fatalf("Render of a parsed export: %v", err)
		}
		again, err := markdown.Parse(&out)
		if err != nil {
			t.Fatalf("Parse of a re-rendered export: %v", err)
		}
		if d := chatDiff(&again.Chat, &got.Chat); d != "" {
			t.Errorf("chat: %s", d)
		}
		checkRuns(t, again.Runs, got.Runs)
		if len(again.Entries) != len(got.Entries) {
			t.Fatalf("got %d entries, want %d", len(again.Entries), len(got.Entries))
		}
		for i := range got.Entries {
			if d := entryDiff(again.Entries[i], got.Entries[i]); d != "" {
				t.Errorf("entry %d: %s", i, d)
			}
		}
	})
}
