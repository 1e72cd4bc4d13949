package cursor

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
	"github.com/annals-dev/annals/importer/reader"
)

// CursorStore imports the Cursor CLI's per-conversation store.db
// (~/.cursor/chats/<workspace hash>/<conversation id>/store.db): a meta table whose row "0"
// holds hex-encoded JSON (agentId, name, createdAt, lastUsedModel, latestRootBlobId), and a
// content-addressed blobs table. Messages are the blobs holding JSON {role, content}; tree
// nodes are protobuf. The order of the messages is read from the root blob's references to
// them; when that fails, blobs are taken in the order they were written.
type CursorStore struct{}

func (CursorStore) Name() string { return "cursor-store" }

func (CursorStore) Detect(path string, head []byte) bool {
	return reader.DetectSQLiteTables(path, head, "blobs", "meta")
}

func (CursorStore) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".cursor", "chats", "*", "*", "store.db")}
}

func (f CursorStore) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("cursor-store: %w", err)
	}
	defer db.Close()
	meta, err := cursorStoreMeta(ctx, db, out)
	if err != nil {
		return err
	}
	chat := f.chat(src, meta)
	byID, jsonBlobs, err := cursorStoreBlobs(ctx, db, out)
	if err != nil {
		return err
	}
	entries := cursorStoreEntries(cursorStoreOrder(meta, byID, jsonBlobs), byID, chat.CreatedAt, out)
	if len(entries) == 0 {
		// A store with no message in a readable form (its blobs all protobuf, or none yet)
		// makes no chat: an empty chat with only a name is no history.
		return nil
	}
	chatID := chat.ID
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	// The name starts as a placeholder and is replaced by a generated one; asking for it
	// (rather than setting it at creation) lets the later, real name land.
	if name := reader.ValidText(meta.Str("name")); name != "" && name != "New Agent" && name != "New Chat" {
		out.TitleForChat(chatID, name)
	}
	return reader.EmitEntries(chatID, entries, out)
}

// cursorStoreMeta reads meta row "0": hex-encoded JSON, or in some versions the JSON itself.
func cursorStoreMeta(ctx context.Context, db *sql.DB, out reader.Output) (reader.JSONObject, error) {
	var metaHex string
	err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = '0'`).Scan(&metaHex)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("cursor-store: reading meta: %w", err)
	}
	var meta reader.JSONObject
	if metaHex != "" {
		b, herr := hex.DecodeString(strings.TrimSpace(metaHex))
		if herr != nil {
			b = []byte(metaHex) // some versions store the JSON itself
		}
		meta, err = reader.DecodeObject(b)
		if err != nil {
			out.Warnf(0, "meta row 0: not JSON: %v", err)
		}
	}
	return meta, nil
}

// chat is the store's chat, before its entries are known.
func (f CursorStore) chat(src *reader.Source, meta reader.JSONObject) *annals.Chat {
	id := meta.Str("agentId")
	if id == "" {
		id = filepath.Base(filepath.Dir(src.Path))
	}
	chatID := reader.ChatID(f.Name(), id)
	attrs := annals.Attributes{"source": f.Name()}
	if m := meta.Str("lastUsedModel"); m != "" {
		attrs["model"] = m
	}
	if m := meta.Str("mode"); m != "" {
		attrs["mode"] = m
	}
	// ~/.cursor/chats/<workspace hash>/<id>/store.db: the hash is of the project path, which
	// cannot be recovered from it, but it still groups the chats of one project.
	if ws := filepath.Dir(filepath.Dir(src.Path)); filepath.Base(filepath.Dir(ws)) == "chats" {
		attrs["workspace_hash"] = filepath.Base(ws)
	}
	created := src.ModTime.UTC()
	if meta.IsNum("createdAt") {
		created = reader.ParseTime(meta.Num("createdAt"))
	}
	return &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created}
}

// cursorBlob is a blob holding JSON.
type cursorBlob struct {
	id   string
	data []byte
}

// cursorStoreBlobs reads every blob by its lower-case id, and the JSON blobs in write order.
func cursorStoreBlobs(ctx context.Context, db *sql.DB, out reader.Output) (map[string][]byte, []cursorBlob, error) {
	rows, err := db.QueryContext(ctx, `SELECT rowid, id, data FROM blobs ORDER BY rowid`)
	if err != nil {
		return nil, nil, fmt.Errorf("cursor-store: reading blobs: %w", err)
	}
	defer rows.Close()
	var jsonBlobs []cursorBlob
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
			jsonBlobs = append(jsonBlobs, cursorBlob{id: strings.ToLower(bid), data: d})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("cursor-store: reading blobs: %w", err)
	}
	return byID, jsonBlobs, nil
}

// cursorStoreOrder orders the blobs: the message blobs the root references, in reference
// order; then any other JSON blob in write order (a message the tree no longer references is
// still history).
func cursorStoreOrder(meta reader.JSONObject, byID map[string][]byte, jsonBlobs []cursorBlob) []string {
	var order []string
	used := map[string]bool{}
	if root := byID[strings.ToLower(meta.Str("latestRootBlobId"))]; root != nil {
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
	return order
}

// cursorStoreEntries maps the message blobs, in order, to entries.
func cursorStoreEntries(order []string, byID map[string][]byte, created time.Time, out reader.Output) []*annals.Entry {
	open := map[string]*annals.Entry{}
	var entries []*annals.Entry
	for _, bid := range order {
		m, err := reader.DecodeObject(byID[bid])
		if err != nil {
			out.Warnf(0, "blob %s: %v", bid, err)
			continue
		}
		role := m.Str("role")
		if role == "" {
			continue // a JSON blob that is not a message (settings, tree metadata)
		}
		msgID := reader.FirstNonEmpty(m.Str("id"), bid)
		blocks := m.Arr("content")
		if blocks == nil {
			if s := m.Str("content"); s != "" {
				b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
				blocks = []json.RawMessage{b}
			}
		}
		ents := reader.AnthropicBlocks(blocks, role, msgID, created, open, func(i int, msg string) { out.Warnf(0, "blob %s content[%d]: %s", bid, i, msg) })
		for _, e := range ents {
			e.SourceIDs = []string{reader.SafeID(msgID, annals.MaxIDBytes)}
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				open[e.Tool.CallID] = e
			}
		}
		if ex := reader.Extras(m, "role", "id", "content"); ex != nil && len(ents) > 0 {
			ents[0].Metadata = reader.MergeMeta(ents[0].Metadata, map[string]any{"message": ex})
		}
		entries = append(entries, ents...)
	}
	return entries
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
