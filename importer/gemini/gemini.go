// Package gemini reads the histories of Gemini CLI for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Gemini reads Gemini CLI chat recordings: ~/.gemini/tmp/<project hash>/chats/session-*.json
// (one ConversationRecord object, rewritten whole on every change) and the JSON Lines form of
// newer versions (a metadata line, message records, {"$set": {...}} metadata patches and
// {"$rewindTo": "<message id>"} rewinds). One file is one chat, "gemini-cli:<sessionId>".
//
// Both forms are read whole when the file changes (a FileParser): a message record may be
// written again with the same id as it progresses, so the last version of each id is the one
// imported, which needs the whole file. A rewind becomes a truncation at the named message, so
// the transcript ends as the session does; on a re-import the rewound messages are appended and
// removed again (the replay semantics of docs/FORMAT.md).
type Gemini struct{}

func (Gemini) Name() string { return "gemini-cli" }

// ResumeCommand is `gemini --resume <session UUID>`, in the project's folder (sessions are
// per project).
func (Gemini) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("gemini --resume %s", native)
}

func (Gemini) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.json"),
		filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.jsonl"),
	}
}

func (Gemini) Detect(path string, head []byte) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".json" && ext != ".jsonl" || strings.HasSuffix(path, ".messages.json") {
		return false // Cline 4's <session id>.messages.json also has sessionId and messages
	}
	h := reader.FirstLines(head, 3)
	if ext == ".json" {
		h = head
	}
	return bytes.Contains(h, []byte(`"sessionId"`)) && (bytes.Contains(h, []byte(`"projectHash"`)) || bytes.Contains(h, []byte(`"messages"`)))
}

// gmRecord is one message of a Gemini chat.
type gmRecord struct {
	ID        string          `json:"id"`
	Timestamp any             `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Parts     json.RawMessage `json:"parts"`
	Thoughts  []gmThought     `json:"thoughts"`
	Tokens    *gmTokens       `json:"tokens"`
	Model     string          `json:"model"`
	ToolCalls []gmToolCall    `json:"toolCalls"`

	raw json.RawMessage
}

type gmThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

type gmTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

type gmToolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	DisplayName   string          `json:"displayName"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	Status        string          `json:"status"`
	Timestamp     any             `json:"timestamp"`
}

// gmKnown are the message fields annals maps; others are kept in metadata.
var gmKnown = []string{"id", "timestamp", "type", "content", "parts", "thoughts", "tokens", "model", "toolCalls"}

// gmChat is a whole parsed file.
type gmChat struct {
	meta map[string]json.RawMessage
	// steps are message records (folded by id) and rewinds, in file order.
	steps []gmStep
}

type gmStep struct {
	rec      *gmRecord
	rewindTo string
}

func (Gemini) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	r, err := src.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	var c *gmChat
	if strings.EqualFold(filepath.Ext(src.Path), ".jsonl") {
		c, err = gmReadLines(r, out)
	} else {
		c, err = gmReadDocument(r, out)
	}
	if err != nil {
		return err
	}
	return gmEmit(src, c, out)
}

func gmReadDocument(r io.Reader, out reader.Output) (*gmChat, error) {
	var doc map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a Gemini chat record: %w", err)
	}
	c := &gmChat{meta: doc}
	var msgs []json.RawMessage
	if err := json.Unmarshal(doc["messages"], &msgs); err != nil && len(doc["messages"]) > 0 {
		return nil, fmt.Errorf("messages: %w", err)
	}
	delete(c.meta, "messages")
	for i, m := range msgs {
		rec, err := gmDecode(m)
		if err != nil {
			out.Warnf(0, "message %d: %s", i+1, reader.ShortJSONErr(err))
			continue
		}
		c.add(rec)
	}
	return c, nil
}

