// Package crush reads the histories of Crush for annals import (docs/IMPORT.md): one reader behind
// the importer/reader contracts (detect, default locations, read), listed in importer.Formats.
package crush

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Crush imports Charm's Crush agent: one SQLite database per project, .crush/crush.db
// (charmbracelet/crush, internal/db/migrations: sessions(id, parent_session_id, title,
// message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at) and
// messages(id, session_id, role, parts, model, provider, created_at, updated_at, finished_at,
// is_summary_message), times in Unix seconds). A message's parts are a JSON array of
// {"type", "data"} wrappers (internal/message): text {text}, reasoning {thinking, signature},
// tool_call {id, name, input}, tool_result {tool_call_id, name, content, is_error} (in a
// message of role tool), finish {reason, time, message}, image_url and binary.
type Crush struct{}

func (Crush) Name() string { return "crush" }

// DefaultPaths: Crush keeps its database in the project, so, as for Aider, the home folder and
// three levels below it are looked in, and its global data folder.
func (Crush) DefaultPaths(home string) []string {
	out := []string{filepath.Join(home, ".local", "share", "crush", "crush.db")}
	dir := home
	for i := 0; i < 4; i++ {
		out = append(out, filepath.Join(dir, ".crush", "crush.db"))
		dir = filepath.Join(dir, "*")
	}
	return out
}

func (Crush) Detect(path string, head []byte) bool {
	if !reader.DetectSQLiteTables(path, head, "sessions", "messages") {
		return false
	}
	db, err := reader.OpenSourceDB(context.Background(), path)
	if err != nil {
		return false
	}
	defer db.Close()
	cols, err := reader.TableColumns(context.Background(), db, "messages")
	return err == nil && cols["parts"] && cols["session_id"] && !cols["content_json"]
}

func (f Crush) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("crush: %w", err)
	}
	defer db.Close()
	// Parents first, so a sub-agent's chat points to a chat that exists.
	sessions, err := reader.QueryMaps(ctx, db, `SELECT * FROM sessions ORDER BY parent_session_id IS NOT NULL, created_at, id`)
	if err != nil {
		return fmt.Errorf("crush: reading sessions: %w", err)
	}
	msgs, err := reader.QueryMaps(ctx, db, `SELECT * FROM messages ORDER BY session_id, created_at, rowid`)
	if err != nil {
		return fmt.Errorf("crush: reading messages: %w", err)
	}
	bySession := map[string][]map[string]any{}
	for _, m := range msgs {
		sid := reader.ColString(m, "session_id")
		bySession[sid] = append(bySession[sid], m)
	}
	for _, s := range sessions {
		if err := f.session(s, bySession[reader.ColString(s, "id")], out); err != nil {
			return err
		}
	}
	return nil
}

// session emits one session: the chat (crush:<id>, parent for a sub-agent's session, the
// model of its first reply) and its entries.
func (f Crush) session(s map[string]any, msgs []map[string]any, out reader.Output) error {
	id := reader.ColString(s, "id")
	chatID := reader.ChatID(f.Name(), id)
	attrs := annals.Attributes{"source": f.Name()}
	if p := reader.ColString(s, "parent_session_id"); p != "" {
		attrs["parent"] = reader.ChatID(f.Name(), p)
	}
	for _, m := range msgs {
		if reader.ColString(m, "role") == "assistant" && reader.ColString(m, "model") != "" {
			attrs["model"] = reader.SafeID(reader.ColString(m, "model"), annals.MaxIDBytes)
			break
		}
	}
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: reader.ColTime(s, "created_at"), Title: reader.Truncated(reader.ValidText(reader.ColString(s, "title")), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	calls := map[string]*annals.Entry{}
	var entries []*annals.Entry
	for _, m := range msgs {
		entries = append(entries, crushParts(m, calls, out)...)
	}
	return reader.EmitEntries(chatID, entries, out)
}

// crushParts maps one message's parts to entries <message id>#<n>; a tool_result lands on its
// tool_call. A summary message (is_summary_message) is the compaction.
func crushParts(m map[string]any, calls map[string]*annals.Entry, out reader.Output) []*annals.Entry {
	mid := reader.ColString(m, "id")
	var parts []struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(reader.ColString(m, "parts")), &parts); err != nil {
		out.Warnf(0, "message %s: parts are not a JSON array: %v", mid, err)
		return nil
	}
	role, t := reader.ColString(m, "role"), reader.ColTime(m, "created_at")
	kind := map[string]annals.EntryKind{"user": annals.KindUser, "assistant": annals.KindAssistant, "system": annals.KindSystem}[role]
	summary := reader.ColBool(m, "is_summary_message")
	var ents []*annals.Entry
	for i, p := range parts {
		d, _ := reader.DecodeObject(p.Data)
		e := &annals.Entry{ID: reader.EntryID(reader.SafeID(mid, 200), i), Kind: kind, Time: t, SourceIDs: []string{reader.SafeID(mid, annals.MaxIDBytes)}}
		switch p.Type {
		case "text":
			e.Text = reader.ValidText(d.Str("text"))
			if summary {
				e.Kind, e.Metadata = annals.KindSystem, reader.Metadata(map[string]any{"compaction": true})
			}
		case "reasoning":
			e.Kind, e.Reasoning = annals.KindAssistant, reader.ValidText(d.Str("thinking"))
			e.Metadata = reader.Metadata(map[string]any{"encrypted_reasoning": reader.BoolOrNil(d.Str("signature") != "" || d.Str("thought_signature") != "")})
		case "tool_call":
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: reader.ToolName(d.Str("name")), CallID: reader.SafeID(d.Str("id"), annals.MaxIDBytes), Arguments: reader.RawJSON(d.Str("input"))}
			calls[d.Str("id")] = e
		case "tool_result":
			outcome := annals.OutcomeSucceeded
			if d.Boolean("is_error") {
				outcome = annals.OutcomeFailed
			}
			result := reader.Truncated(reader.ValidText(d.Str("content")), annals.MaxEntryBytes/4)
			if call := calls[d.Str("tool_call_id")]; call != nil {
				call.Tool.Result, call.Tool.Outcome = result, outcome
				call.SourceIDs = append(call.SourceIDs, e.SourceIDs...)
				delete(calls, d.Str("tool_call_id"))
				continue
			}
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: reader.ToolName(d.Str("name")), CallID: reader.SafeID(d.Str("tool_call_id"), annals.MaxIDBytes), Result: result, Outcome: outcome}
			e.Metadata = reader.Metadata(map[string]any{"orphan_result": true})
		case "finish":
			if r := d.Str("reason"); r == "error" || r == "canceled" || d.Str("message") != "" {
				e.Kind, e.Text = annals.KindSystem, reader.ValidText(reader.FirstNonEmpty(d.Str("message"), r))
				e.Metadata = reader.Metadata(map[string]any{"finish_reason": r, "details": d.Str("details")})
				break
			}
			continue // a normal end of turn: bookkeeping
		default:
			// Images and attachments: what they were is kept, their bytes are not.
			e.Kind, e.Channel = annals.KindEvent, "crush/"+reader.SanitizeChannel(reader.FirstNonEmpty(p.Type, "part"))
			e.Metadata = reader.SafeMeta(map[string]any{"part": reader.Extras(d, "data")})
		}
		if e.Kind == "" {
			e.Kind, e.Channel = annals.KindEvent, "crush/"+reader.SanitizeChannel(role)
		}
		ents = append(ents, e)
	}
	return ents
}
