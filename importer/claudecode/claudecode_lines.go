package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// The line handlers of the Claude Code reader (claudecode.go): user, assistant and system
// lines, and everything else as events.

func (s *ccSession) user(chat string, n int, l *ccLine, raw []byte, ts time.Time, out reader.Output) error {
	if l.Message == nil {
		s.event(chat, n, l, raw, ts)
		return nil
	}
	q := s.queue(chat)
	text, blocks, rawBlocks, err := ccContentBlocks(l.Message.Content)
	if err != nil {
		out.Warnf(n, "message content: %s", reader.ShortJSONErr(err))
		return nil
	}
	var texts []string
	if text != "" {
		texts = append(texts, text)
	}
	images := 0
	part := 0
	var other []json.RawMessage
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case "image", "document":
			images++
			texts = append(texts, "["+b.Type+"]")
		case "tool_result":
			part++
			s.toolResult(q, chat, l, raw, ts, b, part)
		default:
			if i < len(rawBlocks) {
				other = append(other, rawBlocks[i])
			}
		}
	}
	body := strings.TrimSpace(strings.Join(reader.DropBlank(texts), "\n\n"))
	if body == "" && len(other) == 0 {
		return nil
	}
	kind := annals.KindUser
	m := map[string]any{}
	if len(other) > 0 {
		m["blocks"] = reader.SizedJSON(other)
	}
	if images > 0 {
		m["attachments"] = images
	}
	channel := ""
	switch {
	case l.IsCompactSummary:
		kind = annals.KindSystem
		m["compaction"] = true
	case l.IsMeta:
		kind = annals.KindSystem
		m["meta"] = true
	case ccCommand(body, m):
		// A command the person ran in the tool (/clear, /compact), or its output: no prompt.
		kind, channel, body = annals.KindEvent, ccCommandChannel, ccCommandText(body, m)
	default:
		// A new prompt from the person: calls still waiting will not get a result.
		if len(blocks) == 0 || !ccHasToolResult(blocks) {
			q.ReleaseAll()
		}
	}
	q.PushEntry(chat, &annals.Entry{ID: ccEntryID(l, raw, 0), Kind: kind, Channel: channel, Time: ts, SourceIDs: s.sourceIDs(l), Text: reader.ValidText(body), Metadata: s.meta(chat, l, raw, m)})
	return nil
}

// toolResult fills in the call a tool_result block answers, or queues the result as an
// orphan entry when its call is not in this file (or was released already).
func (s *ccSession) toolResult(q *reader.OpQueue, chat string, l *ccLine, raw []byte, ts time.Time, b ccBlock, part int) {
	result := ccToolResult(b.Content)
	outcome := annals.OutcomeSucceeded
	switch {
	case l.ToolDenialKind != "" || strings.Contains(result, "The user doesn't want to proceed with this tool use"):
		outcome = annals.OutcomeBlocked
	case strings.HasPrefix(result, "[Request interrupted by user"):
		outcome = annals.OutcomeCancelled
	case b.IsError:
		outcome = annals.OutcomeFailed
	}
	extra := map[string]any{}
	if small := ccSmallResult(l.ToolUseResult); small != nil {
		extra["tool_use_result"] = small
	}
	resultMeta := reader.Metadata(extra)
	agent := ccResultAgent(l.ToolUseResult)
	if q.Resolve(b.ToolUseID, func(e *annals.Entry) {
		e.Tool.Result, e.Tool.Outcome = result, outcome
		if resultMeta != nil {
			e.Metadata = reader.JoinMeta(e.Metadata, resultMeta)
		}
		reader.ResultTime(e, ts)
		if agent != "" && s.session() != "" {
			ccLinkCall(e, reader.ChatID("claude-code", s.session()+"/agent-"+agent))
		}
		e.SourceIDs = reader.AddSourceIDs(e.SourceIDs, s.sourceIDs(l)...)
	}) {
		return
	}
	extra["orphan_result"] = true
	q.PushEntry(chat, &annals.Entry{
		ID: ccEntryID(l, raw, part), Kind: annals.KindTool, Time: ts, SourceIDs: s.sourceIDs(l),
		Tool:     &annals.ToolCall{Name: "unknown", CallID: reader.SafeID(b.ToolUseID, annals.MaxIDBytes), Result: result, Outcome: outcome},
		Metadata: s.meta(chat, l, raw, extra),
	})
}

func ccHasToolResult(blocks []ccBlock) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

// ccContent splits message content into a plain string or blocks.
func ccContent(raw json.RawMessage) (string, []ccBlock, error) {
	text, blocks, _, err := ccContentBlocks(raw)
	return text, blocks, err
}

