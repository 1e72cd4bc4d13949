package postgres

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/view"
)

// The view's substring filter (view.Filter.Substring) on PostgreSQL. Migration 0028 keeps
// annals_view_text (every field in the 'escape' encoding) with ASCII letters lower-cased, of
// blocks of a chat's entries, and indexes the blocks with pg_trgm; a search asks that index for
// candidate blocks with LIKE on the folded substring in the same encoding, and proves each entry
// of a candidate block on the fields it matches by (substringProof).

const viewSearchOrder = "e.time DESC, c.id DESC, e.seq DESC"

// viewSubstring answers a search with a substring; w holds every other condition. A message
// matches on its own fields or, for an assistant message, on its calls' (storecore.SubstringMatch).
// A substring of fewer than three characters has no trigram: pg_trgm would answer the LIKE with
// every block (a full index scan, then a sort of every entry), so the condition is the proof
// alone, and the planner walks entries_by_time newest first, stopping at the page, as the
// reference's LIKE scan does. So does a longer one held by many blocks in the owner's chats
// (substringDense). Any other is looked up in the blocks' trigram index: when no tool entry in
// the owner's chats holds it in its call fields, on the entries' own fields alone; else as a
// UNION of the entries holding it in their own fields and the assistant messages with a call
// holding it, each stopped at the page. One condition with an OR over the calls' EXISTS would
// hide the first part from the index and scan every entry in scope for a rare substring.
func (db *DB) viewSubstring(ctx context.Context, w *where, f view.Filter, limit int) (*view.Page, error) {
	var q string
	var args []any
	if utf8.RuneCountInString(f.Substring) < 3 {
		cond, condArgs := substringProof(f.Substring, storecore.SubstringMatch)
		w.Add(cond, condArgs...)
		q, args = viewSQL().KeysFirst(f.Select, entriesJoin, &w.Where, viewSearchOrder), append(w.Args, limit+1)
	} else {
		pattern := storecore.LikePattern(pgEscape(storecore.FoldASCII(f.Substring)))
		calls, callArgs := substringProof(f.Substring, storecore.SubstringCallMatch)
		callsHold := `vb_t.body LIKE ? AND ` + calls
		held, err := db.heldByCalls(ctx, f.Owner, callsHold, append([]any{pattern}, callArgs...))
		if err != nil {
			return nil, err
		}
		dense, err := db.substringDense(ctx, f.Owner, pattern)
		if err != nil {
			return nil, err
		}
		own, ownArgs := substringProof(f.Substring, storecore.SubstringOwnMatch)
		ownFrom := entriesJoin
		if !dense {
			own, ownArgs, ownFrom = `vb_e.body LIKE ? AND `+own, append([]any{pattern}, ownArgs...), ownFrom+substringBlocks("e")
		}
		w.Add(own, ownArgs...)
		if !held {
			q, args = viewSQL().KeysFirst(f.Select, ownFrom, &w.Where, viewSearchOrder), append(w.Args, limit+1)
		} else {
			byCalls := &where{}
			byCalls.Conds, byCalls.Args = slices.Clone(w.Conds[:len(w.Conds)-1]), slices.Clone(w.Args[:len(w.Args)-len(ownArgs)])
			byCalls.Add(`e.kind = 'assistant' AND EXISTS (SELECT 1 FROM entries t`+substringBlocks("t")+` WHERE `+storecore.CallOf("t", "e.chat_pk", "e.seq")+` AND `+callsHold+`)`,
				append([]any{pattern}, callArgs...)...)
			q = `SELECT ` + viewSQL().MessageColumns(f.Select) + ` FROM (
				(SELECT e.pk FROM ` + ownFrom + ` WHERE ` + w.SQL() + ` ORDER BY ` + viewSearchOrder + ` LIMIT ?)
				UNION
				(SELECT e.pk FROM ` + entriesJoin + ` WHERE ` + byCalls.SQL() + ` ORDER BY ` + viewSearchOrder + ` LIMIT ?)) page
				JOIN entries e ON e.pk = page.pk JOIN chats c ON c.pk = e.chat_pk ORDER BY ` + viewSearchOrder + ` LIMIT ?`
			args = append(append(append(slices.Clone(w.Args), limit+1), byCalls.Args...), limit+1, limit+1)
		}
	}
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("view search", err)
	}
	return db.readMessages(rows, f.Select, limit)
}