func gmReadLines(r io.Reader, out reader.Output) (*gmChat, error) {
	c := &gmChat{meta: map[string]json.RawMessage{}}
	br := bufio.NewReaderSize(r, 256<<10)
	n := 0
	for {
		line, _, tooLong, err := reader.ReadLine(br, reader.MaxLineBytes)
		if len(line) > 0 || tooLong {
			n++
			line = bytes.TrimSpace(line)
			switch {
			case tooLong:
				out.Warnf(n, "line is longer than %d bytes; skipped", reader.MaxLineBytes)
			case len(line) == 0:
			default:
				c.line(n, line, out)
			}
		}
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (c *gmChat) line(n int, line []byte, out reader.Output) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		out.Warnf(n, "not a JSON object: %s", reader.ShortJSONErr(err))
		return
	}
	switch {
	case obj["$set"] != nil:
		var set map[string]json.RawMessage
		if json.Unmarshal(obj["$set"], &set) != nil {
			out.Warnf(n, "$set is not an object")
			return
		}
		for k, v := range set {
			c.meta[k] = v
		}
	case obj["$rewindTo"] != nil:
		var id string
		if json.Unmarshal(obj["$rewindTo"], &id) != nil || id == "" {
			out.Warnf(n, "$rewindTo does not name a message")
			return
		}
		c.steps = append(c.steps, gmStep{rewindTo: id})
	case obj["type"] != nil && obj["id"] != nil:
		rec, err := gmDecode(line)
		if err != nil {
			out.Warnf(n, "message: %s", reader.ShortJSONErr(err))
			return
		}
		c.add(rec)
	default:
		// The metadata line (sessionId, projectHash, startTime, ...).
		for k, v := range obj {
			c.meta[k] = v
		}
	}
}

// add appends a record, or replaces the earlier version of the same id since the last rewind.
func (c *gmChat) add(rec *gmRecord) {
	for i := len(c.steps) - 1; i >= 0; i-- {
		if c.steps[i].rewindTo != "" {
			break
		}
		if rec.ID != "" && c.steps[i].rec.ID == rec.ID {
			c.steps[i].rec = rec
			return
		}
	}
	c.steps = append(c.steps, gmStep{rec: rec})
}

func gmDecode(raw json.RawMessage) (*gmRecord, error) {
	var rec gmRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		// A field of an unexpected shape: keep what the record says in metadata.
		var loose struct {
			ID        string `json:"id"`
			Timestamp any    `json:"timestamp"`
			Type      string `json:"type"`
		}
		if json.Unmarshal(raw, &loose) != nil {
			return nil, err
		}
		rec = gmRecord{ID: loose.ID, Timestamp: loose.Timestamp, Type: "unreadable:" + loose.Type}
	}
	rec.raw = raw
	return &rec, nil
}

func gmString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func gmEmit(src *reader.Source, c *gmChat, out reader.Output) error {
	sid := gmString(c.meta["sessionId"])
	if sid == "" {
		sid = strings.TrimSuffix(filepath.Base(src.Path), filepath.Ext(src.Path))
	}
	chatID := reader.ChatID("gemini-cli", sid)
	attrs := annals.Attributes{"source": "gemini-cli"}
	if h := gmString(c.meta["projectHash"]); h != "" {
		attrs["project_hash"] = h
	}
	if k := gmString(c.meta["kind"]); k != "" && k != "main" && k != "chat" {
		attrs["gemini_kind"] = k
	}
	var metaModel struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(c.meta["meta"], &metaModel)
	model := metaModel.Model
	for _, st := range c.steps {
		if model == "" && st.rec != nil && st.rec.Model != "" {
			model = st.rec.Model
		}
	}
	if model != "" {
		attrs["model"] = model
	}
	created := reader.ParseTime(gmString(c.meta["startTime"]))
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created}
	if t := gmString(c.meta["summary"]); t != "" {
		chat.Title = reader.Truncated(reader.ValidText(t), annals.MaxTitleBytes)
	}
	if err := out.Emit(annals.CaptureOp{Chat: chat}); err != nil {
		return err
	}
	last := created
	for _, st := range c.steps {
		if st.rewindTo != "" {
			if err := out.Emit(annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: chatID, Point: annals.TruncatePoint{SourceID: reader.SafeID(st.rewindTo, annals.MaxIDBytes)}}}); err != nil {
				return err
			}
			continue
		}
		ops := gmEntries(chatID, st.rec, &last)
		for _, op := range ops {
			if err := out.Emit(op); err != nil {
				return err
			}
		}
	}
	return nil
}