// ccContentBlocks is ccContent with each block as written too (items[i] is blocks[i]), for
// the blocks a message keeps in its metadata as they are: the content is decoded once.
func ccContentBlocks(raw json.RawMessage) (text string, blocks []ccBlock, items []json.RawMessage, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil, nil, nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, nil, nil, err
	}
	// A list usually holds blocks, but some versions (and hand-written tools) put a plain
	// string in it: that is a text block, never a reason to drop the line.
	if err := json.Unmarshal(raw, &items); err != nil {
		return "", nil, nil, err
	}
	blocks = make([]ccBlock, 0, len(items))
	for _, it := range items {
		it = bytes.TrimSpace(it)
		if len(it) > 0 && it[0] == '"' {
			var s string
			if err := json.Unmarshal(it, &s); err != nil {
				return "", nil, nil, err
			}
			blocks = append(blocks, ccBlock{Type: "text", Text: s})
			continue
		}
		var b ccBlock
		if err := json.Unmarshal(it, &b); err != nil {
			return "", nil, nil, err
		}
		blocks = append(blocks, b)
	}
	return "", blocks, items, nil
}

// ccToolResult flattens a tool_result's content (a string, or text and image blocks).
func ccToolResult(raw json.RawMessage) string {
	text, blocks, err := ccContent(raw)
	if err != nil {
		return reader.ValidText(string(raw))
	}
	parts := []string{}
	if text != "" {
		parts = append(parts, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return reader.ValidText(strings.Join(parts, "\n"))
}

// ccSmallResult keeps the structured toolUseResult only when it is small: it mostly repeats the
// tool_result text, and for file tools it can hold a whole file.
func ccSmallResult(raw json.RawMessage) any {
	if len(raw) == 0 || len(raw) > 4<<10 || bytes.Equal(raw, []byte("null")) || raw[0] == '"' {
		return nil
	}
	return raw
}

func (s *ccSession) assistant(chat string, n int, l *ccLine, raw []byte, ts time.Time, out reader.Output) error {
	if l.Message == nil {
		s.event(chat, n, l, raw, ts)
		return nil
	}
	m := l.Message
	if chat == s.mainChat() && !s.st.Created && s.mainChat() != "" {
		s.create(m.Model)
	}
	q := s.queue(chat)
	runID := ccRecordRun(q, chat, m, ts)
	text, blocks, rawBlocks, err := ccContentBlocks(m.Content)
	if err != nil {
		out.Warnf(n, "message content: %s", reader.ShortJSONErr(err))
		return nil
	}
	var texts, thoughts []string
	if text != "" {
		texts = append(texts, text)
	}
	redacted := false
	var calls []ccCallBlock
	var other []json.RawMessage
	for i, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking":
			// The signature is a signed blob for the API, never shown.
			if b.Thinking != "" {
				thoughts = append(thoughts, b.Thinking)
			}
		case "redacted_thinking":
			redacted = true // encrypted reasoning: dropped, only marked
		case "tool_use", "server_tool_use", "mcp_tool_use":
			calls = append(calls, ccCallBlock{b: b, part: i + 1})
		default:
			if i < len(rawBlocks) {
				other = append(other, rawBlocks[i])
			}
		}
	}
	meta := ccAssistantMeta(l, redacted, other)
	body := strings.Join(reader.DropBlank(texts), "\n\n")
	reasoning := strings.Join(reader.DropBlank(thoughts), "\n\n")
	if body != "" || reasoning != "" || len(calls) == 0 {
		q.PushEntry(chat, &annals.Entry{
			ID: ccEntryID(l, raw, 0), Kind: annals.KindAssistant, Time: ts, RunID: runID, SourceIDs: s.sourceIDs(l),
			Text: reader.ValidText(body), Reasoning: reader.ValidText(reasoning), Metadata: s.meta(chat, l, raw, meta),
		})
	}
	s.queueCalls(q, chat, l, raw, ts, runID, calls, meta, body == "" && reasoning == "")
	return nil
}

// ccRecordRun queues the run of a reply and returns its id ("" when the reply is not a model
// call annals can name).
func ccRecordRun(q *reader.OpQueue, chat string, m *ccMessage, ts time.Time) string {
	if m.ID == "" || reader.Placeholder(m.ID) || m.Model == "<synthetic>" || chat == "" {
		return ""
	}
	runID := reader.SafeID(chat+"/"+m.ID, annals.MaxIDBytes)
	run := &annals.Run{ID: runID, ChatID: chat, Status: annals.StatusCompleted, StartedAt: ts}
	if !reader.Placeholder(m.Model) {
		run.Model = reader.SafeID(m.Model, annals.MaxIDBytes)
	}
	if u := m.Usage; u != nil {
		// The prompt the model processed, cache included (as OpenAI counts prompt tokens).
		// A reply is one model call: its prompt is the context's size.
		run.CacheReadTokens, run.CacheCreationTokens = reader.ClampTokens(u.CacheReadTokens), reader.ClampTokens(u.CacheCreationTokens)
		run.InputTokens = reader.ClampTokens(u.InputTokens) + run.CacheCreationTokens + run.CacheReadTokens
		run.OutputTokens = reader.ClampTokens(u.OutputTokens)
		run.ContextTokens = run.InputTokens
	}
	// A split reply repeats its message id on every line: the run is recorded again with
	// the latest usage, an upsert.
	q.Push(annals.CaptureOp{Run: run})
	return runID
}

