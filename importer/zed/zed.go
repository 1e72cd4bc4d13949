// Package zed reads the agent threads of the Zed editor for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package zed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Zed imports the threads of Zed's agent panel, as Zed writes them (crates/agent/src/db.rs in
// github.com/zed-industries/zed, ThreadsDatabase): one SQLite database,
// <data dir>/threads/threads.db, with a table threads(id, summary, updated_at, data_type,
// data, parent_id, folder_paths, folder_paths_order, created_at). data is the thread as JSON,
// zstd-compressed when data_type is "zstd" (what Zed writes) or plain when "json". The JSON is
// DbThread version 0.3.0, serde's externally tagged enums: {title, messages: [{"User": {id,
// content: [{"Text": s} | {"Mention": {uri, content}} | {"Image": {…}}]}} | {"Agent": {content:
// [{"Text": s} | {"Thinking": {text, signature}} | {"RedactedThinking": s} | {"ToolUse": {id,
// name, raw_input, input}}], tool_results: {<id>: {tool_use_id, tool_name, is_error, content:
// {"Text": s} | {"Image": …}, output}}}} | "Resume"], updated_at, detailed_summary,
// request_token_usage: {<user message id>: {input_tokens, output_tokens, …}}, model: {provider,
// model}, subagent_context}. Messages carry no time: a thread's first entry is dated at its
// created_at, its last at updated_at. A sub-agent's thread names its parent in parent_id.
type Zed struct{}

func (Zed) Name() string { return "zed" }

// DefaultPaths: Zed's data directory (paths::data_dir) on Linux and on macOS.
func (Zed) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".local", "share", "zed", "threads", "threads.db"),
		filepath.Join(home, "Library", "Application Support", "Zed", "threads", "threads.db"),
	}
}

// Detect claims a SQLite database whose threads table has Zed's columns.
func (Zed) Detect(path string, head []byte) bool {
	if !reader.DetectSQLiteTables(path, head, "threads") {
		return false
	}
	ctx := context.Background()
	db, err := reader.OpenSourceDB(ctx, path)
	if err != nil {
		return false
	}
	defer db.Close()
	cols, err := reader.TableColumns(ctx, db, "threads")
	return err == nil && cols["summary"] && cols["data_type"] && cols["data"] && cols["updated_at"]
}

// maxThreadBytes bounds one decompressed thread: a corrupt or hostile row must not take the
// importer's memory.
const maxThreadBytes = 256 << 20

func (f Zed) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("zed: %w", err)
	}
	defer db.Close()
	cols, err := reader.TableColumns(ctx, db, "threads")
	if err != nil {
		return fmt.Errorf("zed: %w", err)
	}
	q := `SELECT id, summary, updated_at, data_type, data, ` + optional(cols, "parent_id") + `, ` + optional(cols, "folder_paths") + `, ` + optional(cols, "created_at") +
		` FROM threads ORDER BY ` + optional(cols, "parent_id") + ` IS NOT NULL, updated_at, id`
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("zed: reading threads: %w", err)
	}
	defer rows.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxThreadBytes))
	if err != nil {
		return fmt.Errorf("zed: %w", err)
	}
	defer dec.Close()
	for rows.Next() {
		var t row
		if err := rows.Scan(&t.id, &t.summary, &t.updatedAt, &t.dataType, &t.data, &t.parent, &t.folders, &t.createdAt); err != nil {
			return fmt.Errorf("zed: reading threads: %w", err)
		}
		doc, err := t.decode(dec)
		if err != nil {
			out.Warnf(0, "thread %s: %v", reader.SafeID(t.id, 80), err)
			continue
		}
		if err := f.thread(t, doc, out); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("zed: reading threads: %w", err)
	}
	return nil
}

// optional names a column the table may lack (the columns Zed added later), else NULL.
func optional(cols map[string]bool, col string) string {
	if cols[col] {
		return col
	}
	return "NULL"
}

type row struct {
	id, summary, updatedAt, dataType string
	data                             []byte
	parent, folders, createdAt       *string
}

