// Package opencode reads the histories of OpenCode for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package opencode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// OpenCode imports OpenCode's history. OpenCode keeps one JSON file per session, per message
// and per message part:
//
//	storage/session/<projectID>/<sessionID>.json
//	storage/message/<sessionID>/<messageID>.json
//	storage/part/<messageID>/<partID>.json
//
// (versions before 0.4 nested message and part under storage/session/; both layouts are read),
// and `opencode export` writes one session as {"info": session, "messages": [{"info", "parts"}]}.
// A message is a user prompt or one assistant turn; its parts are the text, reasoning, tool
// calls (each part holds the call and its result), files, patches and step markers. The source
// is a directory tree, so it is a FileParser: the framework re-reads it when any file changes,
// and entry ids (the part ids) make that re-read append only what is new.
type OpenCode struct{}

func (OpenCode) Name() string { return "opencode" }

// ResumeCommand is `opencode --session <ses_… id>`.
func (OpenCode) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("opencode --session %s", native)
}

// Detect claims an OpenCode storage directory (or the data directory holding storage/), an
// opencode.db (a SQLite database with session, message and part tables), and an `opencode
// export` JSON document.
func (OpenCode) Detect(path string, head []byte) bool {
	if head == nil {
		_, ok := openCodeStorageRoot(path)
		return ok
	}
	if reader.IsSQLite(head) {
		return reader.DetectSQLiteTables(path, head, openCodeDBTables...)
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	return bytes.HasPrefix(h, []byte("{")) && bytes.Contains(h, []byte(`"info"`)) && bytes.Contains(h, []byte(`"messages"`)) &&
		(bytes.Contains(h, []byte(`"sessionID"`)) || bytes.Contains(h, []byte(`"projectID"`)))
}

func (OpenCode) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".local", "share", "opencode", "storage"),
		// 1.2 and later: one database (opencode-<channel>.db for a non-default channel).
		filepath.Join(home, ".local", "share", "opencode", "opencode*.db"),
	}
}

// openCodeStorageRoot returns the storage directory at or under path: path itself when it
// holds session/ and message/ (or the older session/message/), or path/storage.
func openCodeStorageRoot(path string) (string, bool) {
	for _, dir := range []string{path, filepath.Join(path, "storage")} {
		if !reader.IsDir(filepath.Join(dir, "session")) {
			continue
		}
		if reader.IsDir(filepath.Join(dir, "message")) || reader.IsDir(filepath.Join(dir, "session", "message")) {
			return dir, true
		}
	}
	return "", false
}

// ocMessage is one message with its parts, as read from either layout.
type ocMessage struct {
	info  reader.JSONObject
	parts []ocPart
	where string // file the message came from, for warnings
}

type ocPart struct {
	obj   reader.JSONObject
	name  string // file name stem, the fallback id
	where string
}

// ocSession is one session with its messages.
type ocSession struct {
	info     reader.JSONObject
	where    string
	messages []ocMessage
}

func (f OpenCode) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	fi, err := os.Stat(src.Path)
	if err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	var sessions []*ocSession
	if fi.IsDir() {
		root, ok := openCodeStorageRoot(src.Path)
		if !ok {
			return fmt.Errorf("opencode: %s holds no OpenCode storage (want session/ and message/ directories)", src.Path)
		}
		sessions, err = readOpenCodeStorage(ctx, root, out)
		if err != nil {
			return err
		}
	} else if head, _ := reader.ReadHead(src.Path); reader.IsSQLite(head) {
		sessions, err = readOpenCodeDB(ctx, src.Path, out)
		if err != nil {
			return err
		}
	} else {
		s, err := readOpenCodeExport(src.Path)
		if err != nil {
			return err
		}
		sessions = []*ocSession{s}
	}
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f.emitSession(s, out); err != nil {
			return err
		}
	}
	return nil
}

