package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

var (
	_ annals.ImportStateStore   = (*DB)(nil)
	_ annals.ImportCaptureStore = (*DB)(nil)
)

const importSourceColumns = `s.pk, s.path, s.format, s.size, s.mod_time, s.hash, s.offset, s.line, s.state,
	s.provisional, s.entries, s.imported_at, s.gone_at, s.last_error`

// FindImportSource returns the import state of one source; see annals.ImportStateStore.
func (db *DB) FindImportSource(ctx context.Context, path string) (*annals.ImportSource, error) {
	if path == "" {
		return nil, annals.Errorf(annals.EINVALID, "import source path is required")
	}
	srcs, err := db.findImportSources(ctx, `s.path = ?`, path)
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, annals.Errorf(annals.ENOTFOUND, "no import state for %s", path)
	}
	return srcs[0], nil
}

// FindImportSources returns the matching import sources ordered by path.
func (db *DB) FindImportSources(ctx context.Context, f annals.ImportSourceFilter) ([]*annals.ImportSource, error) {
	w := &where{}
	if f.Format != "" {
		w.Add("s.format = ?", f.Format)
	}
	if f.PathPrefix != "" {
		// substr rather than LIKE: a path may hold % or _, and they must match literally.
		w.Add("substr(s.path, 1, ?) = ?", len(f.PathPrefix), f.PathPrefix)
	}
	if f.GoneOnly {
		w.Add("s.gone_at IS NOT NULL")
	}
	if f.ChatID != "" {
		w.Add("s.pk IN (SELECT source_pk FROM import_source_chats WHERE chat_id = ?)", f.ChatID)
	}
	return db.findImportSources(ctx, w.SQL(), w.Args...)
}

func (db *DB) findImportSources(ctx context.Context, cond string, args ...any) ([]*annals.ImportSource, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT `+importSourceColumns+` FROM import_sources s WHERE `+cond+` ORDER BY s.path`, args...)
	if err != nil {
		return nil, storeErr("find import sources", err)
	}
	defer rows.Close()
	var (
		out []*annals.ImportSource
		pks []int64
	)
	for rows.Next() {
		var (
			s           annals.ImportSource
			pk, mod, at int64
			state, prov string
			gone        sql.NullInt64
		)
		if err := rows.Scan(&pk, &s.Path, &s.Format, &s.Size, &mod, &s.Hash, &s.Offset, &s.Line, &state,
			&prov, &s.Entries, &at, &gone, &s.LastError); err != nil {
			return nil, storeErr("scan import source", err)
		}
		s.ModTime, s.ImportedAt, s.GoneAt = fromNano(mod), fromNano(at), fromNullNano(gone)
		if state != "" {
			s.State = json.RawMessage(state)
		}
		if prov != "" {
			if err := json.Unmarshal([]byte(prov), &s.Provisional); err != nil {
				return nil, annals.Internal("decode provisional entries", err)
			}
		}
		out = append(out, &s)
		pks = append(pks, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("find import sources", err)
	}
	rows.Close()
	for i, s := range out {
		ids, err := db.importSourceChats(ctx, pks[i])
		if err != nil {
			return nil, err
		}
		s.ChatIDs = ids
	}
	return out, nil
}

func (db *DB) importSourceChats(ctx context.Context, pk int64) ([]string, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT chat_id FROM import_source_chats WHERE source_pk = ? ORDER BY chat_id`, pk)
	if err != nil {
		return nil, storeErr("find import source chats", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, storeErr("scan import source chat", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("find import source chats", err)
	}
	return ids, nil
}

// SaveImportSource inserts or replaces the state of src.Path, with its chat list.
func (db *DB) SaveImportSource(ctx context.Context, src *annals.ImportSource) error {
	if err := checkImportSource(src); err != nil {
		return err
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error { return saveImportSourceIn(ctx, tx, src) })
}

// checkImportSource refuses a state without its key or format.
func checkImportSource(src *annals.ImportSource) error {
	if src == nil || src.Path == "" {
		return annals.Errorf(annals.EINVALID, "import source path is required")
	}
	if src.Format == "" {
		return annals.Errorf(annals.EINVALID, "import source format is required")
	}
	return nil
}

// saveImportSourceIn saves a checked state inside tx (SaveImportSource's transaction, or the
// capture transaction of CaptureEachSaving).
func saveImportSourceIn(ctx context.Context, tx *sql.Tx, src *annals.ImportSource) error {
	prov := ""
	if len(src.Provisional) > 0 {
		b, err := json.Marshal(src.Provisional)
		if err != nil {
			return annals.Internal("encode provisional entries", err)
		}
		prov = string(b)
	}
	var gone any
	if src.GoneAt != nil {
		gone = unixNano(*src.GoneAt)
	}
	var pk int64
	err := tx.QueryRowContext(ctx, `INSERT INTO import_sources
		(path, format, size, mod_time, hash, offset, line, state, provisional, entries, imported_at, gone_at, last_error)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (path) DO UPDATE SET format = excluded.format, size = excluded.size,
			mod_time = excluded.mod_time, hash = excluded.hash, offset = excluded.offset,
			line = excluded.line, state = excluded.state, provisional = excluded.provisional,
			entries = excluded.entries, imported_at = excluded.imported_at,
			gone_at = excluded.gone_at, last_error = excluded.last_error
		RETURNING pk`,
		src.Path, src.Format, src.Size, unixNano(src.ModTime), src.Hash, src.Offset, src.Line,
		string(src.State), prov, src.Entries, unixNano(src.ImportedAt), gone, src.LastError).Scan(&pk)
	if err != nil {
		return storeErr("save import source", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM import_source_chats WHERE source_pk = ?`, pk); err != nil {
		return storeErr("save import source chats", err)
	}
	for _, id := range src.ChatIDs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO import_source_chats (source_pk, chat_id) VALUES (?, ?)`, pk, id); err != nil {
			return storeErr("save import source chats", err)
		}
	}
	return nil
}

// MarkImportSourceGone sets gone_at unless it is already set.
func (db *DB) MarkImportSourceGone(ctx context.Context, path string, at time.Time) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE import_sources SET gone_at = coalesce(gone_at, ?) WHERE path = ?`, unixNano(at), path)
		if err != nil {
			return storeErr("mark import source gone", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return annals.Errorf(annals.ENOTFOUND, "no import state for %s", path)
		}
		return nil
	})
}

// SavePendingTitle upserts a title waiting for its chat.
func (db *DB) SavePendingTitle(ctx context.Context, t annals.PendingTitle) error {
	if err := annals.ValidateID("source_id", t.SourceID); err != nil {
		return err
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = db.now()
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO import_pending_titles (source_id, title, created_at) VALUES (?, ?, ?)
			ON CONFLICT (source_id) DO UPDATE SET title = excluded.title`, t.SourceID, t.Title, unixNano(t.CreatedAt))
		if err != nil {
			return storeErr("save pending title", err)
		}
		return nil
	})
}

