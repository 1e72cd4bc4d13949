package postgres

import (
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/annals-dev/annals"
)

// Appends are not sent one statement per op. A capture batch interleaves them with runs (a
// transcript is entry, entry, run, entry, ...), and each append statement cost ~3 ms of
// planning and execution however few entries it carried. The writer keeps every append of the
// transaction in one buffer, for all its chats, and sends the buffer as one statement when
// something needs its effect: a truncate or an empty append (they read the chat's entries or
// last seq), a full queue, or the end of the transaction.
//
// Holding an append back past later run ops and chat creations changes nothing they see or
// write: a run touches only its row and the chat's run counters, status and last_activity (a
// maximum, so the order of the two writers does not matter), and a new chat has no entries.
// Within the buffer, a chat's entries keep the batch's order, so seq numbers, the first of a
// repeated id, counts and the outbox payloads are what one statement per op gave.

// maxBufferedEntries bounds the buffer: past it, the buffered appends are queued as they are.
const maxBufferedEntries = 2000

// entryRows holds a batch of entries column by column, for one statement over unnest(...).
type entryRows struct {
	chats                                               []int64
	ids, kinds, runIDs, sources, channels, correlations []string
	times, inTok, outTok                                []int64
	texts, reasonings, results                          [][]byte
	toolNames, callIDs, args, outcomes, metadata        []string
	tsv                                                 []pgtype.TSVector
}

// add appends one entry of the chat with key chatPK, stamped at now when it has no time.
func (r *entryRows) add(chatPK int64, e *annals.Entry, now int64) {
	t := now
	if !e.Time.IsZero() {
		t = unixNano(e.Time)
	}
	var tool annals.ToolCall
	if e.Tool != nil {
		tool = *e.Tool
	}
	r.chats = append(r.chats, chatPK)
	r.ids = append(r.ids, e.ID)
	r.kinds = append(r.kinds, string(e.Kind))
	r.runIDs = append(r.runIDs, e.RunID)
	// Source ids cannot hold a newline (ids are single-line), so it separates them safely.
	r.sources = append(r.sources, strings.Join(e.SourceIDs, "\n"))
	r.channels = append(r.channels, e.Channel)
	r.correlations = append(r.correlations, e.CorrelationID)
	r.times = append(r.times, t)
	r.texts = append(r.texts, []byte(e.Text))
	r.reasonings = append(r.reasonings, []byte(e.Reasoning))
	r.toolNames = append(r.toolNames, tool.Name)
	r.callIDs = append(r.callIDs, tool.CallID)
	r.args = append(r.args, string(tool.Arguments))
	r.results = append(r.results, []byte(tool.Result))
	r.outcomes = append(r.outcomes, string(tool.Outcome))
	r.inTok = append(r.inTok, e.InputTokens)
	r.outTok = append(r.outTok, e.OutputTokens)
	r.metadata = append(r.metadata, string(e.Metadata))
	r.tsv = append(r.tsv, entryTSV(e))
}

