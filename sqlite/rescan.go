package sqlite

import (
	"context"
	"database/sql"
	"reflect"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// Rescan re-applies redaction to every stored entry and chat; see annals.Rescanner. It walks the
// tables in primary-key order in batches, each batch one write transaction, so a long rescan
// never holds the write lock for long and can be interrupted and run again.
func (db *DB) Rescan(ctx context.Context, r annals.Redactor, progress func(annals.RescanReport)) (*annals.RescanReport, error) {
	if db.readOnly {
		return nil, errReadOnly()
	}
	rep := &annals.RescanReport{}
	tell := func() {
		if progress != nil {
			progress(*rep)
		}
	}
	entries := func(after int64) (int, int64, error) { return db.rescanEntries(ctx, r, after, rep) }
	if err := storecore.WalkBatches(entries, tell); err != nil {
		return rep, err
	}
	if err := db.rescanChats(ctx, r, rep); err != nil {
		return rep, err
	}
	if progress != nil {
		progress(*rep)
	}
	return rep, nil
}

func (db *DB) rescanEntries(ctx context.Context, r annals.Redactor, after int64, rep *annals.RescanReport) (int, int64, error) {
	n := 0
	last := after
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT e.pk, `+entryColumns+` FROM entries e JOIN chats c ON c.pk = e.chat_pk
			WHERE e.pk > ? ORDER BY e.pk LIMIT ?`, after, storecore.RescanBatch)
		if err != nil {
			return storeErr("rescan entries", err)
		}
		type change struct {
			pk int64
			e  *annals.Entry
		}
		var changes []change
		for rows.Next() {
			var pk int64
			e, err := scanEntry(prefixScanner{rows: rows, first: &pk})
			if err != nil {
				rows.Close()
				return storeErr("scan entry", err)
			}
			n++
			last = pk
			before := *e
			if e.Tool != nil {
				t := *e.Tool
				before.Tool = &t
			}
			if c := r.RedactEntry(e); c > 0 || !reflect.DeepEqual(&before, e) {
				rep.Replacements += c
				changes = append(changes, change{pk, e})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return storeErr("rescan entries", err)
		}
		rep.EntriesScanned += n
		for _, ch := range changes {
			var args, result string
			if ch.e.Tool != nil {
				args, result = string(ch.e.Tool.Arguments), ch.e.Tool.Result
			}
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET text = ?, reasoning = ?, tool_args = ?, tool_result = ?, metadata = ? WHERE pk = ?`,
				ch.e.Text, ch.e.Reasoning, args, result, string(ch.e.Metadata), ch.pk); err != nil {
				return storeErr("rewrite entry", err)
			}
			rep.EntriesChanged++
		}
		return nil
	})
	return n, last, err
}

func (db *DB) rescanChats(ctx context.Context, r annals.Redactor, rep *annals.RescanReport) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT pk, title, description, summary, tags FROM chats ORDER BY pk`)
		if err != nil {
			return storeErr("rescan chats", err)
		}
		type change struct {
			pk                          int64
			title, description, summary string
			tags                        string
			newTags                     []string
		}
		var changes []change
		for rows.Next() {
			var ch change
			if err := rows.Scan(&ch.pk, &ch.title, &ch.description, &ch.summary, &ch.tags); err != nil {
				rows.Close()
				return storeErr("scan chat", err)
			}
			rep.ChatsScanned++
			total := 0
			for _, f := range []*string{&ch.title, &ch.description, &ch.summary} {
				out, c := r.RedactText(*f)
				if c > 0 || out != *f {
					*f = out
					total += max(c, 1)
				}
			}
			if tags, c := annals.RedactTagsCount(r, splitTags(ch.tags)); c > 0 {
				ch.newTags, ch.tags = tags, joinTags(tags)
				total += c
			}
			if total > 0 {
				rep.Replacements += total
				changes = append(changes, ch)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return storeErr("rescan chats", err)
		}
		w := &writer{ctx: ctx, tx: tx}
		defer w.close()
		for _, ch := range changes {
			if _, err := tx.ExecContext(ctx, `UPDATE chats SET title = ?, title_fold = ?, description = ?, summary = ?, tags = ? WHERE pk = ?`,
				ch.title, strings.ToLower(ch.title), ch.description, ch.summary, ch.tags, ch.pk); err != nil {
				return storeErr("rewrite chat", err)
			}
			if ch.newTags != nil {
				if err := w.replaceTags(ch.pk, ch.newTags); err != nil {
					return err
				}
			}
			rep.ChatsChanged++
		}
		return nil
	})
}

// prefixScanner scans one leading column into first, then the rest into the caller's targets.
type prefixScanner struct {
	rows  *sql.Rows
	first *int64
}

func (p prefixScanner) Scan(dest ...any) error {
	return p.rows.Scan(append([]any{p.first}, dest...)...)
}
