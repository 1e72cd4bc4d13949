package importer

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// cursorIDE imports the chats of the Cursor editor itself (its Composer and agent panel),
// which Cursor keeps in the editor's global state database,
// <Cursor>/User/globalStorage/state.vscdb: a key-value table cursorDiskKV(key, value) where
// composerData:<composerId> holds a conversation's metadata (name, createdAt, the ordered
// bubble headers fullConversationHeadersOnly, or the bubbles themselves in conversation in
// older versions) and bubbleId:<composerId>:<bubbleId> one message: type 1 the user's, type 2
// the assistant's, with text, thinking and, for a tool call, toolFormerData {name, rawArgs,
// result, status}. The layout is reverse-engineered (not published by Cursor) and read
// read-only; the database is read whole when it changes.
type cursorIDE struct{}

func (cursorIDE) Name() string { return "cursor-ide" }

func (cursorIDE) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".config", "Cursor", "User", "globalStorage", "state.vscdb"),
		filepath.Join(home, "Library", "Application Support", "Cursor", "User", "globalStorage", "state.vscdb"),
	}
}

func (cursorIDE) Detect(path string, head []byte) bool {
	return detectSQLiteTables(path, head, "cursordiskkv")
}

func (f cursorIDE) ParseFile(ctx context.Context, src *Source, out Output) error {
	db, err := openSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("cursor-ide: %w", err)
	}
	defer db.Close()
	rows, err := queryMaps(ctx, db, `SELECT key, CAST(value AS TEXT) AS value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY key`)
	if err != nil {
		return fmt.Errorf("cursor-ide: reading conversations: %w", err)
	}
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := decodeObject([]byte(colString(r, "value")))
		if err != nil {
			out.Warnf(0, "%s: not a JSON object", colString(r, "key"))
			continue
		}
		if err := f.conversation(ctx, db, strings.TrimPrefix(colString(r, "key"), "composerData:"), c, out); err != nil {
			return err
		}
	}
	return nil
}

// conversation emits one composer: its bubbles in header order (the bubble rows), or the
// inline conversation of older versions. A composer with no message makes no chat.
func (f cursorIDE) conversation(ctx context.Context, db *sql.DB, id string, c jsonObject, out Output) error {
	bubbles := map[string]jsonObject{}
	rows, err := queryMaps(ctx, db, `SELECT key, CAST(value AS TEXT) AS value FROM cursorDiskKV WHERE key LIKE ?`, "bubbleId:"+id+":%")
	if err != nil {
		return fmt.Errorf("cursor-ide: reading the messages of %s: %w", id, err)
	}
	for _, r := range rows {
		if b, err := decodeObject([]byte(colString(r, "value"))); err == nil {
			bubbles[strings.TrimPrefix(colString(r, "key"), "bubbleId:"+id+":")] = b
		}
	}
	var ordered []jsonObject
	for _, raw := range c.arr("fullConversationHeadersOnly") {
		h, _ := decodeObject(raw)
		if b := bubbles[h.str("bubbleId")]; b != nil {
			ordered = append(ordered, b)
		}
	}
	for _, raw := range c.arr("conversation") {
		if b, err := decodeObject(raw); err == nil {
			ordered = append(ordered, b)
		}
	}
	created := firstTime(ocTime(c, "createdAt"), ParseTime(c.str("createdAt")))
	var entries []*annals.Entry
	for i, b := range ordered {
		entries = append(entries, cursorBubble(b, i, created)...)
	}
	if len(entries) == 0 {
		return nil
	}
	chatID := ChatID(f.Name(), id)
	chat := &annals.Chat{ID: chatID, Attributes: annals.Attributes{"source": f.Name()}, CreatedAt: firstTime(created, entries[0].Time)}
	if err := out.Emit(annals.CaptureOp{Chat: chat}); err != nil {
		return err
	}
	if name := ValidText(c.str("name")); name != "" {
		out.TitleForChat(chatID, Truncated(name, annals.MaxTitleBytes))
	}
	return emitEntries(chatID, entries, out)
}

// cursorBubble maps one bubble: a user message, or an assistant's text and thinking, and a
// tool call with its result. Cursor records no time on most bubbles: they take the
// conversation's.
func cursorBubble(b jsonObject, i int, t time.Time) []*annals.Entry {
	id := SafeID(firstNonEmpty(b.str("bubbleId"), fmt.Sprintf("b%d", i)), 200)
	t = firstTime(ParseTime(b.str("createdAt")), ocTime(b, "createdAt"), t)
	src := []string{id}
	if b.num("type") == 1 {
		return []*annals.Entry{{ID: id, Kind: annals.KindUser, Time: t, SourceIDs: src, Text: ValidText(b.str("text"))}}
	}
	var out []*annals.Entry
	if text, thought := b.str("text"), b.obj("thinking").str("text"); text != "" || thought != "" {
		out = append(out, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: t, SourceIDs: src, Text: ValidText(text), Reasoning: ValidText(thought)})
	}
	if tf := b.obj("toolFormerData"); tf != nil {
		outcome := annals.Outcome("")
		switch tf.str("status") {
		case "completed", "success":
			outcome = annals.OutcomeSucceeded
		case "error", "failed":
			outcome = annals.OutcomeFailed
		case "cancelled", "rejected":
			outcome = annals.OutcomeCancelled
		}
		out = append(out, &annals.Entry{ID: id + "#tool", Kind: annals.KindTool, Time: t, SourceIDs: src, Tool: &annals.ToolCall{
			Name: copilotToolName(tf.str("name")), CallID: SafeID(tf.str("toolCallId"), annals.MaxIDBytes), Arguments: rawJSON(tf.str("rawArgs")),
			Result: Truncated(ValidText(tf.str("result")), annals.MaxEntryBytes/4), Outcome: outcome}})
	}
	return out
}
