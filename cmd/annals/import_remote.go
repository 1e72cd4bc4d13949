package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Importing through a server: `annals --server URL import` reads the files on this machine and
// captures their chats through the server, which stores them as the key's principal. The import
// state (which files were read, to which offset) stays on this machine, because the files are
// here: in a SQLite file of its own per server, import-state/HOST_PORT-HASH.db beside the local
// database (see importStatePath), so importing the same files into the local database or into
// another server starts afresh, and importing again into this server reads only what changed.

// openServerImport opens the server import's sink: the HTTP client, redacting with the local
// config's rules too (so a secret the local config names never leaves this machine), and the
// local state file.
func (m *Main) openServerImport(ctx context.Context, c *common, readOnly bool) (*importSink, error) {
	a, _, err := m.openRemote(ctx, c)
	if err != nil {
		return nil, err
	}
	red, err := m.redactor(a.cfg)
	if err != nil {
		return nil, err
	}
	path, err := m.importStatePath(m.Getenv("ANNALS_SERVER"))
	if err != nil {
		return nil, err
	}
	store, err := m.openDB(ctx, path, readOnly)
	if err != nil {
		return nil, err
	}
	state, ok := store.(annals.ImportStateStore)
	if !ok {
		return nil, annals.Errorf(annals.EINTERNAL, "the import state file %s keeps no import state", path)
	}
	return &importSink{
		ctx:      a.ctx,
		capture:  sourceIndex{CaptureStore: &history.RedactingCapture{Store: a.capture, Redactor: red}, local: store},
		state:    state,
		chats:    serverChats{a.svc},
		redactor: red,
	}, nil
}

// importStatePath is the state file of imports into server: import-state/HOST_PORT-HASH.db in
// the directory of the local database (--db is refused with --server; $ANNALS_DB, else the
// default), where HASH is the start of the SHA-256 of the server URL as given, without a
// trailing slash.
func (m *Main) importStatePath(server string) (string, error) {
	location, err := m.dbPath("")
	if err != nil {
		return "", err
	}
	if isPostgres(location) {
		// The state is a local file; a PostgreSQL database has no directory to put it beside.
		if location, err = m.defaultDBPath(); err != nil {
			return "", err
		}
	}
	server = strings.TrimRight(server, "/")
	sum := sha256.Sum256([]byte(server))
	host := "server"
	if u, err := url.Parse(server); err == nil && u.Host != "" {
		host = strings.NewReplacer(":", "_", "[", "", "]", "").Replace(u.Host)
	}
	dir := filepath.Dir(strings.TrimPrefix(location, "sqlite:"))
	return filepath.Join(dir, "import-state", host+"-"+hex.EncodeToString(sum[:])[:12]+".db"), nil
}

// serverChats is the importer's view of the server's chats for titling: a chat by id, and a
// new title, through the history API.
type serverChats struct{ svc annals.HistoryService }

func (s serverChats) FindChatByID(ctx context.Context, id string) (*annals.Chat, error) {
	v, err := s.svc.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: 1})
	if err != nil {
		return nil, err
	}
	return v.Chat, nil
}

func (s serverChats) UpdateChat(ctx context.Context, ref annals.ChatRef, upd annals.ChatUpdate) (*annals.Chat, error) {
	if upd.Title == nil || upd.Description != nil || upd.Tags != nil {
		return nil, annals.Errorf(annals.EINTERNAL, "an import through a server changes only titles")
	}
	return s.svc.RenameChat(ctx, annals.ChatSelector{ID: ref.ID}, *upd.Title)
}

// sourceIndex is the capture path of an import through a server: every batch goes to the
// server, then its skeleton (chats by id, entries by id and source ids, without their content)
// to the local state database. The importer finds there which chat holds an entry a later
// file names by its source id (a Claude Code summary line titling a conversation imported
// before), as it finds it in the database of a local import. The importer writes through
// Capture only.
type sourceIndex struct {
	annals.CaptureStore                     // the server
	local               annals.CaptureStore // the state database
}

func (s sourceIndex) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	res, err := s.CaptureStore.Capture(ctx, ops)
	if err != nil {
		return res, err
	}
	skeleton := make([]annals.CaptureOp, 0, len(ops))
	for _, op := range ops {
		switch {
		case op.Chat != nil:
			skeleton = append(skeleton, annals.CaptureOp{Chat: &annals.Chat{ID: op.Chat.ID, TenantID: importStateTenant, CreatedAt: op.Chat.CreatedAt}})
		case op.Append != nil:
			entries := make([]*annals.Entry, len(op.Append.Entries))
			for i, e := range op.Append.Entries {
				entries[i] = &annals.Entry{ID: e.ID, Kind: annals.KindSystem, SourceIDs: e.SourceIDs, Time: e.Time}
			}
			skeleton = append(skeleton, annals.CaptureOp{Append: &annals.AppendOp{ChatID: op.Append.ChatID, Entries: entries}})
		case op.Truncate != nil:
			skeleton = append(skeleton, op)
		}
	}
	if _, err := s.local.Capture(ctx, skeleton); err != nil {
		return res, fmt.Errorf("import state: recording what was sent to the server: %w", err)
	}
	return res, nil
}

// importStateTenant owns the skeleton chats of a server import's state database.
const importStateTenant = "import-state"
