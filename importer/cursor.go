package importer

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// cursor imports Cursor's agent transcripts: one JSON Lines file per conversation under
// ~/.cursor/projects/<project>/agent-transcripts/ (<id>.jsonl, or <id>/<id>.jsonl; a sub-agent's
// transcript sits in a subagents/ directory under its parent's). Each line is one message
// {"role", "message": {"content": [blocks]}} with Anthropic-style blocks (text, thinking,
// tool_use, tool_result). The lines carry no ids and no times, and tool calls no ids either, so
// entry ids come from line numbers (stable, since the file only grows) and entry times from
// the file's modification time.
type cursor struct{}

func (cursor) Name() string { return "cursor" }

func (cursor) Detect(path string, head []byte) bool {
	if head == nil || !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if !bytes.HasPrefix(h, []byte(`{"role":`)) || !bytes.Contains(h, []byte(`"message":{"content":`)) {
		return false
	}
	return true
}

func (cursor) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".cursor", "projects", "*", "agent-transcripts", "**", "*.jsonl"),
	}
}

// cursorState is what a transcript needs to resume: the chat exists once emitted.
type cursorState struct {
	Emitted bool `json:"emitted,omitempty"`
}

func (f cursor) NewSession(src *Source, state json.RawMessage) (LineSession, error) {
	s := &cursorSession{format: f.Name(), path: src.Path, when: src.ModTime.UTC()}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("cursor: bad import state: %w", err)
		}
	}
	id, parent, project := cursorPathIDs(src.Path)
	s.chatID = ChatID(f.Name(), id)
	s.attrs = annals.Attributes{"source": f.Name()}
	if parent != "" {
		s.attrs["parent"] = ChatID(f.Name(), parent)
	}
	if project != "" {
		s.attrs["project"] = project
	}
	return s, nil
}

// cursorPathIDs reads a transcript path: the conversation id (the file name), the parent
// conversation of a sub-agent transcript, and the project directory's name.
func cursorPathIDs(path string) (id, parent, project string) {
	base := filepath.Base(path)
	id = strings.TrimSuffix(base, filepath.Ext(base))
	parts := strings.Split(filepath.ToSlash(filepath.Dir(path)), "/")
	for i, p := range parts {
		if p == "agent-transcripts" && i > 0 {
			project = parts[i-1]
		}
		if p == "subagents" && i > 0 {
			parent = parts[i-1]
		}
	}
	return id, parent, project
}

type cursorSession struct {
	format string
	path   string
	when   time.Time
	chatID string
	attrs  annals.Attributes
	st     cursorState
	// open holds the tool calls of the previous line that have ids, waiting for a result on
	// the next line; they are emitted with that line.
	open    map[string]*annals.Entry
	pending []*annals.Entry
}

func (s *cursorSession) Settled() bool { return len(s.pending) == 0 }

func (s *cursorSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("cursor: saving state: %w", err)
	}
	return b, nil
}

func (s *cursorSession) Finish(ctx context.Context, out Output) error { return s.flush(out) }

func (s *cursorSession) flush(out Output) error {
	s.open = nil
	if len(s.pending) == 0 {
		return nil
	}
	ents := s.pending
	s.pending = nil
	return out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: s.chatID, Entries: ents}})
}

func (s *cursorSession) Line(ctx context.Context, n int, line []byte, out Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	if !s.st.Emitted {
		s.st.Emitted = true
		if err := out.Emit(annals.CaptureOp{Chat: cleanChat(&annals.Chat{ID: s.chatID, Attributes: s.attrs, CreatedAt: s.when})}); err != nil {
			return err
		}
	}
	obj, err := decodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	msg := obj.obj("message")
	role := firstNonEmpty(obj.str("role"), msg.str("role"))
	t := firstTime(ParseTime(obj.str("timestamp")), ParseTime(obj.str("createdAt")), s.when)
	meta := extras(obj, "role", "message", "timestamp", "createdAt")
	blocks := msg.arr("content")
	if blocks == nil {
		if str := msg.str("content"); str != "" {
			b, _ := json.Marshal(map[string]string{"type": "text", "text": str})
			blocks = []json.RawMessage{b}
		}
	}
	// Calls of the previous line wait only for this line: Cursor records results, when it
	// records them at all, right after their call.
	hasResult := false
	for _, b := range blocks {
		if bo, err := decodeObject(b); err == nil && (bo.str("type") == "tool_result" || bo.str("type") == "tool-result") {
			hasResult = true
		}
	}
	if !hasResult {
		if err := s.flush(out); err != nil {
			return err
		}
	}
	ents := anthropicBlocks(blocks, role, fmt.Sprintf("L%d", n), t, s.open, func(i int, msg string) { out.Warnf(n, "content[%d]: %s", i, msg) })
	if len(ents) == 0 && meta != nil {
		ents = append(ents, &annals.Entry{ID: EntryID(fmt.Sprintf("L%d", n), -1), Kind: annals.KindEvent, Channel: "cursor/" + sanitizeChannel(firstNonEmpty(role, "unknown")), Time: t})
	}
	if len(ents) > 0 && meta != nil {
		ents[0].Metadata = mergeMeta(ents[0].Metadata, map[string]any{"line": meta})
	}
	for _, e := range ents {
		if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Outcome == "" && e.Tool.Result == "" {
			if s.open == nil {
				s.open = map[string]*annals.Entry{}
			}
			s.open[e.Tool.CallID] = e
		}
	}
	s.pending = append(s.pending, ents...)
	if len(s.open) == 0 {
		return s.flush(out)
	}
	return nil
}