// gmEntries maps one message to its ops: a run for a model reply with usage, an entry for its
// text and thoughts, and one tool entry per call (a Gemini record holds each call's result).
func gmEntries(chatID string, rec *gmRecord, last *time.Time) []annals.CaptureOp {
	ts := reader.ParseTime(rec.Timestamp)
	if ts.IsZero() {
		ts = *last
	} else {
		*last = ts
	}
	base := rec.ID
	if base == "" {
		base = "h-" + reader.ShortHash(string(rec.raw))
	}
	var source []string
	if rec.ID != "" {
		source = []string{reader.SafeID(rec.ID, annals.MaxIDBytes)}
	}
	meta := map[string]any{}
	if extra := reader.UnknownFields(rec.raw, gmKnown...); len(extra) > 0 {
		meta["extra"] = reader.SizedJSON(extra)
	}
	text := gmText(rec.Content)
	if text == "" {
		text = gmText(rec.Parts)
	}
	var ops []annals.CaptureOp
	var entries []*annals.Entry
	appendEntry := func(e *annals.Entry) {
		e.Time, e.SourceIDs = ts, source
		entries = append(entries, e)
	}
	switch rec.Type {
	case "user":
		kind := annals.KindUser
		if gmInitPrompt(text) {
			// The prompt /init submits in the person's stead: not what they typed.
			kind, meta["meta"], meta["command"] = annals.KindSystem, true, "/init"
		}
		appendEntry(&annals.Entry{ID: reader.EntryID(base, -1), Kind: kind, Text: reader.ValidText(text), Metadata: reader.Metadata(meta)})
	case "gemini", "model", "assistant":
		runID := ""
		if rec.Tokens != nil || rec.Model != "" {
			runID = reader.SafeID(chatID+"/"+base, annals.MaxIDBytes)
			ops = append(ops, annals.CaptureOp{Run: gmRun(runID, chatID, rec, ts)})
		}
		if rec.Model != "" {
			meta["model"] = rec.Model
		}
		reasoning := gmThoughts(rec.Thoughts)
		if text != "" || reasoning != "" || len(rec.ToolCalls) == 0 {
			appendEntry(&annals.Entry{ID: reader.EntryID(base, -1), Kind: annals.KindAssistant, RunID: runID, Text: reader.ValidText(text), Reasoning: reader.ValidText(reasoning), Metadata: reader.Metadata(meta)})
		}
		for i, tc := range rec.ToolCalls {
			e := gmToolEntry(base, i, tc, runID)
			appendEntry(e)
			if t := reader.ParseTime(tc.Timestamp); !t.IsZero() {
				e.Time = t
			}
		}
	case "info", "error", "warning":
		meta["level"] = rec.Type
		appendEntry(&annals.Entry{ID: reader.EntryID(base, -1), Kind: annals.KindSystem, Text: reader.ValidText(text), Metadata: reader.Metadata(meta)})
	default:
		if len(rec.raw) > 0 {
			meta["record"] = reader.SizedJSON(rec.raw)
		}
		appendEntry(&annals.Entry{ID: reader.EntryID(base, -1), Kind: annals.KindEvent, Channel: "gemini-cli/" + reader.ChannelPart(rec.Type), Text: reader.ValidText(text), Metadata: reader.Metadata(meta)})
	}
	// A reply's record is stamped when it was written, after the calls it made: its entries
	// go in time order, so a call comes before the reply that followed it.
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time.Before(entries[j].Time) })
	for _, e := range entries {
		ops = append(ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}})
	}
	return ops
}

// gmInitPrompt reports whether a user message is the prompt Gemini CLI's /init command sends
// (packages/core/src/commands/init.ts: it asks the model to write GEMINI.md).
func gmInitPrompt(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "You are an AI agent that brings the power of Gemini directly into the terminal.") &&
		strings.Contains(text, "GEMINI.md")
}

