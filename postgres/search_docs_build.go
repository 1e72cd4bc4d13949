package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// A capture's chat documents are merged in Go. The SQL function annals_refresh_chat_docs
// (migration 0025) unnested every new entry's vector and the part it merges into, grouped the
// lexemes, wrote the document as text and parsed it back into a tsvector: half of the
// PostgreSQL backend's CPU in an ingest (2.3 of 4.6 s for 10,000 entries, docs/BENCHMARKS.md).
// The writer holds the new entries' vectors already (it built them), so for a chat the
// transaction only appended to it reads what the merge needs (the chat's last part when the new
// entries fall into it, and each new entry's stored vector size, which places the part
// boundaries), merges in Go and writes the parts and the vocabulary's deltas in two statements.
//
// annals_refresh_chat_doc (migration 0018) stays the definition of a document: this merge
// does what it does (docsMerge says how, step by step), CheckIndex rebuilds every document with
// the definition and compares after every conformance subtest, and every other writer (a
// truncate, a rescan, a replicated batch, an agent's adoption) still calls it.

// docPartBytes is the stored vector size after which a chat's document starts a new part.
const docPartBytes = 65536

// docAppend is what a transaction appended to a chat whose document the writer merges in Go:
// the new entries' vectors in seq order, from seq first.
type docAppend struct {
	chat  *chatRef
	first int64
	tsvs  []pgtype.TSVector
}

// docAppended marks a chat the transaction appends to: merged in Go when the writer can
// (goDocs, and no truncate of the chat in this transaction), else refreshed by SQL.
func (w *writer) docAppended(chat *chatRef) error {
	if !w.goDocs || slices.Contains(w.docChats, chat.pk) {
		return w.docChanged(chat.pk, false)
	}
	if w.docNew == nil {
		w.docNew = map[int64]*docAppend{}
	}
	if w.docNew[chat.pk] == nil {
		w.docNew[chat.pk] = &docAppend{chat: chat}
	}
	return nil
}

// docsAppended records, after an append statement, the vectors of the entries it stored in the
// chats merged in Go: per chat, the ids stored in seq order are each the first row of that id
// in the chat's part of the buffer.
func (w *writer) docsAppended(buf *appendBuf, got map[int64]*appended) {
	var rows map[int64]map[string]int
	for pk, a := range got {
		d := w.docNew[pk]
		if d == nil || a.n == 0 {
			continue
		}
		if rows == nil {
			rows = map[int64]map[string]int{}
			for i, c := range buf.rows.chats {
				if w.docNew[c] == nil {
					continue
				}
				m := rows[c]
				if m == nil {
					m = map[string]int{}
					rows[c] = m
				}
				if _, ok := m[buf.rows.ids[i]]; !ok {
					m[buf.rows.ids[i]] = i
				}
			}
		}
		if len(d.tsvs) == 0 {
			d.first = a.last - a.n + 1
		}
		for _, id := range a.ids {
			d.tsvs = append(d.tsvs, buf.rows.tsv[rows[pk][id]])
		}
	}
}

// docLast is what a chat's document holds before the merge: its last part's number, upto and
// running size, and that part's vector when the new entries fall into it.
type docLast struct {
	part        int
	upto, bytes int64
	tsv         pgtype.TSVector
}

// buildDocs merges the new entries of the chats in docNew into their documents and queues the
// writes. A chat whose document does not end right before its new entries (a writer that
// appended without refreshing it) is left to the SQL refresh, which merges from the document's
// upto on.
func (w *writer) buildDocs() error {
	if len(w.docNew) == 0 {
		return nil
	}
	if err := w.flush(); err != nil { // the appends' results give the new entries' vectors
		return err
	}
	docs := w.docNew
	w.docNew = nil
	pks := make([]int64, 0, len(docs))
	firsts := make([]int64, 0, len(docs))
	for pk, d := range docs {
		if len(d.tsvs) > 0 {
			pks = append(pks, pk)
			firsts = append(firsts, d.first)
		}
	}
	if len(pks) == 0 {
		return nil
	}
	last, sizes, err := w.readDocState(pks, firsts)
	if err != nil {
		return err
	}
	var m docsMerge
	for _, pk := range pks {
		d := docs[pk]
		st := last[pk]
		if st == nil {
			st = &docLast{part: -1}
		}
		sz := sizes[pk]
		if st.upto != d.first-1 || len(sz) != len(d.tsvs) {
			w.docChats = append(w.docChats, pk) // not what this merge starts from: SQL's
			continue
		}
		m.chat(d, st, sz)
	}
	return m.queue(w)
}