// ccAssistantMeta is what an assistant entry keeps besides its text.
func ccAssistantMeta(l *ccLine, redacted bool, other []json.RawMessage) map[string]any {
	m := l.Message
	meta := map[string]any{}
	if m.Model != "" && !reader.Placeholder(m.Model) {
		meta["model"] = m.Model
	}
	if redacted {
		meta["redacted_thinking"] = true
	}
	if l.IsAPIError {
		meta["api_error"] = true
	}
	if m.StopReason != "" && m.StopReason != "end_turn" && m.StopReason != "tool_use" && !reader.Placeholder(m.StopReason) {
		meta["stop_reason"] = m.StopReason
	}
	if len(other) > 0 {
		meta["blocks"] = reader.SizedJSON(other)
	}
	return meta
}

// ccCallBlock is a tool_use block and its position in the message.
type ccCallBlock struct {
	b    ccBlock
	part int
}

// queueCalls queues a reply's tool calls. When the reply has no text (bare), a lone call takes
// the message's own entry id and the calls carry the reply's metadata.
func (s *ccSession) queueCalls(q *reader.OpQueue, chat string, l *ccLine, raw []byte, ts time.Time, runID string, calls []ccCallBlock, meta map[string]any, bare bool) {
	for _, c := range calls {
		args := c.b.Input
		if len(bytes.TrimSpace(args)) == 0 {
			args = nil
		}
		name := c.b.Name
		if name == "" {
			name = "unknown"
		}
		id := ccEntryID(l, raw, c.part)
		if bare && len(calls) == 1 {
			id = ccEntryID(l, raw, 0)
		}
		e := &annals.Entry{
			ID: id, Kind: annals.KindTool, Time: ts, RunID: runID, SourceIDs: s.sourceIDs(l),
			Tool: &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), CallID: reader.SafeID(c.b.ID, annals.MaxIDBytes), Arguments: args},
		}
		if len(meta) > 0 && bare {
			e.Metadata = s.meta(chat, l, raw, meta)
		}
		if c.b.ID == "" {
			q.PushEntry(chat, e)
			continue
		}
		q.PushCall(chat, c.b.ID, e)
	}
}

func (s *ccSession) system(chat string, n int, l *ccLine, raw []byte, ts time.Time) error {
	q := s.queue(chat)
	text := ""
	if len(l.Content) > 0 && l.Content[0] == '"' {
		_ = json.Unmarshal(l.Content, &text)
	}
	m := map[string]any{"subtype": l.Subtype}
	kind := annals.KindEvent
	switch l.Subtype {
	case "compact_boundary":
		kind = annals.KindSystem
		m["compaction"] = true
		if len(l.CompactMetadata) > 0 {
			m["compact_metadata"] = l.CompactMetadata
		}
		if l.LogicalParentUUID != "" {
			m["logical_parent"] = l.LogicalParentUUID
		}
		if text == "" {
			text = "Conversation compacted"
		}
	case "api_error", "error", "api_refusal", "local_command", "informational":
		kind = annals.KindSystem
		if len(l.Error) > 0 && !bytes.Equal(l.Error, []byte("null")) {
			m["error"] = reader.SizedJSON(l.Error)
		}
	}
	e := &annals.Entry{ID: ccEntryID(l, raw, 0), Kind: kind, Time: ts, SourceIDs: s.sourceIDs(l), Text: reader.ValidText(text), Metadata: s.meta(chat, l, raw, m)}
	if kind == annals.KindEvent {
		e.Channel = "claude-code/system/" + reader.ChannelPart(l.Subtype)
	}
	q.PushEntry(chat, e)
	return nil
}

// event keeps a line of a type annals has no mapping for as an event entry holding the line.
func (s *ccSession) event(chat string, n int, l *ccLine, raw []byte, ts time.Time) {
	m := map[string]any{}
	if len(l.Attachment) > 0 {
		m["attachment"] = reader.SizedJSON(l.Attachment)
	}
	if extra := reader.UnknownFields(raw, ccEnvelope...); len(extra) > 0 {
		m["extra"] = reader.SizedJSON(extra)
	}
	typ := l.Type
	if typ == "" {
		typ = "unknown"
	}
	channel := "claude-code/" + reader.ChannelPart(typ)
	if len(l.Attachment) > 0 {
		var a struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l.Attachment, &a) == nil && a.Type != "" {
			channel += "/" + reader.ChannelPart(a.Type)
		}
	}
	s.queue(chat).PushEntry(chat, &annals.Entry{ID: ccEntryID(l, raw, 0), Kind: annals.KindEvent, Channel: channel, Time: ts, SourceIDs: s.sourceIDs(l), Metadata: reader.Metadata(m)})
}
