package postgres

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// MatchChatIDs finds chats by a prefix of their id or of the text after a ':' in it, through
// chat_id_keys; see annals.ChatStore.
func (db *DB) MatchChatIDs(ctx context.Context, owner annals.Owner, prefix string, limit int) ([]string, error) {
	return storecore.MatchChatIDs(owner, prefix, limit, func(query string, args []any) ([]storecore.IDKeyRow, error) {
		rows, err := db.tracedQuery(ctx, query, args...)
		if err != nil {
			return nil, db.storeErr("match chat ids", err)
		}
		defer rows.Close()
		var out []storecore.IDKeyRow
		for rows.Next() {
			var r storecore.IDKeyRow
			if err := rows.Scan(&r.Key, &r.ChatPK, &r.ChatID); err != nil {
				return nil, db.storeErr("match chat ids", err)
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return nil, db.storeErr("match chat ids", err)
		}
		return out, nil
	})
}
