package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// Blocks of a chat's search document (migration 0010). The limits were chosen by measurement at
// 1M entries (docs/BENCHMARKS.md): an append re-tokenizes at most one block, so they bound its
// cost (one entry into a 10k-entry chat: 3 ms, against 0.8 s for the whole chat), while every
// search reads all the matching sealed blocks of the long chats. At 256 entries 723 of 10,000
// chats were long and a search cost up to 1.6x its CPU time before blocks; at 1,024 only the
// chats of thousands of entries are, and it costs the same.
const (
	defaultBlockEntries = 1024
	defaultBlockBytes   = 1 << 20
	// firstSealedDoc is the rowid of the first sealed block; later ones go up from it. Above
	// every activity key (unix nanoseconds: until 2116), so a walk from the highest rowid down
	// meets every sealed block before the first chat head.
	firstSealedDoc = 1 << 62
)

// blockLimits are the most entries and bytes (of the five indexed entry fields) a block holds;
// an entry larger than maxBytes is a block of its own.
type blockLimits struct{ maxEntries, maxBytes int64 }

func defaultBlockLimits() blockLimits { return blockLimits{defaultBlockEntries, defaultBlockBytes} }

// blockLimits are the limits this store packs blocks with.
func (db *DB) blockLimits() blockLimits {
	if db.blocks.maxEntries > 0 {
		return db.blocks
	}
	return defaultBlockLimits()
}

// entryBytes is an entry's size as the block limits count it; octet_length reads no text.
const entryBytes = `(octet_length(e.text) + octet_length(e.reasoning) + octet_length(e.tool_name) + octet_length(e.tool_args) + octet_length(e.tool_result))`

// ownerTokens is the owner column of every document of chat c (see migration 0007).
const ownerTokens = `'t' || hex(c.tenant_id) || ' u' || hex(c.user_id) || ' a' || hex(c.agent_id)`

// headLo is the pk after which chat c's head block starts: its last sealed block's end.
const headLo = `coalesce((SELECT max(b.hi) FROM chat_blocks b WHERE b.chat_pk = c.pk), 0)`

// headsCTE is heads(pk, lo, seq): every dirty chat with pk <= ?2, the pk its head starts after
// and that entry's seq. The head's entries are read through the (chat_pk, seq) index from seq
// on, so an append to a long chat reads its head and not the chat: a chat's seqs grow with its
// pks (an append numbers after the last seq, a truncation removes the tail), and the pk test
// stays as well.
const headsCTE = `heads(pk, lo, seq) AS MATERIALIZED (SELECT h.pk, h.lo, coalesce((SELECT e.seq FROM entries e WHERE e.pk = h.lo), -1)
	FROM (SELECT c.pk AS pk, ` + headLo + ` AS lo FROM chats c WHERE c.pk IN (SELECT chat_pk FROM chat_docs_dirty WHERE chat_pk <= ?2)) h)`

// headEntries joins a head's entries (alias e) to heads h.
const headEntries = `JOIN entries e ON e.chat_pk = h.pk AND e.seq > h.seq AND e.pk > h.lo`

// dropSealedBlocks removes the sealed blocks of the fully dirty chats (pk <= bound), which are
// then rebuilt from their first entry.
func dropSealedBlocks(ctx context.Context, tx txRunner, bound int64) error {
	const set = `(SELECT chat_pk FROM chat_docs_dirty WHERE chat_pk <= ? AND full)`
	for _, q := range []string{
		`DELETE FROM chat_fts WHERE rowid IN (SELECT doc FROM chat_blocks WHERE chat_pk IN ` + set + `)`,
		`DELETE FROM chat_blocks WHERE chat_pk IN ` + set,
	} {
		if _, err := tx.ExecContext(ctx, q, bound); err != nil {
			return storeErr("chat documents: drop blocks", err)
		}
	}
	return nil
}