func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// anthropicBlocks maps the content blocks of one message (Anthropic Messages style, which
// Cursor's transcripts use, or Vercel AI SDK style, which its store.db uses) to entries with ids
// msgID#i. A tool result whose call is in open fills that call's entry instead of making one.
func anthropicBlocks(blocks []json.RawMessage, role, msgID string, t time.Time, open map[string]*annals.Entry, warn func(int, string)) []*annals.Entry {
	kind := annals.KindUser
	switch role {
	case "assistant", "model":
		kind = annals.KindAssistant
	case "system", "developer":
		kind = annals.KindSystem
	}
	var out []*annals.Entry
	for i, raw := range blocks {
		b, err := decodeObject(raw)
		if err != nil {
			if len(raw) > 0 && raw[0] == '"' {
				out = append(out, &annals.Entry{ID: EntryID(msgID, i), Kind: kind, Time: t, Text: ValidText(textOf(raw))})
				continue
			}
			warn(i, "not a JSON object")
			continue
		}
		e := &annals.Entry{ID: EntryID(msgID, i), Kind: kind, Time: t}
		typ := b.str("type")
		switch typ {
		case "text", "input_text", "output_text", "":
			txt := b.str("text")
			if typ == "" && txt == "" {
				e.Kind = annals.KindEvent
				e.Channel = "cursor/block"
				e.Metadata = safeMeta(map[string]any{"block": extras(b)})
				break
			}
			meta := map[string]any{"extra": extras(b, "type", "text")}
			if kind == annals.KindUser {
				if inner, ok := stripTag(txt, "user_query"); ok {
					txt = inner
					meta["wrapped_in"] = "user_query"
				}
			}
			if strings.TrimSpace(txt) == "[REDACTED]" {
				// Cursor writes this where it withheld the model's reasoning: a marker, not
				// the model's words.
				txt = ""
				meta["redacted"] = true
			}
			e.Text = ValidText(txt)
			e.Metadata = Metadata(meta)
		case "thinking", "reasoning":
			e.Kind = annals.KindAssistant
			e.Reasoning = ValidText(firstNonEmpty(b.str("thinking"), b.str("text")))
			_, dropped := scrubOpaque(raw)
			e.Metadata = safeMeta(map[string]any{"encrypted_reasoning": boolOrNil(dropped || b.str("signature") != ""),
				"extra": extras(b, "type", "thinking", "text", "signature", "providerOptions", "providerMetadata")})
		case "redacted_thinking", "redacted-reasoning":
			// Encrypted reasoning: never rendered, only its presence is recorded.
			e.Kind = annals.KindAssistant
			e.Metadata = safeMeta(map[string]any{"redacted_thinking": true})
		case "tool_use", "tool-call":
			e.Kind = annals.KindTool
			args := b.raw("input")
			if args == nil {
				args = b.raw("args")
			}
			if args == nil {
				args = b.raw("arguments")
			}
			e.Tool = &annals.ToolCall{
				Name:      copilotToolName(firstNonEmpty(b.str("name"), b.str("toolName"))),
				CallID:    SafeID(firstNonEmpty(b.str("id"), b.str("toolCallId")), annals.MaxIDBytes),
				Arguments: copilotArgs(args),
			}
			e.Metadata = safeMeta(map[string]any{"extra": extras(b, "type", "name", "toolName", "id", "toolCallId", "input", "args", "arguments")})
		case "tool_result", "tool-result":
			callID := firstNonEmpty(b.str("tool_use_id"), b.str("toolCallId"))
			res := b.raw("content")
			if res == nil {
				res = b.raw("result")
			}
			if res == nil {
				res = b.raw("output")
			}
			result := Truncated(ValidText(blocksText(res)), annals.MaxEntryBytes/4)
			outcome := annals.OutcomeSucceeded
			if b.boolean("is_error") || b.boolean("isError") {
				outcome = annals.OutcomeFailed
			}
			if call := open[callID]; callID != "" && call != nil {
				call.Tool.Result, call.Tool.Outcome = result, outcome
				delete(open, callID)
				continue
			}
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: copilotToolName(b.str("toolName")), CallID: SafeID(callID, annals.MaxIDBytes), Result: result, Outcome: outcome}
			e.Metadata = safeMeta(map[string]any{"orphan_result": true, "extra": extras(b, "type", "tool_use_id", "toolCallId", "toolName", "content", "result", "output", "is_error", "isError")})
		case "image", "file", "document":
			e.Kind = annals.KindEvent
			e.Channel = "cursor/" + typ
			// Inline media is not transcript text; what it was is kept, its bytes are not.
			m := extraMap(b, "type", "source", "data", "image")
			src := b.obj("source")
			e.Text = typ
			if src != nil {
				e.Text = strings.TrimSpace(typ + " " + firstNonEmpty(src.str("media_type"), src.str("url")))
			}
			e.Metadata = safeMeta(map[string]any{"block": asAny(m), "media_type": firstNonEmpty(src.str("media_type"), b.str("mimeType"), b.str("mediaType"))})
		default:
			e.Kind = annals.KindEvent
			e.Channel = "cursor/" + sanitizeChannel(typ)
			e.Text = ValidText(b.str("text"))
			e.Metadata = safeMeta(map[string]any{"block": extras(b, "text")})
		}
		out = append(out, e)
	}
	return out
}