func (t row) decode(dec *zstd.Decoder) (reader.JSONObject, error) {
	data := t.data
	switch t.dataType {
	case "json":
	case "zstd":
		if err := dec.Reset(bytes.NewReader(t.data)); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		b, err := io.ReadAll(io.LimitReader(dec, maxThreadBytes+1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if len(b) > maxThreadBytes {
			return nil, fmt.Errorf("over %d bytes decompressed", maxThreadBytes)
		}
		data = b
	default:
		return nil, fmt.Errorf("data_type %q is not json or zstd", reader.SafeID(t.dataType, 40))
	}
	return reader.DecodeObject(data)
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// thread emits one thread: the chat, one run per prompt with its token usage, and the entries.
func (f Zed) thread(t row, doc reader.JSONObject, out reader.Output) error {
	updated := reader.ParseTime(t.updatedAt)
	created := reader.FirstTime(reader.ParseTime(str(t.createdAt)), updated)
	chatID := reader.ChatID(f.Name(), t.id)
	model := doc.Obj("model")
	attrs := annals.Attributes{"source": f.Name(), "model": reader.SafeID(model.Str("model"), annals.MaxIDBytes), "provider": reader.SafeID(model.Str("provider"), annals.MaxIDBytes)}
	if folders := strings.Split(str(t.folders), "\n"); folders[0] != "" {
		attrs["cwd"] = folders[0]
	}
	if p := str(t.parent); p != "" {
		attrs["parent"] = reader.ChatID(f.Name(), p)
		attrs["subagent"] = reader.SafeID(t.id, annals.MaxIDBytes)
	}
	chat := &annals.Chat{ID: chatID, CreatedAt: created, Title: reader.FirstNonEmpty(doc.Str("title"), t.summary), Summary: doc.Str("detailed_summary"), Attributes: attrs}
	entries, runs := messages(chatID, doc, created, out)
	if n := len(entries); n > 1 && updated.After(created) {
		entries[n-1].Time = updated
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	for _, r := range runs {
		if err := out.Emit(annals.CaptureOp{Run: r}); err != nil {
			return err
		}
	}
	return reader.EmitEntries(chatID, entries, out)
}

// messages maps the thread's messages to entries, ids <user message id>[#part] for a prompt and
// <prompt id>/a<n>[#part] for the replies after it (Zed gives only prompts ids), and a run per
// prompt that has token usage; the replies after a prompt are its run's.
func messages(chatID string, doc reader.JSONObject, t time.Time, out reader.Output) ([]*annals.Entry, []*annals.Run) {
	usage := doc.Obj("request_token_usage")
	model := reader.SafeID(doc.Obj("model").Str("model"), annals.MaxIDBytes)
	var all []*annals.Entry
	var runs []*annals.Run
	turn, runID, reply := "start", "", 0
	for i, raw := range doc.Arr("messages") {
		if reader.TextOf(raw) == "Resume" {
			all = append(all, &annals.Entry{ID: reader.SafeID(fmt.Sprintf("%s/resume%d", turn, i), 200), Kind: annals.KindEvent, Channel: "zed/resume", Time: t, Text: "Continue where you left off"})
			continue
		}
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "message %d: not a JSON object", i+1)
			continue
		}
		if u := m.Obj("User"); u != nil {
			turn, runID, reply = reader.SafeID(reader.FirstNonEmpty(u.Str("id"), fmt.Sprintf("m%d", i+1)), 200), "", 0
			if tu := usage.Obj(u.Str("id")); tu != nil {
				runID = reader.SafeID(chatID+"/"+turn, annals.MaxIDBytes)
				read, made := reader.ClampTokens(int64(tu.Num("cache_read_input_tokens"))), reader.ClampTokens(int64(tu.Num("cache_creation_input_tokens")))
				runs = append(runs, &annals.Run{ID: runID, ChatID: chatID, Status: annals.StatusCompleted, Model: model, StartedAt: t,
					InputTokens:     reader.ClampTokens(int64(tu.Num("input_tokens"))) + read + made,
					CacheReadTokens: read, CacheCreationTokens: made,
					OutputTokens: reader.ClampTokens(int64(tu.Num("output_tokens")))})
			}
			all = append(all, userParts(turn, u.Arr("content"), t)...)
			continue
		}
		if a := m.Obj("Agent"); a != nil {
			reply++
			ents := agentParts(fmt.Sprintf("%s/a%d", turn, reply), a, t)
			for _, e := range ents {
				e.RunID = runID
			}
			all = append(all, ents...)
			continue
		}
		out.Warnf(0, "message %d: neither User, Agent nor Resume", i+1)
	}
	return all, runs
}

// userParts maps a prompt's content: text joined into the prompt, each mention (a file, a
// symbol, a thread the person attached) an event naming it, an image an event.
func userParts(id string, parts []json.RawMessage, t time.Time) []*annals.Entry {
	var texts []string
	var extra []*annals.Entry
	for j, raw := range parts {
		p, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		switch {
		case p.Raw("Text") != nil:
			texts = append(texts, p.Str("Text"))
		case p.Obj("Mention") != nil:
			mn := p.Obj("Mention")
			extra = append(extra, &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindEvent, Channel: "zed/mention", Time: t, Text: mentionName(mn.Raw("uri")),
				Metadata: reader.SafeMeta(map[string]any{"uri": reader.SizedJSON(mn.Raw("uri")), "content_bytes": len(mn.Str("content"))})})
		case p.Raw("Image") != nil:
			extra = append(extra, &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindEvent, Channel: "zed/image", Time: t, Text: "image"})
		}
	}
	prompt := &annals.Entry{ID: id, Kind: annals.KindUser, Time: t, Text: reader.ValidText(strings.Join(texts, "\n"))}
	return append([]*annals.Entry{prompt}, extra...)
}