// sealBlocks seals the full blocks at the start of every dirty chat's head (pk <= bound): the
// entries after the last sealed block are packed greedily, and every block but the last gets a
// document of its own. Greedy packing from a block's start does not depend on what comes after
// the block, so sealing as a chat grows gives the blocks a build from scratch gives.
func sealBlocks(ctx context.Context, tx txRunner, bound int64, lim blockLimits) error {
	rows, err := tx.QueryContext(ctx, `WITH `+headsCTE+` SELECT h.pk, h.lo FROM heads h `+headEntries+`
		GROUP BY h.pk HAVING count(*) > ?3 OR sum(`+entryBytes+`) > ?4`,
		nil, bound, lim.maxEntries, lim.maxBytes)
	if err != nil {
		return storeErr("chat documents: heads", err)
	}
	type head struct{ pk, lo int64 }
	var over []head
	for rows.Next() {
		var h head
		if err := rows.Scan(&h.pk, &h.lo); err != nil {
			rows.Close()
			return storeErr("chat documents: heads", err)
		}
		over = append(over, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(over) == 0 {
		return storeErrOrNil("chat documents: heads", err)
	}
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(doc) + 1, ?) FROM chat_blocks`, int64(firstSealedDoc)).Scan(&next); err != nil {
		return storeErr("chat documents: next block", err)
	}
	base := next
	for _, h := range over {
		if next, err = sealHead(ctx, tx, h.pk, h.lo, next, lim); err != nil {
			return err
		}
	}
	// One statement for every new block: each statement writing chat_fts is a segment.
	_, err = tx.ExecContext(ctx, `INSERT INTO chat_fts (rowid, text, reasoning, tool_name, tool_args, tool_result, owner)
		SELECT doc, `+indexed("text")+`, `+indexed("reasoning")+`, `+indexed("tool_name")+`, `+indexed("tool_args")+`, `+indexed("tool_result")+`, owner
		FROM (SELECT b.doc AS doc, group_concat(nullif(e.text, ''), ?1) AS text, group_concat(nullif(e.reasoning, ''), ?1) AS reasoning,
			group_concat(nullif(e.tool_name, ''), ?1) AS tool_name, group_concat(nullif(e.tool_args, ''), ?1) AS tool_args,
			group_concat(nullif(e.tool_result, ''), ?1) AS tool_result, `+ownerTokens+` || ' multi' AS owner
		FROM chat_blocks b JOIN chats c ON c.pk = b.chat_pk JOIN entries e ON e.chat_pk = b.chat_pk AND e.pk BETWEEN b.lo AND b.hi
		WHERE b.doc >= ?2 GROUP BY b.doc)`, entrySeparator, base)
	return storeErrOrNil("chat documents: build blocks", err)
}

// sealHead packs the entries of chat pk after lo into blocks and records every full one in
// chat_blocks, numbered up from next; it returns the next free number.
func sealHead(ctx context.Context, tx txRunner, pk, lo, next int64, lim blockLimits) (int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT e.pk, `+entryBytes+` FROM entries e WHERE e.chat_pk = ? AND e.pk > ? ORDER BY e.pk`, pk, lo)
	if err != nil {
		return 0, storeErr("chat documents: pack", err)
	}
	type span struct{ lo, hi int64 }
	var blocks []span
	var cur span
	var n, size int64
	for rows.Next() {
		var epk, sz int64
		if err := rows.Scan(&epk, &sz); err != nil {
			rows.Close()
			return 0, storeErr("chat documents: pack", err)
		}
		if n > 0 && (n == lim.maxEntries || size+sz > lim.maxBytes) {
			blocks = append(blocks, cur)
			n, size = 0, 0
		}
		if n == 0 {
			cur.lo = epk
		}
		cur.hi = epk
		n, size = n+1, size+sz
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, storeErr("chat documents: pack", err)
	}
	// The block still open is the head; the ones before it are sealed.
	for _, b := range blocks {
		if _, err := tx.ExecContext(ctx, `INSERT INTO chat_blocks (doc, chat_pk, lo, hi) VALUES (?, ?, ?, ?)`, next, pk, b.lo, b.hi); err != nil {
			return 0, storeErr("chat documents: seal", err)
		}
		next++
	}
	return next, nil
}

// checkChatBlocks verifies the sealed blocks: each belongs to a chat and holds at least one of
// its entries, and the blocks of a chat neither overlap nor reach into its head.
func checkChatBlocks(ctx context.Context, tx *sql.Tx) error {
	var orphans, empty, over, overlap int
	err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM chat_blocks b WHERE NOT EXISTS (SELECT 1 FROM chats c WHERE c.pk = b.chat_pk)),
		(SELECT count(*) FROM chat_blocks b WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.chat_pk = b.chat_pk AND e.pk BETWEEN b.lo AND b.hi)),
		(SELECT count(*) FROM chat_blocks b WHERE b.lo > b.hi OR NOT EXISTS (SELECT 1 FROM entries e WHERE e.chat_pk = b.chat_pk AND e.pk > b.hi)),
		(SELECT count(*) FROM chat_blocks a JOIN chat_blocks b ON a.chat_pk = b.chat_pk AND a.doc <> b.doc AND a.lo <= b.hi AND b.lo <= a.hi)`).Scan(&orphans, &empty, &over, &overlap)
	if err != nil {
		return err
	}
	if orphans+empty+over+overlap != 0 {
		return fmt.Errorf("chat blocks inconsistent: %d orphaned, %d empty, %d without a head after them, %d overlapping", orphans, empty, over, overlap)
	}
	return nil
}
