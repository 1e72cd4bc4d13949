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

// ChatIDsWithAttribute finds chats by one attribute's exact value, through the (tenant_id,
// key, value) index of chat_attributes; see annals.ChatStore.
func (db *DB) ChatIDsWithAttribute(ctx context.Context, owner annals.Owner, key, value string, limit int) ([]string, error) {
	query, args := chatIDsWithAttributeQuery(owner, key, value, limit)
	rows, err := db.tracedQuery(ctx, query, args...)
	if err != nil {
		return nil, db.storeErr("chats by attribute", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, db.storeErr("chats by attribute", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("chats by attribute", err)
	}
	return ids, nil
}

// chatIDsWithAttributeQuery constrains the attribute row's own tenant_id too, so the index
// (tenant_id, key, value) answers a member's lookup, and reads the matches first (a
// MATERIALIZED CTE), then each match's chat by its key (a LATERAL subquery that OFFSET 0
// keeps from being pulled up: the planner cannot start from the tenant's chats instead).
func chatIDsWithAttributeQuery(owner annals.Owner, key, value string, limit int) (string, []any) {
	m := storecore.Where{}
	m.AddOwner("a", annals.Owner{AllTenants: owner.AllTenants, TenantID: owner.TenantID})
	m.Add("a.key = ?", key)
	m.Add("a.value = ?::bytea", []byte(value))
	// The tenant is the attribute row's (always its chat's); the user and agent are the chat's.
	w := storecore.Where{Args: m.Args}
	w.Add("c.pk = m.chat_pk")
	if !owner.AllTenants && owner.UserID != "" {
		w.Add("c.user_id = ?", owner.UserID)
	}
	if !owner.AllTenants && owner.AgentID != "" {
		w.Add("c.agent_id = ?", owner.AgentID)
	}
	return `WITH m AS MATERIALIZED (SELECT a.chat_pk FROM chat_attributes a WHERE ` + m.SQL() + `)
		SELECT c.id FROM m CROSS JOIN LATERAL (SELECT c.id, c.pinned, c.last_activity FROM chats c
			WHERE ` + w.SQL() + ` OFFSET 0) c
		ORDER BY c.pinned DESC, c.last_activity DESC, c.id LIMIT ?`, append(w.Args, limit)
}
