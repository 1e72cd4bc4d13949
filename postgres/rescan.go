package postgres

import (
	"context"
	"reflect"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// Rescan re-applies redaction to every stored entry and chat; see annals.Rescanner. It walks
// the tables in primary-key order in batches, each batch one transaction that rewrites the
// changed rows together with their tsvectors, so a long rescan never holds locks for long and
// can be interrupted and run again.
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
	chats := func(after int64) (int, int64, error) { return db.rescanChats(ctx, r, after, rep) }
	if err := storecore.WalkBatches(chats, nil); err != nil {
		return rep, err
	}
	if progress != nil {
		progress(*rep)
	}
	return rep, nil
}

func (db *DB) rescanEntries(ctx context.Context, r annals.Redactor, after int64, rep *annals.RescanReport) (int, int64, error) {
	type change struct {
		pk int64
		e  *annals.Entry
	}
	var n int
	var last int64
	var scanned, changed, replacements int
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		n, last, scanned, changed, replacements = 0, after, 0, 0, 0
		rows, err := tx.Query(ctx, `SELECT `+entryColumns+`, e.pk FROM entries e JOIN chats c ON c.pk = e.chat_pk
			WHERE e.pk > $1 ORDER BY e.pk LIMIT $2 FOR UPDATE OF e`, after, storecore.RescanBatch)
		if err != nil {
			return db.storeErr("rescan entries", err)
		}
		var changes []change
		for rows.Next() {
			var pk int64
			e, err := scanEntry(rows, &pk)
			if err != nil {
				rows.Close()
				return db.storeErr("scan entry", err)
			}
			n++
			last = pk
			before := *e
			if e.Tool != nil {
				t := *e.Tool
				before.Tool = &t
			}
			if c := r.RedactEntry(e); c > 0 || !reflect.DeepEqual(&before, e) {
				replacements += c
				changes = append(changes, change{pk, e})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return db.storeErr("rescan entries", err)
		}
		scanned = n
		for _, ch := range changes {
			var args, result string
			if ch.e.Tool != nil {
				args, result = string(ch.e.Tool.Arguments), ch.e.Tool.Result
			}
			if _, err := tx.Exec(ctx, `UPDATE entries SET text = $1, reasoning = $2, tool_args = $3, tool_result = $4, metadata = $5, tsv = $6 WHERE pk = $7`,
				[]byte(ch.e.Text), []byte(ch.e.Reasoning), args, []byte(result), string(ch.e.Metadata), entryTSV(ch.e), ch.pk); err != nil {
				return db.storeErr("rewrite entry", err)
			}
			changed++
		}
		pks := make([]int64, len(changes))
		for i, ch := range changes {
			pks[i] = ch.pk
		}
		return db.rebuildDocsOf(ctx, tx, pks)
	})
	if err == nil {
		rep.EntriesScanned += scanned
		rep.EntriesChanged += changed
		rep.Replacements += replacements
	}
	return n, last, err
}

func (db *DB) rescanChats(ctx context.Context, r annals.Redactor, after int64, rep *annals.RescanReport) (int, int64, error) {
	type change struct {
		pk                          int64
		title, description, summary string
		tags                        []string
	}
	var n int
	var last int64
	var changed, replacements int
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		n, last, changed, replacements = 0, after, 0, 0
		rows, err := tx.Query(ctx, `SELECT pk, title, description, summary, tags FROM chats WHERE pk > $1 ORDER BY pk LIMIT $2 FOR UPDATE`, after, storecore.RescanBatch)
		if err != nil {
			return db.storeErr("rescan chats", err)
		}
		var changes []change
		for rows.Next() {
			var ch change
			var title, desc, summary []byte
			if err := rows.Scan(&ch.pk, &title, &desc, &summary, &ch.tags); err != nil {
				rows.Close()
				return db.storeErr("scan chat", err)
			}
			n++
			last = ch.pk
			ch.title, ch.description, ch.summary = string(title), string(desc), string(summary)
			total := 0
			for _, f := range []*string{&ch.title, &ch.description, &ch.summary} {
				out, c := r.RedactText(*f)
				if c > 0 || out != *f {
					*f = out
					total += max(c, 1)
				}
			}
			if tags, c := annals.RedactTagsCount(r, ch.tags); c > 0 {
				ch.tags = tags
				total += c
			}
			if total > 0 {
				replacements += total
				changes = append(changes, ch)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return db.storeErr("rescan chats", err)
		}
		for _, ch := range changes {
			if _, err := tx.Exec(ctx, `UPDATE chats SET title = $1, title_fold = $2, description = $3, summary = $4, tags = $5 WHERE pk = $6`,
				[]byte(ch.title), []byte(strings.ToLower(ch.title)), []byte(ch.description), []byte(ch.summary), nonNilTags(ch.tags), ch.pk); err != nil {
				return db.storeErr("rewrite chat", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE chat_meta SET tags = $1, meta_tsv = $2 WHERE chat_pk = $3`,
				nonNilTags(ch.tags), metaTSV(ch.title, ch.description, ch.summary, ch.tags), ch.pk); err != nil {
				return db.storeErr("rewrite chat metadata index", err)
			}
			changed++
		}
		return nil
	})
	if err == nil {
		rep.ChatsScanned += n
		rep.ChatsChanged += changed
		rep.Replacements += replacements
	}
	return n, last, err
}

// nonNilTags stores no tags as an empty array, never NULL.
func nonNilTags(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}