// denseBlocks is how many blocks in the owner's chats (up to 64 entries each) must hold a
// substring for a search to walk the entries by time, proving each, instead of proving every
// entry of the candidate blocks and sorting them: from there on a page of matches is no more than
// about 1/10 of the entries in scope away, and the candidates' entries would number 32,000.
const denseBlocks = 500

// substringDense reports whether denseBlocks blocks in the owner's chats hold the LIKE pattern,
// counted through the trigram index and stopped there. The planner cannot tell this itself: a
// block's body is wider than the values ANALYZE samples, so its estimate of a LIKE is a fixed
// guess by the pattern's length, the same for a needle in one entry and one in every other.
func (db *DB) substringDense(ctx context.Context, owner annals.Owner, pattern string) (bool, error) {
	dense := denseBlocks
	if db.denseBlocks > 0 {
		dense = db.denseBlocks
	}
	w := &where{}
	w.AddOwner("c", owner)
	var n int
	err := db.pool.QueryRow(ctx, rebind(`SELECT count(*) FROM (SELECT 1 FROM entry_view_blocks vb JOIN chats c ON c.pk = vb.chat_pk
		WHERE vb.body LIKE ? AND `+w.SQL()+` LIMIT ?) x`), append(append([]any{pattern}, w.Args...), dense)...).Scan(&n)
	if err != nil {
		return false, db.storeErr("view search substring blocks", err)
	}
	return n >= dense, nil
}

// heldByCalls reports whether a tool entry (alias t, its block vb_t) in the owner's chats
// satisfies cond. Only the owner's chats are read, so the plan depends on nothing outside the
// caller's scope.
func (db *DB) heldByCalls(ctx context.Context, owner annals.Owner, cond string, args []any) (bool, error) {
	w := &where{}
	w.AddOwner("c", owner)
	var held bool
	err := db.pool.QueryRow(ctx, rebind(`SELECT EXISTS (SELECT 1 FROM entries t JOIN chats c ON c.pk = t.chat_pk`+substringBlocks("t")+`
		WHERE t.kind = 'tool' AND `+cond+` AND `+w.SQL()+`)`), append(slices.Clone(args), w.Args...)...).Scan(&held)
	if err != nil {
		return false, db.storeErr("view search substring calls", err)
	}
	return held, nil
}

// substringBlocks joins the entry of the alias to the block of its chat that holds it (alias
// vb_ and the entry's alias; migration 0028), whose body a search matches with LIKE: true for
// every entry holding the substring, so a candidate test, looked up in the blocks' trigram index.
// Each entry lies in exactly one block, so the join never repeats an entry, and the planner may
// start from either side: the candidate blocks (a rare substring) or the entries by time (a
// common one). A block lies inside one 64-aligned bucket of seqs, which bounds the range the
// (chat_pk, first_seq) index is read over from an entry.
func substringBlocks(alias string) string {
	a, b := alias+".", "vb_"+alias+"."
	return " JOIN entry_view_blocks vb_" + alias + " ON " + b + "chat_pk = " + a + "chat_pk AND " +
		b + "first_seq <= " + a + "seq AND " + b + "last_seq >= " + a + "seq AND " + b + "first_seq >= (" + a + "seq >> 6) << 6"
}

// substringProof is a part of storecore.SubstringMatch built by match, each field tested on its
// bytes with ASCII letters folded: SQL LIKE's match, the same answer SQLite gives, whatever the
// server's locale. The text fields are converted to their bytes first.
func substringProof(s string, match func(like func(col string) string) (string, int)) (string, []any) {
	cond, n := match(func(col string) string {
		if strings.HasSuffix(col, ".tool_name") || strings.HasSuffix(col, ".tool_args") {
			col = "convert_to(" + col + ", 'UTF8')"
		}
		return "position(?::bytea in annals_view_fold(" + col + ")) > 0"
	})
	folded := []byte(storecore.FoldASCII(s))
	args := make([]any, n)
	for i := range args {
		args[i] = folded
	}
	return cond, args
}

// pgEscape is PostgreSQL's encode(b, 'escape') of the bytes of s: a backslash doubled, NUL and
// every byte from 0x80 as a backslash and three octal digits, every other byte itself.
func pgEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == 0 || c >= 0x80:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
