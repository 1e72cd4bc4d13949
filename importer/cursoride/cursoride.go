// Package cursoride reads the histories of the Cursor IDE for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package cursoride

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// CursorIDE imports the chats of the Cursor editor itself (its Composer and agent panel),
// which Cursor keeps in the editor's global state database,
// <Cursor>/User/globalStorage/state.vscdb: a key-value table cursorDiskKV(key, value) where
// composerData:<composerId> holds a conversation's metadata (name, createdAt, the ordered
// bubble headers fullConversationHeadersOnly, or the bubbles themselves in conversation in
// older versions) and bubbleId:<composerId>:<bubbleId> one message: type 1 the user's, type 2
// the assistant's, with text, thinking and, for a tool call, toolFormerData {name, rawArgs,
// result, status}. The layout is reverse-engineered (not published by Cursor) and read
// read-only; the database is read whole when it changes.
type CursorIDE struct{}

func (CursorIDE) Name() string { return "cursor-ide" }

func (CursorIDE) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".config", "Cursor", "User", "globalStorage", "state.vscdb"),
		filepath.Join(home, "Library", "Application Support", "Cursor", "User", "globalStorage", "state.vscdb"),
	}
}

func (CursorIDE) Detect(path string, head []byte) bool {
	return reader.DetectSQLiteTables(path, head, "cursordiskkv")
}

func (f CursorIDE) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("cursor-ide: %w", err)
	}
	defer db.Close()
	rows, err := reader.QueryMaps(ctx, db, `SELECT key, CAST(value AS TEXT) AS value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY key`)
	if err != nil {
		return fmt.Errorf("cursor-ide: reading conversations: %w", err)
	}
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := reader.DecodeObject([]byte(reader.ColString(r, "value")))
		if err != nil {
			out.Warnf(0, "%s: not a JSON object", reader.ColString(r, "key"))
			continue
		}
		if err := f.conversation(ctx, db, strings.TrimPrefix(reader.ColString(r, "key"), "composerData:"), c, out); err != nil {
			return err
		}
	}
	return nil
}

// conversation emits one composer: its bubbles in header order (the bubble rows), or the
// inline conversation of older versions. A composer with no message makes no chat.
func (f CursorIDE) conversation(ctx context.Context, db *sql.DB, id string, c reader.JSONObject, out reader.Output) error {
	bubbles := map[string]reader.JSONObject{}
	rows, err := reader.QueryMaps(ctx, db, `SELECT key, CAST(value AS TEXT) AS value FROM cursorDiskKV WHERE key LIKE ?`, "bubbleId:"+id+":%")
	if err != nil {
		return fmt.Errorf("cursor-ide: reading the messages of %s: %w", id, err)
	}
	for _, r := range rows {
		if b, err := reader.DecodeObject([]byte(reader.ColString(r, "value"))); err == nil {
			bubbles[strings.TrimPrefix(reader.ColString(r, "key"), "bubbleId:"+id+":")] = b
		}
	}
	var ordered []reader.JSONObject
	for _, raw := range c.Arr("fullConversationHeadersOnly") {
		h, _ := reader.DecodeObject(raw)
		if b := bubbles[h.Str("bubbleId")]; b != nil {
			ordered = append(ordered, b)
		}
	}
	for _, raw := range c.Arr("conversation") {
		if b, err := reader.DecodeObject(raw); err == nil {
			ordered = append(ordered, b)
		}
	}
	created := reader.FirstTime(reader.MilliTime(c, "createdAt"), reader.ParseTime(c.Str("createdAt")))
	var entries []*annals.Entry
	for i, b := range ordered {
		entries = append(entries, cursorBubble(b, i, created)...)
	}
	if len(entries) == 0 {
		return nil
	}
	chatID := reader.ChatID(f.Name(), id)
	chat := &annals.Chat{ID: chatID, Attributes: annals.Attributes{"source": f.Name()}, CreatedAt: reader.FirstTime(created, entries[0].Time)}
	if err := out.Emit(annals.CaptureOp{Chat: chat}); err != nil {
		return err
	}
	if name := reader.ValidText(c.Str("name")); name != "" {
		out.TitleForChat(chatID, reader.Truncated(name, annals.MaxTitleBytes))
	}
	return reader.EmitEntries(chatID, entries, out)
}

// cursorBubble maps one bubble: a user message, or an assistant's text and thinking, and a
// tool call with its result. Cursor records no time on most bubbles: they take the
// conversation's.
func cursorBubble(b reader.JSONObject, i int, t time.Time) []*annals.Entry {
	id := reader.SafeID(reader.FirstNonEmpty(b.Str("bubbleId"), fmt.Sprintf("b%d", i)), 200)
	t = reader.FirstTime(reader.ParseTime(b.Str("createdAt")), reader.MilliTime(b, "createdAt"), t)
	src := []string{id}
	if b.Num("type") == 1 {
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Time: t, SourceIDs: src, Text: reader.ValidText(b.Str("text"))}}
	}
	var out []*annals.Entry
	if text, thought := b.Str("text"), b.Obj("thinking").Str("text"); text != "" || thought != "" {
		out = append(out, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, SourceIDs: src, Text: reader.ValidText(text), Reasoning: reader.ValidText(thought)})
	}
	if tf := b.Obj("toolFormerData"); tf != nil {
		outcome := annals.Outcome("")
		switch tf.Str("status") {
		case "completed", "success":
			outcome = annals.OutcomeSucceeded
		case "error", "failed":
			outcome = annals.OutcomeFailed
		case "cancelled", "rejected":
			outcome = annals.OutcomeCancelled
		}
		out = append(out, &annals.Entry{ID: id + "#tool", Kind: annals.KindTool, Time: t, SourceIDs: src, Tool: &annals.ToolCall{
			Name: reader.ToolName(tf.Str("name")), CallID: reader.SafeID(tf.Str("toolCallId"), annals.MaxIDBytes), Arguments: reader.RawJSON(tf.Str("rawArgs")),
			Result: reader.Truncated(reader.ValidText(tf.Str("result")), annals.MaxEntryBytes/4), Outcome: outcome}})
	}
	return out
}