// readOpenCodeExport reads an `opencode export` document.
func readOpenCodeExport(path string) (*ocSession, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("opencode: %w", err)
	}
	doc, err := reader.DecodeObject(b)
	if err != nil {
		return nil, fmt.Errorf("opencode: %s is not an OpenCode export: %w", path, err)
	}
	info := doc.Obj("info")
	if info == nil || info.Str("id") == "" {
		return nil, fmt.Errorf("opencode: %s is not an OpenCode export (no info.id)", path)
	}
	s := &ocSession{info: info, where: path}
	for i, raw := range doc.Arr("messages") {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		mi := m.Obj("info")
		if mi == nil {
			continue
		}
		msg := ocMessage{info: mi, where: fmt.Sprintf("%s messages[%d]", path, i)}
		for j, praw := range m.Arr("parts") {
			p, err := reader.DecodeObject(praw)
			if err != nil {
				continue
			}
			msg.parts = append(msg.parts, ocPart{obj: p, name: fmt.Sprintf("%s#%d", mi.Str("id"), j), where: msg.where})
		}
		s.messages = append(s.messages, msg)
	}
	sortOpenCodeMessages(s.messages)
	return s, nil
}

// sortOpenCodeMessages orders messages by creation time, keeping file order among equal times.
func sortOpenCodeMessages(ms []ocMessage) {
	sort.SliceStable(ms, func(i, j int) bool {
		return ms[i].info.Obj("time").Num("created") < ms[j].info.Obj("time").Num("created")
	})
}

func (f OpenCode) emitSession(s *ocSession, out reader.Output) error {
	sid := s.info.Str("id")
	chatID := reader.ChatID(f.Name(), sid)
	attrs := annals.Attributes{"source": f.Name()}
	if d := s.info.Str("directory"); d != "" {
		attrs["cwd"] = d
	}
	if p := s.info.Str("projectID"); p != "" && p != "global" {
		attrs["project"] = p
	}
	if p := s.info.Str("parentID"); p != "" {
		attrs["parent"] = reader.ChatID(f.Name(), p)
	}
	if m := openCodeModel(s.messages); m != "" {
		attrs["model"] = m
	}
	if u := s.info.Obj("share").Str("url"); u != "" {
		attrs["share_url"] = u
	}
	created := reader.MilliTime(s.info.Obj("time"), "created")
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	// OpenCode names a session "New session - <time>" and replaces that with a generated
	// title after the first reply. The title is therefore asked for, not set at creation: it
	// lands once the real one exists, and never over a title the user gave in annals.
	if t := reader.ValidText(s.info.Str("title")); t != "" && !openCodePlaceholderTitle(t) {
		out.TitleForChat(chatID, t)
	}

	last := created
	// Part ids are unique per message, not per session: a part id seen before in the session
	// gets its message id in front, so no part overwrites (or is skipped as) another message's.
	// The first part with an id keeps the bare id, as earlier imports stored it.
	used := map[string]bool{}
	for _, m := range s.messages {
		run, entries := f.message(chatID, m, &last)
		for _, e := range entries {
			if used[e.ID] {
				e.ID = reader.EntryID(m.info.Str("id")+"/"+e.ID, -1)
			}
			used[e.ID] = true
		}
		if len(entries) > 0 {
			if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: entries}}); err != nil {
				return err
			}
		}
		if run != nil {
			if err := out.Emit(annals.CaptureOp{Run: run}); err != nil {
				return err
			}
		}
	}
	return nil
}

// openCodeModel is the model the session's first message names. Only the first message is
// looked at: attributes are immutable, so they must not depend on messages that a later import
// sees and an earlier one did not.
func openCodeModel(ms []ocMessage) string {
	if len(ms) == 0 {
		return ""
	}
	first := ms[0].info
	return reader.FirstNonEmpty(first.Obj("model").Str("modelID"), first.Str("modelID"))
}

// openCodePlaceholderTitle reports whether t is the title OpenCode gives a session before it
// has generated one ("New session - 2025-06-15T15:06:40.000Z", "Child session - ...").
func openCodePlaceholderTitle(t string) bool {
	for _, p := range []string{"New session - ", "Child session - "} {
		if rest, ok := strings.CutPrefix(t, p); ok && len(rest) >= 4 && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
	}
	return false
}

// ocSafeName reports whether an id from the storage files can serve as one path element.
func ocSafeName(id string) bool {
	return id != "." && id != ".." && !strings.ContainsAny(id, `/\`) && !strings.ContainsRune(id, 0)
}