// asAny turns an empty map into an untyped nil, so Metadata drops it.
func asAny(m map[string]json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// blocksText renders a tool result's content: a string, or the text of an array of blocks,
// or the JSON of anything else.
func blocksText(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '[' {
		return textOf(raw)
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return string(raw)
	}
	var parts []string
	for _, a := range arr {
		o, err := decodeObject(a)
		if err != nil {
			parts = append(parts, textOf(a))
			continue
		}
		if t := o.str("text"); t != "" {
			parts = append(parts, t)
			continue
		}
		parts = append(parts, string(a))
	}
	return strings.Join(parts, "\n")
}

// stripTag returns the inside of <tag>...</tag> when s is exactly one such element.
func stripTag(s, tag string) (string, bool) {
	t := strings.TrimSpace(s)
	open, closing := "<"+tag+">", "</"+tag+">"
	if !strings.HasPrefix(t, open) || !strings.HasSuffix(t, closing) {
		return s, false
	}
	inner := t[len(open) : len(t)-len(closing)]
	if strings.Contains(inner, closing) {
		return s, false
	}
	return strings.TrimSpace(inner), true
}

// cursorStore imports the Cursor CLI's per-conversation store.db
// (~/.cursor/chats/<workspace hash>/<conversation id>/store.db): a meta table whose row "0"
// holds hex-encoded JSON (agentId, name, createdAt, lastUsedModel, latestRootBlobId), and a
// content-addressed blobs table. Messages are the blobs holding JSON {role, content}; tree
// nodes are protobuf. The order of the messages is read from the root blob's references to
// them; when that fails, blobs are taken in the order they were written.
type cursorStore struct{}

func (cursorStore) Name() string { return "cursor-store" }

func (cursorStore) Detect(path string, head []byte) bool {
	return detectSQLiteTables(path, head, "blobs", "meta")
}

func (cursorStore) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".cursor", "chats", "*", "*", "store.db")}
}

