// Package messages reads the histories of plain message arrays (the generic formats) for annals
// import (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default
// locations, read), listed in importer.Formats.
package messages

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Messages reads plain model-API transcripts, the generic format of programs that call a model
// directly and save what they sent:
//
//   - a JSON array of OpenAI Chat Completions or Anthropic Messages messages ({role, content});
//   - a request body: an object with "messages" (and "system", "model"), or with "input" (the
//     OpenAI Responses API);
//   - a list of recorded exchanges, [{request, response}], as HTTP recorders (VCR cassettes) keep
//     them: the last request holds the whole history, and its response (JSON, or a server-sent
//     event stream) the final reply; each exchange's usage becomes a run;
//   - JSON Lines of any of those: lines that are messages form one chat, lines that are requests
//     or exchanges are one chat each.
//
// A file has no session id, so a chat is named after the file: "messages:<file name>-<hash of
// its path>" (with "/<line>" for one chat per line), and entries after their position.
type Messages struct{}

func (Messages) Name() string { return "messages" }

// DefaultPaths is empty: message arrays are wherever a program saved them, so they are only
// imported from paths given on the command line.
func (Messages) DefaultPaths(home string) []string { return nil }

func (Messages) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	r, err := src.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return fmt.Errorf("reading %s: %w", src.Path, err)
	}
	stem := strings.TrimSuffix(filepath.Base(src.Path), filepath.Ext(src.Path))
	base := reader.SafeID(stem, 160) + "-" + reader.ShortHash(src.Path)[:8]
	chatID := reader.ChatID("messages", base)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') && json.Valid(trimmed) {
		t := &msgTranscript{chatID: chatID}
		if err := t.document(trimmed); err != nil {
			return err
		}
		return t.emit(src, out)
	}
	// JSON Lines.
	lines := &msgTranscript{chatID: chatID}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), reader.MaxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			out.Warnf(n, "not a JSON object: %s", reader.ShortJSONErr(err))
			continue
		}
		if obj["role"] != nil {
			if err := lines.message(line); err != nil {
				out.Warnf(n, "message: %s", reader.ShortJSONErr(err))
			}
			continue
		}
		one := &msgTranscript{chatID: reader.SafeID(fmt.Sprintf("%s/%d", chatID, n), annals.MaxIDBytes)}
		if err := one.document(line); err != nil {
			out.Warnf(n, "%s", reader.ShortJSONErr(err))
			continue
		}
		if err := one.emit(src, out); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			out.Warnf(n+1, "line is longer than %d bytes; the rest of the file was skipped", reader.MaxLineBytes)
		} else {
			return fmt.Errorf("reading %s: %w", src.Path, err)
		}
	}
	if len(lines.msgs) > 0 {
		return lines.emit(src, out)
	}
	return nil
}

// msgTranscript collects one chat's messages in a normal form.
type msgTranscript struct {
	chatID string
	model  string
	msgs   []msgItem
	runs   []*annals.Run
	start  time.Time
}

// msgItem is one message or Responses API item, normalised.
type msgItem struct {
	role      string // system, user, assistant, tool
	text      string
	reasoning string
	encrypted bool
	images    int
	calls     []msgCall
	results   []msgResult // tool results (role tool, or Anthropic tool_result blocks)
	name      string
}

type msgCall struct {
	id, name string
	args     json.RawMessage
}

type msgResult struct {
	callID  string
	text    string
	isError bool
}

// document reads a JSON value: a message array, a request, a response or an exchange list.
func (t *msgTranscript) document(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return err
		}
		if len(items) > 0 && msgIsExchange(items[0]) {
			return t.exchanges(items)
		}
		for _, it := range items {
			if err := t.message(it); err != nil {
				return err
			}
		}
		return nil
	}
	if msgIsExchange(raw) {
		return t.exchanges([]json.RawMessage{raw})
	}
	return t.request(raw)
}

func msgIsExchange(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	return json.Unmarshal(raw, &o) == nil && o["request"] != nil && o["response"] != nil
}

