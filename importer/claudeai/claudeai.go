// Package claudeai reads claude.ai's data export for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package claudeai

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ClaudeAI imports the conversations of a claude.ai data export (Settings → Privacy → Export
// data: a zip holding conversations.json, users.json and projects.json). conversations.json is
// an array of {uuid, name, summary, created_at, updated_at, account, chat_messages: [{uuid,
// text, content: [blocks], sender: human|assistant, created_at, updated_at, attachments,
// files, parent_message_uuid}]}; the blocks are Anthropic's (text, thinking, tool_use,
// tool_result, token_budget), each with start_timestamp and stop_timestamp. The file is read
// whole; entry ids are <message uuid>#<block>.
type ClaudeAI struct{}

func (ClaudeAI) Name() string { return "claude-ai" }

func (ClaudeAI) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, "Downloads", "data-*", "conversations.json")}
}

// Detect claims a JSON array whose first conversation has claude.ai's chat_messages.
func (ClaudeAI) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json") {
		return false
	}
	h := strings.TrimSpace(string(head))
	if !strings.HasPrefix(h, "[") {
		return false
	}
	i := strings.Index(h, "{")
	if i < 0 {
		return false
	}
	f := reader.PrefixFields([]byte(h[i:]))
	return reader.HasFields(f, "uuid") && (reader.HasFields(f, "chat_messages") || reader.HasFields(f, "account")) && !reader.HasFields(f, "mapping")
}

func (f ClaudeAI) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll("claude-ai", 4<<30)
	if err != nil {
		return err
	}
	var convs []json.RawMessage
	if err := json.Unmarshal(data, &convs); err != nil {
		return fmt.Errorf("claude-ai: %s is not an array of conversations: %w", src.Path, err)
	}
	for i, raw := range convs {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := reader.DecodeObject(raw)
		if err != nil || c.Str("uuid") == "" {
			out.Warnf(0, "conversation %d: not a conversation", i)
			continue
		}
		if err := f.conversation(c, src, out); err != nil {
			return err
		}
	}
	return nil
}

func (f ClaudeAI) conversation(c reader.JSONObject, src *reader.Source, out reader.Output) error {
	created := reader.FirstTime(reader.ParseTime(c.Str("created_at")), src.ModTime.UTC())
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), c.Str("uuid")), CreatedAt: created, Title: reader.Truncated(reader.ValidText(c.Str("name")), annals.MaxTitleBytes),
		Attributes: annals.Attributes{"source": f.Name()}}
	if s := reader.ValidText(c.Str("summary")); s != "" {
		chat.Summary = reader.Truncated(s, annals.MaxEntryBytes/8)
		if t := reader.ParseTime(c.Str("updated_at")); !t.IsZero() {
			chat.SummaryUpdatedAt = &t
		}
	}
	var entries []*annals.Entry
	open := map[string]*annals.Entry{}
	last := created
	for i, raw := range c.Arr("chat_messages") {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "%s message %d: not a JSON object", chat.ID, i)
			continue
		}
		last = reader.FirstTime(reader.ParseTime(m.Str("created_at")), last)
		id := reader.SafeID(reader.FirstNonEmpty(m.Str("uuid"), fmt.Sprintf("m%d", i)), 200)
		role := "user"
		if m.Str("sender") == "assistant" {
			role = "assistant"
		}
		blocks := m.Arr("content")
		if len(blocks) == 0 && m.Str("text") != "" {
			b, _ := json.Marshal(map[string]string{"type": "text", "text": m.Str("text")})
			blocks = []json.RawMessage{b}
		}
		var ents []*annals.Entry
		for j, b := range blocks {
			if noContent(b) {
				continue
			}
			// One block at a time, so a tool_result finds the call its own message made.
			for _, e := range reader.AnthropicBlocks([]json.RawMessage{b}, role, id, last, open, func(_ int, msg string) { out.Warnf(0, "%s message %s block %d: %s", chat.ID, id, j, msg) }) {
				e.ID = reader.EntryID(id, j)
				e.SourceIDs = []string{id}
				if t := blockTime(b); !t.IsZero() {
					e.Time = t
				}
				if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
					open[e.Tool.CallID] = e
				}
				if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
					e.Channel = "claude-ai/" + rest
				}
				ents = append(ents, e)
			}
		}
		var files []string
		for _, key := range []string{"attachments", "files"} {
			for _, a := range m.Arr(key) {
				ao, _ := reader.DecodeObject(a)
				files = append(files, ao.Str("file_name"))
			}
		}
		if files = reader.DropBlank(files); len(ents) > 0 && len(files) > 0 {
			// What was attached is named; its extracted content is not kept.
			ents[0].Metadata = reader.MergeMeta(ents[0].Metadata, map[string]any{"files": files})
		}
		entries = append(entries, ents...)
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// noContent reports a block that holds nothing to keep: the token_budget checkpoints the export
// interleaves, and the empty text blocks that mark a reply's end.
func noContent(raw json.RawMessage) bool {
	b, err := reader.DecodeObject(raw)
	if err != nil {
		return false
	}
	switch b.Str("type") {
	case "token_budget":
		return true
	case "text":
		return strings.TrimSpace(b.Str("text")) == ""
	}
	return false
}

// blockTime is a block's start_timestamp.
func blockTime(raw json.RawMessage) time.Time {
	b, err := reader.DecodeObject(raw)
	if err != nil {
		return time.Time{}
	}
	return reader.ParseTime(b.Str("start_timestamp"))
}