// readDocState reads, for the chats pks with new entries from firsts, their documents' last
// parts (the vector only when the entry after upto falls into that part) and the stored size
// of each new entry's vector, in seq order: one round trip.
func (w *writer) readDocState(pks, firsts []int64) (map[int64]*docLast, map[int64][]int64, error) {
	b := &pgx.Batch{}
	b.Queue(`SELECT DISTINCT ON (chat_pk) chat_pk, part, upto, bytes, CASE WHEN bytes / $2 = part THEN tsv END
		FROM chat_docs WHERE chat_pk = ANY($1::bigint[]) ORDER BY chat_pk, part DESC`, pks, docPartBytes)
	b.Queue(`SELECT e.chat_pk, pg_column_size(e.tsv) FROM unnest($1::bigint[], $2::bigint[]) AS x(chat, first)
		JOIN entries e ON e.chat_pk = x.chat AND e.seq >= x.first ORDER BY e.chat_pk, e.seq`, pks, firsts)
	br := w.tx.SendBatch(w.ctx, b)
	defer func() { _ = br.Close() }()
	last := map[int64]*docLast{}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, w.db.storeErr("read chat documents", err)
	}
	for rows.Next() {
		var pk int64
		d := &docLast{}
		if err := rows.Scan(&pk, &d.part, &d.upto, &d.bytes, &d.tsv); err != nil {
			rows.Close()
			return nil, nil, w.db.storeErr("read chat documents", err)
		}
		last[pk] = d
	}
	if err := rows.Err(); err != nil {
		return nil, nil, w.db.storeErr("read chat documents", err)
	}
	sizes := map[int64][]int64{}
	rows, err = br.Query()
	if err != nil {
		return nil, nil, w.db.storeErr("read entry vector sizes", err)
	}
	for rows.Next() {
		var pk, size int64
		if err := rows.Scan(&pk, &size); err != nil {
			rows.Close()
			return nil, nil, w.db.storeErr("read entry vector sizes", err)
		}
		sizes[pk] = append(sizes[pk], size)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, w.db.storeErr("read entry vector sizes", err)
	}
	return last, sizes, br.Close()
}

// docsMerge collects the parts and vocabulary deltas of the chats merged, column by column.
type docsMerge struct {
	chats        []int64
	parts        []int32
	tenants      []string
	uptos, bytes []int64
	tsvs         []pgtype.TSVector
	vocab        map[[2]string]int32
}

// docCount is one lexeme of a part being merged: the sum of its position counts (an entry's
// lexeme without positions adds none, and a lexeme no count reached counts 16: least(NULL, 16)
// in the definition), and whether the part held it before.
type docCount struct {
	sum     int
	counted bool
	old     bool
}

// chat merges one chat's new entries, as annals_refresh_chat_doc does: each entry goes to part
// (running size before it) / 64 KiB, the running size starting at the document's; a part's
// lexemes are its entries' (and, for the document's last part, its own words), each with its
// count capped at 16; a word the part did not hold is one more document for the vocabulary.
func (m *docsMerge) chat(d *docAppend, st *docLast, sizes []int64) {
	running := st.bytes
	var part int
	var counts map[string]*docCount
	var upto int64
	flush := func() {
		if counts != nil {
			m.part(d.chat, part, upto, running, counts)
		}
	}
	for i, tsv := range d.tsvs {
		p := int(running / docPartBytes)
		if counts == nil || p != part {
			flush()
			part, counts = p, map[string]*docCount{}
			if p == st.part && st.tsv.Valid {
				for _, l := range st.tsv.Lexemes {
					if !strings.HasPrefix(l.Word, " ") {
						counts[l.Word] = &docCount{sum: len(l.Positions), counted: true, old: true}
					}
				}
			}
		}
		for _, l := range tsv.Lexemes {
			c := counts[l.Word]
			if c == nil {
				c = &docCount{}
				counts[l.Word] = c
			}
			if len(l.Positions) > 0 {
				c.sum += len(l.Positions)
				c.counted = true
			}
		}
		running += sizes[i]
		upto = d.first + int64(i)
	}
	flush()
}

