package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/annals-dev/annals"
)

// crush imports Charm's Crush agent: one SQLite database per project, .crush/crush.db
// (charmbracelet/crush, internal/db/migrations: sessions(id, parent_session_id, title,
// message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at) and
// messages(id, session_id, role, parts, model, provider, created_at, updated_at, finished_at,
// is_summary_message), times in Unix seconds). A message's parts are a JSON array of
// {"type", "data"} wrappers (internal/message): text {text}, reasoning {thinking, signature},
// tool_call {id, name, input}, tool_result {tool_call_id, name, content, is_error} (in a
// message of role tool), finish {reason, time, message}, image_url and binary.
type crush struct{}

func (crush) Name() string { return "crush" }

// DefaultPaths: Crush keeps its database in the project, so, as for Aider, the home folder and
// three levels below it are looked in, and its global data folder.
func (crush) DefaultPaths(home string) []string {
	out := []string{filepath.Join(home, ".local", "share", "crush", "crush.db")}
	dir := home
	for i := 0; i < 4; i++ {
		out = append(out, filepath.Join(dir, ".crush", "crush.db"))
		dir = filepath.Join(dir, "*")
	}
	return out
}

func (crush) Detect(path string, head []byte) bool {
	if !detectSQLiteTables(path, head, "sessions", "messages") {
		return false
	}
	db, err := openSourceDB(context.Background(), path)
	if err != nil {
		return false
	}
	defer db.Close()
	cols, err := tableColumns(context.Background(), db, "messages")
	return err == nil && cols["parts"] && cols["session_id"] && !cols["content_json"]
}

func (f crush) ParseFile(ctx context.Context, src *Source, out Output) error {
	db, err := openSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("crush: %w", err)
	}
	defer db.Close()
	// Parents first, so a sub-agent's chat points to a chat that exists.
	sessions, err := queryMaps(ctx, db, `SELECT * FROM sessions ORDER BY parent_session_id IS NOT NULL, created_at, id`)
	if err != nil {
		return fmt.Errorf("crush: reading sessions: %w", err)
	}
	msgs, err := queryMaps(ctx, db, `SELECT * FROM messages ORDER BY session_id, created_at, rowid`)
	if err != nil {
		return fmt.Errorf("crush: reading messages: %w", err)
	}
	bySession := map[string][]map[string]any{}
	for _, m := range msgs {
		sid := colString(m, "session_id")
		bySession[sid] = append(bySession[sid], m)
	}
	for _, s := range sessions {
		if err := f.session(s, bySession[colString(s, "id")], out); err != nil {
			return err
		}
	}
	return nil
}

// session emits one session: the chat (crush:<id>, parent for a sub-agent's session, the
// model of its first reply) and its entries.
func (f crush) session(s map[string]any, msgs []map[string]any, out Output) error {
	id := colString(s, "id")
	chatID := ChatID(f.Name(), id)
	attrs := annals.Attributes{"source": f.Name()}
	if p := colString(s, "parent_session_id"); p != "" {
		attrs["parent"] = ChatID(f.Name(), p)
	}
	for _, m := range msgs {
		if colString(m, "role") == "assistant" && colString(m, "model") != "" {
			attrs["model"] = SafeID(colString(m, "model"), annals.MaxIDBytes)
			break
		}
	}
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: colTime(s, "created_at"), Title: Truncated(ValidText(colString(s, "title")), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
		return err
	}
	calls := map[string]*annals.Entry{}
	var entries []*annals.Entry
	for _, m := range msgs {
		entries = append(entries, crushParts(m, calls, out)...)
	}
	return emitEntries(chatID, entries, out)
}

// crushParts maps one message's parts to entries <message id>#<n>; a tool_result lands on its
// tool_call. A summary message (is_summary_message) is the compaction.
func crushParts(m map[string]any, calls map[string]*annals.Entry, out Output) []*annals.Entry {
	mid := colString(m, "id")
	var parts []struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(colString(m, "parts")), &parts); err != nil {
		out.Warnf(0, "message %s: parts are not a JSON array: %v", mid, err)
		return nil
	}
	role, t := colString(m, "role"), colTime(m, "created_at")
	kind := map[string]annals.EntryKind{"user": annals.KindUser, "assistant": annals.KindAssistant, "system": annals.KindSystem}[role]
	summary := colBool(m, "is_summary_message")
	var ents []*annals.Entry
	for i, p := range parts {
		d, _ := decodeObject(p.Data)
		e := &annals.Entry{ID: EntryID(SafeID(mid, 200), i), Kind: kind, Time: t, SourceIDs: []string{SafeID(mid, annals.MaxIDBytes)}}
		switch p.Type {
		case "text":
			e.Text = ValidText(d.str("text"))
			if summary {
				e.Kind, e.Metadata = annals.KindSystem, Metadata(map[string]any{"compaction": true})
			}
		case "reasoning":
			e.Kind, e.Reasoning = annals.KindAssistant, ValidText(d.str("thinking"))
			e.Metadata = Metadata(map[string]any{"encrypted_reasoning": boolOrNil(d.str("signature") != "" || d.str("thought_signature") != "")})
		case "tool_call":
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: copilotToolName(d.str("name")), CallID: SafeID(d.str("id"), annals.MaxIDBytes), Arguments: rawJSON(d.str("input"))}
			calls[d.str("id")] = e
		case "tool_result":
			outcome := annals.OutcomeSucceeded
			if d.boolean("is_error") {
				outcome = annals.OutcomeFailed
			}
			result := Truncated(ValidText(d.str("content")), annals.MaxEntryBytes/4)
			if call := calls[d.str("tool_call_id")]; call != nil {
				call.Tool.Result, call.Tool.Outcome = result, outcome
				call.SourceIDs = append(call.SourceIDs, e.SourceIDs...)
				delete(calls, d.str("tool_call_id"))
				continue
			}
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: copilotToolName(d.str("name")), CallID: SafeID(d.str("tool_call_id"), annals.MaxIDBytes), Result: result, Outcome: outcome}
			e.Metadata = Metadata(map[string]any{"orphan_result": true})
		case "finish":
			if r := d.str("reason"); r == "error" || r == "canceled" || d.str("message") != "" {
				e.Kind, e.Text = annals.KindSystem, ValidText(firstNonEmpty(d.str("message"), r))
				e.Metadata = Metadata(map[string]any{"finish_reason": r, "details": d.str("details")})
				break
			}
			continue // a normal end of turn: bookkeeping
		default:
			// Images and attachments: what they were is kept, their bytes are not.
			e.Kind, e.Channel = annals.KindEvent, "crush/"+sanitizeChannel(firstNonEmpty(p.Type, "part"))
			e.Metadata = safeMeta(map[string]any{"part": extras(d, "data")})
		}
		if e.Kind == "" {
			e.Kind, e.Channel = annals.KindEvent, "crush/"+sanitizeChannel(role)
		}
		ents = append(ents, e)
	}
	return ents
}
