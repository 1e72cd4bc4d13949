package postgres

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// countFiltered sets each hit's Matches, for a search of entry filters only (role:, tool:,
// after:, before:), to its chat's entries that pass them: the entries an entry search lists.
func (db *DB) countFiltered(ctx context.Context, p *searchPlan, pks []int64, hits []annals.ChatHit) error {
	index := make(map[int64]int, len(pks))
	for i, pk := range pks {
		index[pk] = i
		hits[i].Matches = 0
	}
	w := &where{}
	w.Add("e.chat_pk = ANY(?::bigint[])", pks)
	w.Conds = append(w.Conds, p.entryWhere.Conds...)
	w.Args = append(w.Args, p.entryWhere.Args...)
	rows, err := db.tracedQuery(ctx, `SELECT e.chat_pk, count(*) FROM entries e WHERE `+w.SQL()+` GROUP BY e.chat_pk`, w.Args...)
	if err != nil {
		return db.storeErr("count matching entries", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk, n int64
		if err := rows.Scan(&pk, &n); err != nil {
			return db.storeErr("count matching entries", err)
		}
		hits[index[pk]].Matches = int(n)
	}
	if err := rows.Err(); err != nil {
		return db.storeErr("count matching entries", err)
	}
	return nil
}

// excludedChats adds the entry search's condition for the query's exclusions at its top
// (storecore.TopExclusions): the entries of a chat holding an excluded term anywhere — in its
// metadata or in an entry passing the entry filters — as a chat search decides. An excluded
// group (`-(a b)`) is taken as one entry holding it, where a chat search takes the whole chat.
func (p *searchPlan) excludedChats(text *annals.TextExpr, w *where) error {
	for _, x := range storecore.TopExclusions(text) {
		et, err := tsExpr(x, p.entryW)
		if err != nil {
			return err
		}
		sub := &where{}
		sub.Add("e.tsv @@ ?::tsquery", et)
		sub.Conds = append(sub.Conds, p.entryWhere.Conds...)
		sub.Args = append(sub.Args, p.entryWhere.Args...)
		w.Add("e.chat_pk NOT IN (SELECT e.chat_pk FROM entries e WHERE "+sub.SQL()+")", sub.Args...)
		if p.useMeta {
			mt, err := tsExpr(x, p.metaW)
			if err != nil {
				return err
			}
			w.Add("e.chat_pk NOT IN (SELECT x.chat_pk FROM chat_meta x WHERE x.meta_tsv @@ ?::tsquery)", mt)
		}
	}
	return nil
}
