// Package goose reads the histories of Goose for annals import (docs/IMPORT.md): one reader behind
// the importer/reader contracts (detect, default locations, read), listed in importer.Formats.
package goose

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/annals-dev/annals/importer/reader"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Goose imports the sessions of Block's goose agent. Since 1.x goose keeps them in one SQLite
// database, ~/.local/share/goose/sessions/sessions.db (block/goose,
// crates/goose/src/session/session_manager.rs):
//
//	sessions(id, name, description, user_set_name, session_type, working_dir, created_at,
//	         updated_at, extension_data, total_tokens, input_tokens, output_tokens, ...)
//	messages(id, session_id, role, content_json, created_timestamp, timestamp, tokens,
//	         metadata_json)
//
// and before that one JSON Lines file per session beside it, <id>.jsonl: a metadata line
// (working_dir, description, message_count, tokens), then one message per line {role, created,
// content}. Either way a message's content is an array of typed blocks: text, thinking,
// redactedThinking, image, toolRequest {id, toolCall: {status, value: {name, arguments}}} and
// toolResponse {id, toolResult: {status, value: {content, isError}}}, which goose sends back in
// a user message. Both are read whole.
type Goose struct{}

func (Goose) Name() string { return "goose" }

func (Goose) DefaultPaths(home string) []string {
	dir := filepath.Join(home, ".local", "share", "goose", "sessions")
	return []string{filepath.Join(dir, "sessions.db"), filepath.Join(dir, "*.jsonl")}
}

// Detect claims goose's database (its sessions and messages tables, messages holding
// content_json) and a legacy session file (in goose's folder, or opening with the metadata
// line).
func (Goose) Detect(path string, head []byte) bool {
	if reader.IsSQLite(head) {
		return detectGooseDB(path, head)
	}
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	lines := reader.HeadLines(head, 2)
	if len(lines) == 0 {
		return false
	}
	f, _ := reader.LineFields(lines[0])
	if reader.HasFields(f, "working_dir", "description", "message_count") {
		return true
	}
	return reader.InFolder(path, "goose/sessions") && reader.HasFields(f, "role", "created", "content")
}

func detectGooseDB(path string, head []byte) bool {
	if !reader.DetectSQLiteTables(path, head, "sessions", "messages") {
		return false
	}
	db, err := reader.OpenSourceDB(context.Background(), path)
	if err != nil {
		return false
	}
	defer db.Close()
	cols, err := reader.TableColumns(context.Background(), db, "messages")
	return err == nil && cols["content_json"] && cols["session_id"]
}

// gsSession is one goose session and its messages, from either store.
type gsSession struct {
	id, name, cwd, kind string
	created             time.Time
	messages            []gsMessage
}

type gsMessage struct {
	id      string
	role    string
	created time.Time
	content json.RawMessage
	meta    json.RawMessage
}

func (f Goose) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	head, err := reader.ReadHead(src.Path)
	if err != nil {
		return fmt.Errorf("goose: %w", err)
	}
	var sessions []*gsSession
	if reader.IsSQLite(head) {
		sessions, err = readGooseDB(ctx, src.Path)
	} else {
		var s *gsSession
		s, err = readGooseFile(src, out)
		sessions = []*gsSession{s}
	}
	if err != nil {
		return err
	}
	for _, s := range sessions {
		if err := f.emit(s, out); err != nil {
			return err
		}
	}
	return nil
}

// readGooseDB reads every session of sessions.db with its messages, in time order.
func readGooseDB(ctx context.Context, path string) ([]*gsSession, error) {
	db, err := reader.OpenSourceDB(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("goose: %w", err)
	}
	defer db.Close()
	rows, err := reader.QueryMaps(ctx, db, `SELECT * FROM sessions ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("goose: reading sessions: %w", err)
	}
	byID := map[string]*gsSession{}
	var out []*gsSession
	for _, r := range rows {
		s := &gsSession{id: reader.ColString(r, "id"), name: reader.FirstNonEmpty(reader.ColString(r, "name"), reader.ColString(r, "description")),
			cwd: reader.ColString(r, "working_dir"), kind: reader.ColString(r, "session_type"), created: reader.ColTime(r, "created_at")}
		byID[s.id] = s
		out = append(out, s)
	}
	msgs, err := reader.QueryMaps(ctx, db, `SELECT * FROM messages ORDER BY session_id, created_timestamp, id`)
	if err != nil {
		return nil, fmt.Errorf("goose: reading messages: %w", err)
	}
	for _, m := range msgs {
		s := byID[reader.ColString(m, "session_id")]
		if s == nil {
			continue // a message of a deleted session
		}
		s.messages = append(s.messages, gsMessage{id: reader.ColString(m, "id"), role: reader.ColString(m, "role"),
			created: reader.ColTime(m, "created_timestamp"), content: reader.RawJSON(reader.ColString(m, "content_json")), meta: reader.RawJSON(reader.ColString(m, "metadata_json"))})
	}
	return out, nil
}

// readGooseFile reads a legacy session file: the metadata line, then one message per line.
func readGooseFile(src *reader.Source, out reader.Output) (*gsSession, error) {
	fh, err := os.Open(src.Path)
	if err != nil {
		return nil, fmt.Errorf("goose: %w", err)
	}
	defer fh.Close()
	s := &gsSession{id: strings.TrimSuffix(filepath.Base(src.Path), ".jsonl"), created: src.ModTime.UTC()}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 1<<20), reader.MaxLineBytes)
	for n := 1; sc.Scan(); n++ {
		o, err := reader.DecodeObject(sc.Bytes())
		if err != nil {
			out.Warnf(n, "not a JSON object: %v", err)
			continue
		}
		if n == 1 && o.Raw("role") == nil {
			s.name, s.cwd = o.Str("description"), o.Str("working_dir")
			continue
		}
		s.messages = append(s.messages, gsMessage{id: fmt.Sprintf("L%d", n), role: strings.ToLower(o.Str("role")),
			created: reader.ParseTime(o.Num("created")), content: o.Raw("content"), meta: o.Raw("metadata")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("goose: reading %s: %w", src.Path, err)
	}
	if len(s.messages) > 0 && !s.messages[0].created.IsZero() {
		s.created = s.messages[0].created
	}
	return s, nil
}
