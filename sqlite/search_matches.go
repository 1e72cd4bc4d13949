package sqlite

import (
	"context"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// recountMatches sets each hit's Matches to its chat's entries that match text (the query as
// the entry index is searched: prefixes expanded) and the plan's entry filters, one count per
// chat of the page, each within the chat's own rowid range of the entry index. cw is the
// search's chat filter (the owner), so an id names the caller's chat only.
func recountMatches(ctx context.Context, q queryer, p *searchPlan, text *annals.TextExpr, cw *where, hits []annals.ChatHit) error {
	if len(hits) == 0 {
		return nil
	}
	byID := make(map[string]int, len(hits))
	marks := make([]string, len(hits))
	var args []any
	for i, h := range hits {
		hits[i].Matches = 0
		byID[h.Chat.ID] = i
		marks[i] = "?"
		args = append(args, h.Chat.ID)
	}
	if !p.useEntries {
		return nil // metadata fields only: no entry can match
	}
	args = append(args, cw.Args...)
	pg := `pg(pk, id, lo, hi) AS MATERIALIZED (SELECT c.pk, c.id, ` + chatEntryRange + ` FROM chats c WHERE c.id IN (` + strings.Join(marks, ", ") + `) AND ` + cw.SQL() + `)`
	var stmt string
	if text == nil {
		stmt = `WITH ` + pg + ` SELECT g.id, count(*) FROM pg g JOIN entries e ON e.chat_pk = g.pk WHERE ` + p.entryWhere.SQL() + ` GROUP BY g.id`
		args = append(args, p.entryWhere.Args...)
	} else {
		match, err := ftsCompile(text, p.entryCols)
		if err != nil {
			return err
		}
		stmt = `WITH ` + pg + ` SELECT g.id, count(*) FROM pg g CROSS JOIN entries_fts CROSS JOIN ` + p.filtered() + `
			WHERE entries_fts MATCH ? AND entries_fts.rowid BETWEEN g.lo AND g.hi AND e.pk = entries_fts.rowid AND e.chat_pk = g.pk`
		args = append(args, p.narrow(match))
		if len(p.entryWhere.Conds) > 0 {
			stmt += ` AND ` + p.entryWhere.SQL()
			args = append(args, p.entryWhere.Args...)
		}
		stmt += ` GROUP BY g.id`
	}
	annals.TraceStatement(ctx, stmt, args)
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return ftsErr("count matching entries", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return storeErr("count matching entries", err)
		}
		if i, ok := byID[id]; ok {
			hits[i].Matches = n
		}
	}
	return ftsErr("count matching entries", rows.Err())
}

// excludedChats is the entry search's condition for the query's exclusions at its top
// (storecore.TopExclusions): the entries of a chat holding an excluded word anywhere, in its
// metadata or any entry, as a chat search decides. nil when there is none.
func (p *searchPlan) excludedChats(text *annals.TextExpr) (*where, error) {
	var w *where
	for _, x := range storecore.TopExclusions(text) {
		set, args, err := p.chatSet(x)
		if err != nil {
			return nil, err
		}
		if w == nil {
			w = &where{}
		}
		w.Add("e.chat_pk NOT IN ("+set+")", args...)
	}
	return w, nil
}