// appendSQL appends the entries of several chats in one statement: per chat, it keeps the first
// of each id, drops the ids the chat already holds, numbers the rest from the chat's last seq in
// batch order, inserts them with their source ids, moves the chat's counters, and answers per
// chat how many it appended and the chat's last seq. It runs under the chats' row locks, so no
// last_seq can move meanwhile.
const appendSQL = `WITH x AS (
		SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[],
			?::bytea[], ?::bytea[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::text[], ?::bigint[], ?::bigint[], ?::text[], ?::tsvector[])
			WITH ORDINALITY AS x(chat_pk, id, kind, run_id, src, channel, corr, t, txt, rsn, tname, tcall, targs, tres, tout, itok, otok, meta, tsv, ord)),
	firsts AS (SELECT DISTINCT ON (chat_pk, id) * FROM x ORDER BY chat_pk, id, ord),
	fresh AS (SELECT f.*, row_number() OVER (PARTITION BY f.chat_pk ORDER BY f.ord) AS rn FROM firsts f
		WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.chat_pk = f.chat_pk AND e.id = f.id)),
	base AS (SELECT pk, tenant_id, last_seq FROM chats WHERE pk = ANY(?::bigint[])),
	ins AS (INSERT INTO entries (tenant_id, chat_pk, id, seq, kind, run_id, source_ids, channel, correlation_id, time,
			text, reasoning, tool_name, tool_call_id, tool_args, tool_result, tool_outcome, input_tokens, output_tokens, metadata, tsv)
		SELECT b.tenant_id, f.chat_pk, f.id, b.last_seq + f.rn, f.kind, f.run_id,
			CASE WHEN f.src = '' THEN '{}'::text[] ELSE string_to_array(f.src, chr(10)) END,
			f.channel, f.corr, f.t, f.txt, f.rsn, f.tname, f.tcall, f.targs, f.tres, f.tout, f.itok, f.otok, f.meta, f.tsv
		FROM fresh f JOIN base b ON b.pk = f.chat_pk
		RETURNING pk, tenant_id, chat_pk, id, seq, source_ids, input_tokens, output_tokens, time),
	srcs AS (INSERT INTO entry_sources (tenant_id, chat_pk, source_id, entry_pk, seq)
		SELECT i.tenant_id, i.chat_pk, s.src, i.pk, i.seq FROM ins i CROSS JOIN LATERAL unnest(i.source_ids) AS s(src)
		ON CONFLICT DO NOTHING),
	agg AS (SELECT chat_pk, count(*) AS n, coalesce(sum(input_tokens), 0) AS itok, coalesce(sum(output_tokens), 0) AS otok,
			max(time) AS t
		FROM ins GROUP BY chat_pk),
	upd AS (UPDATE chats c SET last_seq = c.last_seq + a.n,
			entry_count = c.entry_count + a.n,
			revision = c.revision + a.n,
			entry_input_tokens = least(c.entry_input_tokens + a.itok, 9223372036854775807),
			entry_output_tokens = least(c.entry_output_tokens + a.otok, 9223372036854775807),
			last_activity = greatest(c.last_activity, a.t)
		FROM agg a WHERE c.pk = a.chat_pk)
	SELECT b.pk, coalesce(a.n, 0), b.last_seq + coalesce(a.n, 0) FROM base b LEFT JOIN agg a ON a.chat_pk = b.pk`

// appendIDsSQL is appendSQL answering also, per chat, the ids it appended in seq order, for
// the outbox.
var appendIDsSQL = strings.Replace(appendSQL,
	`SELECT b.pk, coalesce(a.n, 0), b.last_seq + coalesce(a.n, 0) FROM`,
	`SELECT b.pk, coalesce(a.n, 0), b.last_seq + coalesce(a.n, 0),
		coalesce((SELECT array_agg(i.id ORDER BY i.seq) FROM ins i WHERE i.chat_pk = b.pk), '{}') FROM`, 1)

// appendBuf is the appends of the transaction not sent yet, in op order.
type appendBuf struct {
	rows entryRows
	ops  []bufferedAppend
}

// bufferedAppend is one append op in the buffer: its index in the batch, its chat, its first
// row in the buffer, and its outbox slot (-1 when the outbox is off).
type bufferedAppend struct {
	index int
	op    *annals.AppendOp
	chat  int64
	from  int
	slot  int
}

// appended is what the append statement answers for one chat.
type appended struct {
	n, last int64
	ids     []string
}

func (w *writer) append(op *annals.AppendOp, expect *annals.ChatOwner, res *annals.CaptureResult) error {
	chat, err := w.findTarget(op.ChatID, expect)
	if err != nil {
		return err
	}
	if len(op.Entries) == 0 {
		// It answers the chat's last seq: after the appends before it.
		w.emitAppends(res)
		return w.queue(func(br pgx.BatchResults) error {
			return br.QueryRow().Scan(&res.LastSeq)
		}, `SELECT last_seq FROM chats WHERE pk = ?`, chat.pk)
	}
	if err := w.docAppended(chat); err != nil {
		return err
	}
	b := bufferedAppend{index: w.op, op: op, chat: chat.pk, from: len(w.appends.rows.ids), slot: -1}
	if w.changes != nil {
		b.slot = w.changes.Reserve()
	}
	now := unixNano(w.now)
	for _, e := range op.Entries {
		w.appends.rows.add(chat.pk, e, now)
	}
	w.appends.ops = append(w.appends.ops, b)
	if len(w.appends.rows.ids) >= maxBufferedEntries {
		w.emitAppends(res)
		if w.pending.Len() >= maxPending {
			return w.flush()
		}
	}
	return nil
}

