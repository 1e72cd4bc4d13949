package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/annals-dev/annals"
)

// The upkeep of the chat documents (migration 0006). The document itself is defined by the SQL
// function annals_refresh_chat_doc (0018), the one place that knows its shape for one chat;
// writers call annals_refresh_chat_docs (0025), the same for several chats in one statement,
// once per transaction for every chat it appended to, after the appends; a truncate or a rescan
// first deletes the chat's parts, so the call rebuilds them from the entries that remain.
// checkChatDocs rebuilds every document with the definition and compares.

// refreshDocs queues the document refresh of every chat the transaction appended to or
// truncated, after every statement already queued.
func (w *writer) refreshDocs() error {
	if err := w.buildDocs(); err != nil {
		return err
	}
	if len(w.docChats) == 0 {
		return nil
	}
	chats := w.docChats
	w.docChats = nil
	return w.queue(execResult, `SELECT annals_refresh_chat_docs(?::bigint[])`, chats)
}

// refreshDocsIn refreshes the documents of chats inside tx.
func (db *DB) refreshDocsIn(ctx context.Context, tx pgx.Tx, chats []int64) error {
	if len(chats) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT annals_refresh_chat_docs($1::bigint[])`, chats); err != nil {
		return db.storeErr("refresh chat documents", err)
	}
	return nil
}

// addChats adds to chats the ones of more it does not hold yet.
func addChats(chats, more []int64) []int64 {
	for _, pk := range more {
		if !slices.Contains(chats, pk) {
			chats = append(chats, pk)
		}
	}
	return chats
}

// docChanged marks a chat's document for refresh at the end of the transaction; rebuild drops
// its parts first (the entries they were built from are gone or rewritten).
func (w *writer) docChanged(pk int64, rebuild bool) error {
	if rebuild {
		delete(w.docNew, pk) // the rebuild merges every entry left, from none
		if _, err := w.exec(`DELETE FROM chat_docs WHERE chat_pk = ?`, pk); err != nil {
			return err
		}
	}
	for _, p := range w.docChats {
		if p == pk {
			return nil
		}
	}
	w.docChats = append(w.docChats, pk)
	return nil
}

// rebuildDocsOf rebuilds the documents of the chats holding the given entries (a rescan
// rewrote them), inside tx.
func (db *DB) rebuildDocsOf(ctx context.Context, tx pgx.Tx, entryPKs []int64) error {
	if len(entryPKs) == 0 {
		return nil
	}
	var chats []int64
	if err := tx.QueryRow(ctx, `SELECT array_agg(DISTINCT chat_pk) FROM entries WHERE pk = ANY($1)`, entryPKs).Scan(&chats); err != nil {
		return db.storeErr("rebuild chat documents", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM chat_docs WHERE chat_pk = ANY($1)`, chats); err != nil {
		return db.storeErr("rebuild chat documents", err)
	}
	if _, err := tx.Exec(ctx, `SELECT annals_refresh_chat_docs($1::bigint[])`, chats); err != nil {
		return db.storeErr("rebuild chat documents", err)
	}
	return nil
}

// checkChatDocs verifies that every chat's document is what a build from scratch gives: it
// rebuilds them all inside a transaction it rolls back, and compares. So the incremental upkeep
// of captures, truncates and rescans is checked against the one definition.
func (db *DB) checkChatDocs(ctx context.Context) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.storeErr("check chat documents", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	steps := []string{
		`CREATE TEMP TABLE chat_docs_kept ON COMMIT DROP AS SELECT * FROM chat_docs`,
		`DELETE FROM chat_docs`,
		`SELECT annals_refresh_chat_doc(pk) FROM chats`,
	}
	for _, s := range steps {
		if _, err := tx.Exec(ctx, s); err != nil {
			return db.storeErr("check chat documents", err)
		}
	}
	rows, err := tx.Query(ctx, `SELECT coalesce(k.chat_pk, d.chat_pk), coalesce(k.part, d.part), k.tsv, d.tsv
		FROM chat_docs_kept k FULL JOIN chat_docs d ON d.chat_pk = k.chat_pk AND d.part = k.part
		WHERE k.chat_pk IS NULL OR d.chat_pk IS NULL OR k.tsv::text <> d.tsv::text OR k.upto <> d.upto OR k.bytes <> d.bytes
			OR k.tenant_id <> d.tenant_id
		LIMIT 1`)
	if err != nil {
		return db.storeErr("check chat documents", err)
	}
	defer rows.Close()
	if rows.Next() { // LIMIT 1: the first difference is the answer
		var pk int64
		var part int
		var kept, want pgtype.TSVector
		if err := rows.Scan(&pk, &part, &kept, &want); err != nil {
			return db.storeErr("check chat documents", err)
		}
		return annals.Internal("check index", fmt.Errorf("chat pk %d part %d: document %q, a rebuild gives %q", pk, part, kept.String(), want.String()))
	}
	if err := rows.Err(); err != nil {
		return db.storeErr("check chat documents", err)
	}
	return nil
}
