package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// MatchChatIDs finds chats by a prefix of their id or of the text after a ':' in it, through
// chat_id_keys; see annals.ChatStore.
func (db *DB) MatchChatIDs(ctx context.Context, owner annals.Owner, prefix string, limit int) ([]string, error) {
	return storecore.MatchChatIDs(owner, prefix, limit, func(query string, args []any) ([]storecore.IDKeyRow, error) {
		rows, err := db.reader.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, storeErr("match chat ids", err)
		}
		defer rows.Close()
		var out []storecore.IDKeyRow
		for rows.Next() {
			var r storecore.IDKeyRow
			if err := rows.Scan(&r.Key, &r.ChatPK, &r.ChatID); err != nil {
				return nil, storeErr("match chat ids", err)
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return nil, storeErr("match chat ids", err)
		}
		return out, nil
	})
}

// chatIDsWithAttributeSQL starts from the (key, value) index of chat_attributes: CROSS JOIN
// keeps SQLite from walking the tenant's chats and probing each one's attributes instead.
const chatIDsWithAttributeSQL = `SELECT c.id FROM chat_attributes a CROSS JOIN chats c
	WHERE a.key = ? AND a.value = ? AND c.pk = a.chat_pk AND `

// ChatIDsWithAttribute finds chats by one attribute's exact value; see annals.ChatStore.
func (db *DB) ChatIDsWithAttribute(ctx context.Context, owner annals.Owner, key, value string, limit int) ([]string, error) {
	query, args := chatIDsWithAttributeQuery(owner, key, value, limit)
	rows, err := db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, storeErr("chats by attribute", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, storeErr("chats by attribute", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("chats by attribute", err)
	}
	return ids, nil
}

func chatIDsWithAttributeQuery(owner annals.Owner, key, value string, limit int) (string, []any) {
	w := storecore.Where{Args: []any{key, value}}
	w.AddOwner("c", owner)
	return chatIDsWithAttributeSQL + w.SQL() + ` ORDER BY c.pinned DESC, c.last_activity DESC, c.id LIMIT ?`, append(w.Args, limit)
}