// emitAppends queues the buffered appends as one statement (without flushing the queue).
func (w *writer) emitAppends(res *annals.CaptureResult) {
	buf := w.appends
	if len(buf.ops) == 0 {
		return
	}
	w.appends = appendBuf{}
	var chats []int64
	seen := map[int64]bool{}
	for _, b := range buf.ops {
		if !seen[b.chat] {
			seen[b.chat] = true
			chats = append(chats, b.chat)
		}
	}
	// The ids stored, in seq order, place each op's entries in the outbox's payloads and give
	// the vectors of the entries a document merged in Go gains.
	withIDs := w.changes != nil || len(w.docNew) > 0
	query := appendSQL
	if withIDs {
		query = appendIDsSQL
	}
	r := &buf.rows
	read := func(br pgx.BatchResults) error {
		got, err := scanAppended(br, withIDs)
		if err != nil {
			return err
		}
		w.appendsDone(buf, got, res)
		return nil
	}
	w.enqueue(buf.ops[0].index, read, query,
		r.chats, r.ids, r.kinds, r.runIDs, r.sources, r.channels, r.correlations, r.times,
		r.texts, r.reasonings, r.toolNames, r.callIDs, r.args, r.results, r.outcomes, r.inTok, r.outTok, r.metadata, r.tsv,
		chats)
}

// scanAppended reads the append statement's answer, per chat.
func scanAppended(br pgx.BatchResults, withIDs bool) (map[int64]*appended, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := map[int64]*appended{}
	for rows.Next() {
		var pk int64
		var a appended
		dest := []any{&pk, &a.n, &a.last}
		if withIDs {
			dest = append(dest, &a.ids)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		got[pk] = &a
	}
	return got, rows.Err()
}

// appendsDone accounts for a sent buffer: the counts, the batch's last seq (of the last append
// op's chat), the seqs this transaction appended from, and each op's outbox payload.
func (w *writer) appendsDone(buf appendBuf, got map[int64]*appended, res *annals.CaptureResult) {
	for pk, a := range got {
		res.EntriesAppended += int(a.n)
		if a.n > 0 {
			w.markFresh(pk, a.last-a.n+1)
			w.feedTouchPK(pk)
		}
	}
	res.EntriesSkipped += len(buf.rows.ids)
	for _, a := range got {
		res.EntriesSkipped -= int(a.n)
	}
	if a := got[buf.ops[len(buf.ops)-1].chat]; a != nil {
		res.LastSeq = a.last
	}
	w.docsAppended(&buf, got)
	if w.changes == nil {
		return
	}
	// Per chat, the appended ids come in seq order, which is op order: each op's are the next
	// ones whose first occurrence in the chat's buffered entries is in that op.
	firstOp := map[int64]map[string]int{}
	for i, b := range buf.ops {
		m := firstOp[b.chat]
		if m == nil {
			m = map[string]int{}
			firstOp[b.chat] = m
		}
		for _, e := range b.op.Entries {
			if _, ok := m[e.ID]; !ok {
				m[e.ID] = i
			}
		}
	}
	used := map[int64]int{}
	for i, b := range buf.ops {
		a := got[b.chat]
		if a == nil {
			continue
		}
		start := used[b.chat]
		end := start
		for end < len(a.ids) && firstOp[b.chat][a.ids[end]] == i {
			end++
		}
		used[b.chat] = end
		if end > start {
			base := a.last - a.n + int64(start)
			times := buf.rows.times[b.from : b.from+len(b.op.Entries)]
			w.changes.Fill(b.slot, appendPayload(b.op, a.ids[start:end], base, times))
		}
	}
}