// FindPendingTitles returns every pending title, oldest first.
func (db *DB) FindPendingTitles(ctx context.Context) ([]annals.PendingTitle, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT source_id, title, created_at FROM import_pending_titles ORDER BY created_at, source_id`)
	if err != nil {
		return nil, storeErr("find pending titles", err)
	}
	defer rows.Close()
	var out []annals.PendingTitle
	for rows.Next() {
		var t annals.PendingTitle
		var at int64
		if err := rows.Scan(&t.SourceID, &t.Title, &at); err != nil {
			return nil, storeErr("scan pending title", err)
		}
		t.CreatedAt = fromNano(at)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("find pending titles", err)
	}
	return out, nil
}

// DeletePendingTitle forgets one pending title.
func (db *DB) DeletePendingTitle(ctx context.Context, sourceID string) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM import_pending_titles WHERE source_id = ?`, sourceID); err != nil {
			return storeErr("delete pending title", err)
		}
		return nil
	})
}

// ChatIDBySourceID returns a chat holding an entry with this source id (the first by chat).
func (db *DB) ChatIDBySourceID(ctx context.Context, sourceID string) (string, error) {
	if sourceID == "" {
		return "", annals.Errorf(annals.EINVALID, "source id is required")
	}
	var id string
	err := db.reader.QueryRowContext(ctx, `SELECT c.id FROM entry_sources s JOIN chats c ON c.pk = s.chat_pk
		WHERE s.source_id = ? ORDER BY s.chat_pk LIMIT 1`, sourceID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", annals.Errorf(annals.ENOTFOUND, "no chat holds source id %s", quoteShort(sourceID))
	}
	if err != nil {
		return "", storeErr("find chat by source id", err)
	}
	return id, nil
}

func quoteShort(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return fmt.Sprintf("%q", strings.ToValidUTF8(s, "?"))
}
