package storecore

import (
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// ChatIDKeys returns the keys a chat is found by when an id is resolved (the chat_id_keys
// rows the stores write with every new chat): its id, and the text after each ':' in it. A
// string matches ChatFilter.IDPrefix exactly when it is a prefix of one of them, so a prefix
// range over these keys finds what the filter finds, through an index.
func ChatIDKeys(id string) []string {
	keys := []string{id}
	for rest := id; ; {
		i := strings.IndexByte(rest, ':')
		if i < 0 {
			return keys
		}
		rest = rest[i+1:]
		if rest != "" {
			keys = append(keys, rest)
		}
	}
}

// PrefixEnd returns the least string above every string that starts with prefix, in code
// point order (UTF-8 byte order: SQLite's BINARY collation and PostgreSQL's "C"), so that
// key >= prefix AND key < end is a range an index answers; false when no string is above them
// all (the prefix is all U+10FFFF). prefix must be valid UTF-8.
func PrefixEnd(prefix string) (string, bool) {
	for p := prefix; p != ""; {
		r, size := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-size]
		if r == utf8.MaxRune {
			continue
		}
		next := r + 1
		if next == 0xD800 { // surrogates are not runes: the next one is U+E000
			next = 0xE000
		}
		return p + string(next), true
	}
	return "", false
}

// IDKeyRow is one row of a chat id match: a key that starts with the prefix, and its chat.
type IDKeyRow struct {
	Key    string
	ChatPK int64
	ChatID string
}

// idKeyPage bounds the rows one statement of MatchChatIDs reads; a chat has one row per key
// that starts with the prefix, so a page can hold fewer chats than rows.
const idKeyPage = 64

// MatchChatIDs returns the ids of up to limit chats inside owner with a key that starts with
// prefix (see annals.ChatStore.MatchChatIDs), in key order. run executes one statement (with ?
// placeholders) and returns its rows; each statement is one range scan of chat_id_keys, by
// tenant and key, or by key for a global owner, that stops after a page of rows.
func MatchChatIDs(owner annals.Owner, prefix string, limit int, run func(query string, args []any) ([]IDKeyRow, error)) ([]string, error) {
	if prefix == "" || limit <= 0 {
		return nil, nil
	}
	var ids []string
	seen := map[int64]bool{}
	var after *IDKeyRow
	for {
		q, args := matchQuery(owner, prefix, after)
		rows, err := run(q, args)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			if !seen[rows[i].ChatPK] {
				seen[rows[i].ChatPK] = true
				ids = append(ids, rows[i].ChatID)
				if len(ids) == limit {
					return ids, nil
				}
			}
		}
		if len(rows) < idKeyPage {
			return ids, nil
		}
		after = &rows[len(rows)-1]
	}
}

// MatchChatIDsQuery is the first statement MatchChatIDs runs, for a plan test.
func MatchChatIDsQuery(owner annals.Owner, prefix string) (string, []any) {
	return matchQuery(owner, prefix, nil)
}

// matchQuery is one page of matching keys after the (key, chat) row after, if any. The tenant
// and key range are on chat_id_keys, whose primary key (tenant_id, key, chat_pk), or whose
// index (key, chat_pk) for a global owner, is the only index that serves them; the user and
// agent constraints are checked on each matching chat.
func matchQuery(owner annals.Owner, prefix string, after *IDKeyRow) (string, []any) {
	var w Where
	if !owner.AllTenants {
		if owner.TenantID == "" {
			w.Add("1 = 0")
		} else {
			w.Add("k.tenant_id = ?", owner.TenantID)
		}
	}
	w.Add("k.key >= ?", prefix)
	if end, ok := PrefixEnd(prefix); ok {
		w.Add("k.key < ?", end)
	}
	if after != nil {
		w.Add("(k.key, k.chat_pk) > (?, ?)", after.Key, after.ChatPK)
	}
	if !owner.AllTenants && owner.UserID != "" {
		w.Add("c.user_id = ?", owner.UserID)
	}
	if !owner.AllTenants && owner.AgentID != "" {
		w.Add("c.agent_id = ?", owner.AgentID)
	}
	w.Args = append(w.Args, idKeyPage)
	return `SELECT k.key, k.chat_pk, c.id FROM chat_id_keys k JOIN chats c ON c.pk = k.chat_pk
		WHERE ` + w.SQL() + ` ORDER BY k.key, k.chat_pk LIMIT ?`, w.Args
}