// docMarkers are the thresholds of the frequency markers (' 2word', ...).
var docMarkers = [...]struct {
	n      int
	prefix string
}{{2, " 2"}, {4, " 4"}, {8, " 8"}, {16, " 16"}}

// docPositions are positions 1..16 without a weight (D), which the parts' lexemes share: a
// document's word with count n has the first n.
var docPositions = func() []pgtype.TSVectorPosition {
	p := make([]pgtype.TSVectorPosition, 16)
	for i := range p {
		p[i] = pgtype.TSVectorPosition{Position: uint16(i + 1), Weight: pgtype.TSVectorWeightD}
	}
	return p
}()

// part adds one merged part: the owner's lexemes, each word with positions 1..n, and its markers.
func (m *docsMerge) part(chat *chatRef, part int, upto, bytes int64, counts map[string]*docCount) {
	lex := make([]pgtype.TSVectorLexeme, 0, len(counts)*2+3)
	for _, o := range [...]struct{ prefix, v string }{{" t", chat.owner.TenantID}, {" u", chat.owner.UserID}, {" a", chat.owner.AgentID}} {
		sum := sha256.Sum256([]byte(o.v))
		lex = append(lex, pgtype.TSVectorLexeme{Word: o.prefix + hex.EncodeToString(sum[:])})
	}
	if m.vocab == nil {
		m.vocab = map[[2]string]int32{}
	}
	for word, c := range counts {
		n := 16
		if c.counted {
			n = min(c.sum, 16)
		}
		lex = append(lex, pgtype.TSVectorLexeme{Word: word, Positions: docPositions[:n]})
		for _, mk := range docMarkers {
			if n >= mk.n {
				lex = append(lex, pgtype.TSVectorLexeme{Word: mk.prefix + word})
			}
		}
		if !c.old {
			m.vocab[[2]string{chat.tenantID, word}]++
		}
	}
	slices.SortFunc(lex, func(a, b pgtype.TSVectorLexeme) int { return strings.Compare(a.Word, b.Word) })
	m.chats = append(m.chats, chat.pk)
	m.parts = append(m.parts, int32(part))
	m.tenants = append(m.tenants, chat.tenantID)
	m.uptos = append(m.uptos, upto)
	m.bytes = append(m.bytes, bytes)
	m.tsvs = append(m.tsvs, pgtype.TSVector{Lexemes: lex, Valid: true})
}

// queue queues the parts' upsert and the vocabulary's deltas.
func (m *docsMerge) queue(w *writer) error {
	if len(m.chats) == 0 {
		return nil
	}
	if err := w.queue(execResult, `INSERT INTO chat_docs (chat_pk, part, tenant_id, upto, bytes, tsv)
		SELECT * FROM unnest(?::bigint[], ?::integer[], ?::text[], ?::bigint[], ?::bigint[], ?::tsvector[])
		ON CONFLICT (chat_pk, part) DO UPDATE SET upto = excluded.upto, bytes = excluded.bytes, tsv = excluded.tsv`,
		m.chats, m.parts, m.tenants, m.uptos, m.bytes, m.tsvs); err != nil {
		return err
	}
	if len(m.vocab) == 0 {
		return nil
	}
	tenants := make([]string, 0, len(m.vocab))
	words := make([]string, 0, len(m.vocab))
	docs := make([]int32, 0, len(m.vocab))
	for k, n := range m.vocab {
		tenants, words, docs = append(tenants, k[0]), append(words, k[1]), append(docs, n)
	}
	return w.queue(execResult, `INSERT INTO chat_vocab_delta (tenant_id, word, docs) SELECT * FROM unnest(?::text[], ?::text[], ?::integer[])`,
		tenants, words, docs)
}