// mentionName renders a mention's uri, {"File": {"abs_path": …}} and the like, as its kind and
// path or name.
func mentionName(raw json.RawMessage) string {
	o, err := reader.DecodeObject(raw)
	if err != nil {
		return "mention " + reader.TextOf(raw)
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := o.Obj(k)
		return strings.TrimSpace(strings.ToLower(k) + " " + reader.FirstNonEmpty(v.Str("abs_path"), v.Str("name"), v.Str("url"), v.Str("title"), v.Str("id")))
	}
	return "mention"
}

// agentParts maps one reply: text and thinking into the reply entry, each tool use an entry
// paired with its result from the reply's tool_results.
func agentParts(id string, a reader.JSONObject, t time.Time) []*annals.Entry {
	results := a.Obj("tool_results")
	reply := &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t}
	var texts, thoughts []string
	var tools []*annals.Entry
	redacted := false
	for j, raw := range a.Arr("content") {
		p, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		switch {
		case p.Raw("Text") != nil:
			texts = append(texts, p.Str("Text"))
		case p.Obj("Thinking") != nil:
			thoughts = append(thoughts, p.Obj("Thinking").Str("text"))
		case p.Raw("RedactedThinking") != nil:
			redacted = true // encrypted: only its presence is kept
		case p.Obj("ToolUse") != nil:
			tools = append(tools, toolUse(reader.EntryID(id, j+1), p.Obj("ToolUse"), results, t))
		}
	}
	reply.Text, reply.Reasoning = reader.ValidText(strings.Join(texts, "\n")), reader.ValidText(strings.Join(thoughts, "\n"))
	reply.Metadata = reader.SafeMeta(map[string]any{"redacted_thinking": reader.BoolOrNil(redacted)})
	if reply.Text == "" && reply.Reasoning == "" {
		return tools
	}
	return append([]*annals.Entry{reply}, tools...)
}

func toolUse(id string, u, results reader.JSONObject, t time.Time) *annals.Entry {
	callID := u.Str("id")
	args := u.Raw("input")
	if args == nil || string(args) == "null" {
		args = reader.JSONString(u.Str("raw_input"))
	}
	e := &annals.Entry{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(u.Str("name")), CallID: reader.SafeID(callID, annals.MaxIDBytes), Arguments: reader.CallArgs(args)}}
	if r := results.Obj(callID); r != nil {
		content := r.Obj("content")
		text := reader.TextOf(r.Raw("content"))
		if content != nil {
			text = reader.FirstNonEmpty(content.Str("Text"), content.Str("text"))
			if content.Raw("Image") != nil {
				text = "image"
			}
		}
		e.Tool.Result = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/4)
		e.Tool.Outcome = annals.OutcomeSucceeded
		if r.Boolean("is_error") {
			e.Tool.Outcome = annals.OutcomeFailed
		}
	}
	return e
}