func (f cursorStore) ParseFile(ctx context.Context, src *Source, out Output) error {
	db, err := openSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("cursor-store: %w", err)
	}
	defer db.Close()

	var metaHex string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = '0'`).Scan(&metaHex)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("cursor-store: reading meta: %w", err)
	}
	var meta jsonObject
	if metaHex != "" {
		b, herr := hex.DecodeString(strings.TrimSpace(metaHex))
		if herr != nil {
			b = []byte(metaHex) // some versions store the JSON itself
		}
		meta, err = decodeObject(b)
		if err != nil {
			out.Warnf(0, "meta row 0: not JSON: %v", err)
		}
	}
	id := meta.str("agentId")
	if id == "" {
		id = filepath.Base(filepath.Dir(src.Path))
	}
	chatID := ChatID(f.Name(), id)
	attrs := annals.Attributes{"source": f.Name()}
	if m := meta.str("lastUsedModel"); m != "" {
		attrs["model"] = m
	}
	if m := meta.str("mode"); m != "" {
		attrs["mode"] = m
	}
	// ~/.cursor/chats/<workspace hash>/<id>/store.db: the hash is of the project path, which
	// cannot be recovered from it, but it still groups the chats of one project.
	if ws := filepath.Dir(filepath.Dir(src.Path)); filepath.Base(filepath.Dir(ws)) == "chats" {
		attrs["workspace_hash"] = filepath.Base(ws)
	}
	created := src.ModTime.UTC()
	if meta.isNum("createdAt") {
		created = ParseTime(meta.num("createdAt"))
	}

	rows, err := db.QueryContext(ctx, `SELECT rowid, id, data FROM blobs ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("cursor-store: reading blobs: %w", err)
	}
	defer rows.Close()
	type blob struct {
		id   string
		data []byte
	}
	var jsonBlobs []blob
	byID := map[string][]byte{}
	for rows.Next() {
		var rowid int64
		var bid string
		var data []byte
		if err := rows.Scan(&rowid, &bid, &data); err != nil {
			out.Warnf(0, "blobs: row unreadable: %v", err)
			continue
		}
		byID[strings.ToLower(bid)] = data
		if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '{' && json.Valid(d) {
			jsonBlobs = append(jsonBlobs, blob{id: strings.ToLower(bid), data: d})
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cursor-store: reading blobs: %w", err)
	}
	rows.Close()

	// Order: the message blobs the root references, in reference order; then any other JSON
	// blob in write order (a message the tree no longer references is still history).
	var order []string
	used := map[string]bool{}
	if root := byID[strings.ToLower(meta.str("latestRootBlobId"))]; root != nil {
		for _, ref := range protoRefs(root, 0) {
			d := byID[ref]
			if d != nil && !used[ref] && len(bytes.TrimSpace(d)) > 0 && bytes.TrimSpace(d)[0] == '{' {
				used[ref] = true
				order = append(order, ref)
			}
		}
	}
	for _, b := range jsonBlobs {
		if !used[b.id] {
			used[b.id] = true
			order = append(order, b.id)
		}
	}

	open := map[string]*annals.Entry{}
	var entries []*annals.Entry
	for _, bid := range order {
		m, err := decodeObject(byID[bid])
		if err != nil {
			out.Warnf(0, "blob %s: %v", bid, err)
			continue
		}
		role := m.str("role")
		if role == "" {
			continue // a JSON blob that is not a message (settings, tree metadata)
		}
		msgID := firstNonEmpty(m.str("id"), bid)
		blocks := m.arr("content")
		if blocks == nil {
			if s := m.str("content"); s != "" {
				b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
				blocks = []json.RawMessage{b}
			}
		}
		ents := anthropicBlocks(blocks, role, msgID, created, open, func(i int, msg string) { out.Warnf(0, "blob %s content[%d]: %s", bid, i, msg) })
		for _, e := range ents {
			e.SourceIDs = []string{SafeID(msgID, annals.MaxIDBytes)}
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				open[e.Tool.CallID] = e
			}
		}
		if ex := extras(m, "role", "id", "content"); ex != nil && len(ents) > 0 {
			ents[0].Metadata = mergeMeta(ents[0].Metadata, map[string]any{"message": ex})
		}
		entries = append(entries, ents...)
	}
	if len(entries) == 0 {
		// A store with no message in a readable form (its blobs all protobuf, or none yet)
		// makes no chat: an empty chat with only a name is no history.
		return nil
	}
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created}
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
		return err
	}
	// The name starts as a placeholder and is replaced by a generated one; asking for it
	// (rather than setting it at creation) lets the later, real name land.
	if name := ValidText(meta.str("name")); name != "" && name != "New Agent" && name != "New Chat" {
		out.TitleForChat(chatID, name)
	}
	for len(entries) > 0 {
		n := min(len(entries), annals.MaxBatchEntries)
		if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: entries[:n]}}); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}

// protoRefs walks a protobuf message and returns, in order, the hex of every 32-byte
// length-delimited field: the content addresses (SHA-256) of the blobs a tree node points to.
// Nested messages are walked up to a small depth. It never fails: bytes that do not parse as
// protobuf end the walk of that message.
func protoRefs(b []byte, depth int) []string {
	var out []string
	for len(b) > 0 {
		key, n := protoVarint(b)
		if n == 0 {
			return out
		}
		b = b[n:]
		switch key & 7 {
		case 0:
			_, n = protoVarint(b)
			if n == 0 {
				return out
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return out
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return out
			}
			b = b[4:]
		case 2:
			l, n := protoVarint(b)
			if n == 0 || uint64(len(b)-n) < l {
				return out
			}
			field := b[n : n+int(l)]
			b = b[n+int(l):]
			if l == 32 {
				out = append(out, hex.EncodeToString(field))
			} else if depth < 3 {
				out = append(out, protoRefs(field, depth+1)...)
			}
		default:
			return out
		}
	}
	return out
}

// protoVarint decodes a base-128 varint; n is 0 when b does not start with one.
func protoVarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