// exchanges reads recorded request/response pairs: the history of the last request, then its
// reply; every response's usage is a run.
func (t *msgTranscript) exchanges(items []json.RawMessage) error {
	var last struct {
		Request  json.RawMessage `json:"request"`
		Response json.RawMessage `json:"response"`
	}
	for i, it := range items {
		var ex struct {
			Request  json.RawMessage `json:"request"`
			Response json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(it, &ex); err != nil {
			return fmt.Errorf("exchange %d: %w", i+1, err)
		}
		ex.Request = msgBody(ex.Request)
		ex.Response = msgBody(ex.Response)
		reply := msgResponse(ex.Response)
		if reply.model != "" && t.model == "" {
			t.model = reply.model
		}
		if reply.usage != nil {
			run := &annals.Run{ID: reader.SafeID(fmt.Sprintf("%s/%d", t.chatID, i+1), annals.MaxIDBytes), ChatID: t.chatID,
				Status: annals.StatusCompleted, Model: reader.SafeID(reply.model, annals.MaxIDBytes),
				InputTokens: reply.usage.in, OutputTokens: reply.usage.out, StartedAt: reply.created}
			// One exchange is one model call: its prompt is the context's size.
			run.CacheReadTokens, run.CacheCreationTokens, run.ContextTokens = msgCache(reply.usage)
			t.runs = append(t.runs, run)
		}
		last.Request, last.Response = ex.Request, ex.Response
	}
	if len(last.Request) > 0 {
		if err := t.request(last.Request); err != nil {
			return err
		}
	}
	reply := msgResponse(last.Response)
	if reply.item != nil {
		t.msgs = append(t.msgs, *reply.item)
	}
	t.msgs = append(t.msgs, reply.extra...)
	if t.start.IsZero() {
		t.start = reply.created
	}
	return nil
}

// msgBody unwraps a recorded body: a JSON string holding JSON, or an object with a "body" field.
func msgBody(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return raw
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if t := strings.TrimSpace(s); json.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
			return reader.JSONString(s) // a server-sent event stream, kept as text
		}
	}
	var o struct {
		Body json.RawMessage `json:"body"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &o) == nil && len(o.Body) > 0 {
		return msgBody(o.Body)
	}
	return raw
}

// request reads a request body (or a bare object with messages).
func (t *msgTranscript) request(raw json.RawMessage) error {
	var req struct {
		Model    string            `json:"model"`
		System   json.RawMessage   `json:"system"`
		Messages []json.RawMessage `json:"messages"`
		Input    json.RawMessage   `json:"input"`
		Instr    string            `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return err
	}
	if req.Model != "" && t.model == "" {
		t.model = req.Model
	}
	t.msgs = t.msgs[:0]
	if text := msgContentText(req.System); text != "" {
		t.msgs = append(t.msgs, msgItem{role: "system", text: text})
	}
	if req.Instr != "" {
		t.msgs = append(t.msgs, msgItem{role: "system", text: req.Instr})
	}
	for _, m := range req.Messages {
		if err := t.message(m); err != nil {
			return err
		}
	}
	in := bytes.TrimSpace(req.Input)
	switch {
	case len(in) == 0:
	case in[0] == '"':
		var s string
		_ = json.Unmarshal(in, &s)
		t.msgs = append(t.msgs, msgItem{role: "user", text: s})
	case in[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(in, &items); err != nil {
			return err
		}
		for _, it := range items {
			if err := t.message(it); err != nil {
				return err
			}
		}
	}
	if len(req.Messages) == 0 && len(in) == 0 && len(t.msgs) == 0 {
		return fmt.Errorf("no messages: want an array of {role, content} messages, or an object with messages or input")
	}
	return nil
}

// message reads one message (Chat Completions or Anthropic) or one Responses API item.
func (t *msgTranscript) message(raw json.RawMessage) error {
	var m struct {
		Type       string          `json:"type"`
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Name       string          `json:"name"`
		ToolCalls  []msgOpenAICall `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
		// Responses API items
		CallID    string          `json:"call_id"`
		Arguments json.RawMessage `json:"arguments"`
		Output    json.RawMessage `json:"output"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Encrypted string `json:"encrypted_content"`
		// older OpenAI function calling
		FunctionCall *struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function_call"`
		Reasoning string `json:"reasoning_content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	switch m.Type {
	case "function_call", "custom_tool_call":
		t.msgs = append(t.msgs, msgItem{role: "assistant", calls: []msgCall{{id: m.CallID, name: m.Name, args: msgArgs(m.Arguments)}}})
		return nil
	case "function_call_output", "custom_tool_call_output":
		t.msgs = append(t.msgs, msgItem{role: "tool", results: []msgResult{{callID: m.CallID, text: msgContentText(m.Output)}}})
		return nil
	case "reasoning":
		var texts []string
		for _, s := range m.Summary {
			texts = append(texts, s.Text)
		}
		t.msgs = append(t.msgs, msgItem{role: "assistant", reasoning: strings.Join(reader.DropBlank(texts), "\n\n"), encrypted: m.Encrypted != ""})
		return nil
	}
	it := msgItem{role: m.Role, name: m.Name, reasoning: m.Reasoning}
	if it.role == "developer" {
		it.role = "system"
	}
	if it.role == "function" {
		it.role = "tool"
	}
	msgBlocks(m.Content, &it)
	for _, c := range m.ToolCalls {
		it.calls = append(it.calls, msgCall{id: c.ID, name: c.Function.Name, args: msgArgs(c.Function.Arguments)})
	}
	if m.FunctionCall != nil {
		it.calls = append(it.calls, msgCall{name: m.FunctionCall.Name, args: msgArgs(reader.JSONString(m.FunctionCall.Arguments))})
	}
	if it.role == "tool" {
		callID := m.ToolCallID
		if callID == "" {
			callID = "name:" + m.Name
		}
		it.results = append(it.results, msgResult{callID: callID, text: it.text})
		it.text = ""
	}
	t.msgs = append(t.msgs, it)
	return nil
}