// gmRun is the run of one model reply.
func gmRun(runID, chatID string, rec *gmRecord, ts time.Time) *annals.Run {
	run := &annals.Run{ID: runID, ChatID: chatID, Status: annals.StatusCompleted, StartedAt: ts, Model: reader.SafeID(rec.Model, annals.MaxIDBytes)}
	if t := rec.Tokens; t != nil {
		// input counts the prompt (cached tokens included); output counts the reply,
		// thoughts and tool-call tokens.
		run.InputTokens = reader.ClampTokens(t.Input)
		run.CacheReadTokens = min(reader.ClampTokens(t.Cached), run.InputTokens)
		run.ContextTokens = run.InputTokens // one reply, one model call
		run.OutputTokens = reader.ClampTokens(t.Output) + reader.ClampTokens(t.Thoughts) + reader.ClampTokens(t.Tool)
	}
	return run
}

// gmThoughts joins a reply's thoughts, each "subject: description".
func gmThoughts(ths []gmThought) string {
	var thoughts []string
	for _, th := range ths {
		switch {
		case th.Subject != "" && th.Description != "":
			thoughts = append(thoughts, th.Subject+": "+th.Description)
		default:
			thoughts = append(thoughts, th.Subject+th.Description)
		}
	}
	return strings.Join(reader.DropBlank(thoughts), "\n\n")
}

// gmToolEntry is the entry of a reply's tool call i, its result included.
func gmToolEntry(base string, i int, tc gmToolCall, runID string) *annals.Entry {
	name := tc.Name
	if name == "" {
		name = "unknown"
	}
	args := tc.Args
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = nil
	} else {
		var buf bytes.Buffer
		if json.Compact(&buf, args) == nil {
			args = buf.Bytes()
		}
	}
	tm := map[string]any{}
	if tc.DisplayName != "" {
		tm["display_name"] = tc.DisplayName
	}
	return &annals.Entry{ID: reader.EntryID(base, i+1), Kind: annals.KindTool, RunID: runID,
		Tool: &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), CallID: reader.SafeID(tc.ID, annals.MaxIDBytes), Arguments: args,
			Result: gmResult(tc), Outcome: Outcome(tc.Status)},
		Metadata: reader.Metadata(tm)}
}

// gmText reads content that is a string, or a list of parts with text.
func gmText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		return gmString(raw)
	}
	var parts []struct {
		Text       *string         `json:"text"`
		InlineData json.RawMessage `json:"inlineData"`
		FileData   json.RawMessage `json:"fileData"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.Text != nil:
			texts = append(texts, *p.Text)
		case len(p.InlineData) > 0 || len(p.FileData) > 0:
			texts = append(texts, "[attachment]")
		}
	}
	return strings.Join(texts, "\n")
}

// gmResult flattens a tool call's functionResponse parts, else its display text.
func gmResult(tc gmToolCall) string {
	var parts []struct {
		FunctionResponse *struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
		Text *string `json:"text"`
	}
	var texts []string
	if json.Unmarshal(tc.Result, &parts) == nil {
		for _, p := range parts {
			switch {
			case p.FunctionResponse != nil:
				var resp struct {
					Output *string `json:"output"`
					Error  *string `json:"error"`
				}
				if json.Unmarshal(p.FunctionResponse.Response, &resp) == nil && (resp.Output != nil || resp.Error != nil) {
					if resp.Output != nil {
						texts = append(texts, *resp.Output)
					}
					if resp.Error != nil {
						texts = append(texts, *resp.Error)
					}
				} else if len(p.FunctionResponse.Response) > 0 {
					texts = append(texts, string(p.FunctionResponse.Response))
				}
			case p.Text != nil:
				texts = append(texts, *p.Text)
			}
		}
	}
	if len(texts) == 0 {
		if s := gmString(tc.ResultDisplay); s != "" {
			texts = append(texts, s)
		}
	}
	return reader.ValidText(strings.Join(texts, "\n"))
}

func Outcome(status string) annals.Outcome {
	switch strings.ToLower(status) {
	case "success", "succeeded", "completed":
		return annals.OutcomeSucceeded
	case "error", "failed":
		return annals.OutcomeFailed
	case "cancelled", "canceled":
		return annals.OutcomeCancelled
	case "rejected", "denied":
		return annals.OutcomeBlocked
	}
	return ""
}
