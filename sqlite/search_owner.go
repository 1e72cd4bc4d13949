package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"strings"

	"github.com/annals-dev/annals"
)

// The chat's tenant and user are tokens of the entry index's facets column (migration 0036), so
// a small owner's search ANDs them into its MATCH and FTS5 hands over only the owner's matches:
// a tenant holding 1% of the entries walks its own postings instead of every tenant's newest
// matches until it has found enough of its own (issue 33 item 3). The SQL owner condition still
// decides; the tokens only narrow. They weigh 0 in bm25 like the other facets, so a score is the
// words' (a phrase of weight 0 adds 0), and bm25's document count of the owner's tokens is a
// pass over the owner's postings only: cheap for a small owner, and the reason a large one
// (more than 1/ownerTokenShare of the entries) searches without them.
//
// Each token starts with a character of the supplementary private use area, which the query
// language never puts in a word (search_facets.go): U+F0102 before the upper-case hex of the
// tenant id, U+F0103 before the user id's. The migration's SQL spells the same tokens.
const (
	tenantFacet = "\U000F0102"
	userFacet   = "\U000F0103"
	// ownerTokenShare: an owner holding at most 1/ownerTokenShare of the entries narrows by its
	// tokens. bm25 counts a token's documents with a pass over its postings (~37 ns each at 1M
	// entries), which for a larger owner costs about what the walk through other owners'
	// matches saves.
	ownerTokenShare = 10
	// ownerChatsRead bounds the chats read to learn an owner's share: an owner with more chats
	// is taken as large (it holds at least that many chats' entries).
	ownerChatsRead = 20000
)

// ownerIndexed reports whether the entry index holds the owner tokens (an older schema, opened
// read-only before its upgrade, does not: the searches then walk as before).
func ownerIndexed(ctx context.Context, q *sql.DB) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'chats_delete_entries_first'`).Scan(&n)
	if err != nil {
		return false, storeErr("read schema", err)
	}
	return n > 0, nil
}

// ownerFacetMatch is the FTS5 expression of o's tokens over the facets column: its tenant and,
// when set, its user. "" for every tenant (nothing to narrow) and for the zero owner (which
// matches nothing through the SQL condition anyway).
func ownerFacetMatch(o annals.Owner) string {
	if o.AllTenants || o.TenantID == "" {
		return ""
	}
	tok := func(prefix, id string) string {
		return `facets : "` + prefix + strings.ToUpper(hex.EncodeToString([]byte(id))) + `"`
	}
	m := tok(tenantFacet, o.TenantID)
	if o.UserID != "" {
		m += " AND " + tok(userFacet, o.UserID)
	}
	return m
}

// planOwner sets p.owner, the owner tokens the plan's entry MATCHes carry, when the index holds
// them and the owner is small: its chats hold at most 1/ownerTokenShare of the entries. The
// share is read from the chats' entry counts (one index range of the owner's chats) against
// the highest entry pk (deleted entries make it larger: the share is then underestimated,
// which only makes a borderline owner use its tokens).
func (db *DB) planOwner(ctx context.Context, p *searchPlan) error {
	m := ownerFacetMatch(p.f.Chat.Owner)
	if !db.ownerFacets || db.noOwnerFacets || m == "" || p.f.Text == nil {
		return nil
	}
	w := &where{}
	w.AddOwner("c", p.f.Chat.Owner)
	q := `SELECT count(*), coalesce(sum(n), 0), (SELECT coalesce(max(pk), 0) FROM entries)
		FROM (SELECT c.entry_count AS n FROM chats c WHERE ` + w.SQL() + ` LIMIT ?)`
	args := append(append([]any{}, w.Args...), ownerChatsRead+1)
	annals.TraceStatement(ctx, q, args)
	var chats, mine, all int64
	if err := db.stmts.queryRow(ctx, q, args...).Scan(&chats, &mine, &all); err != nil {
		return storeErr("owner's share", err)
	}
	if chats <= ownerChatsRead && mine*ownerTokenShare <= all {
		p.owner = m
	}
	return nil
}

// entryPath is how a search on the entry index reports its path (annals.SearchReport), with
// what else it says of the way it ran (detail, "" for nothing).
func (p *searchPlan) entryPath(detail string) string {
	var says []string
	if p.owner != "" {
		says = append(says, "the owner's postings")
	}
	if detail != "" {
		says = append(says, detail)
	}
	if len(says) == 0 {
		return "entry index"
	}
	return "entry index (" + strings.Join(says, ", ") + ")"
}
