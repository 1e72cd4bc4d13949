package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/annals-dev/annals"
)

// The chat's tenant and user are tokens of the entry index's facets column (migration 0036), so
// a small owner's search ANDs its token into its MATCH and FTS5 hands over only the owner's
// matches: a tenant holding 1% of the entries walks its own postings instead of every tenant's
// newest matches until it has found enough of its own (issue 33 item 3). The SQL owner
// condition still decides; the token only narrows. It weighs 0 in the ranking like the other
// facets, and the ranking function does not count it (ftsrank_counts.go). A larger owner (more
// than 1/ownerTokenShare of the entries) searches without it: its matches are most of the
// newest anyway, and narrowing every owner measured no faster (docs/BENCHMARKS.md, 2026-12-08).
//
// Each token starts with a character of the supplementary private use area, which the query
// language never puts in a word (search_facets.go): U+F0102 before the upper-case hex of the
// tenant id, U+F0103 before the hex of the tenant id, a line feed and the user id. The
// migration's SQL spells the same tokens.
const (
	tenantFacet = "\U000F0102"
	userFacet   = "\U000F0103"
	// ownerTokenShare: an owner holding at most 1/ownerTokenShare of the entries narrows by its
	// token (chosen when bm25 still counted the token's postings in every scored statement;
	// with the ranking function it is free to score, and a larger owner still gains nothing).
	ownerTokenShare = 20
	// ownerChatsRead bounds the chats read to learn an owner's share: an owner with more live
	// chats is taken as large.
	ownerChatsRead = 5000
	// ownerShareRecheck: an owner's share is read again once the entries have grown by this
	// fraction since (1/10: by 10%).
	ownerShareRecheck = 10
)

// ownerIndexed reports whether the entry index holds the owner tokens (an older schema, opened
// read-only before its upgrade, does not: the searches then walk as before).
func ownerIndexed(ctx context.Context, q *sql.DB) (bool, error) {
	return schemaHas(ctx, q, "trigger", "chats_delete_entries_first")
}

// ownerFacetMatch is the FTS5 expression of o's narrowest token over the facets column: its
// user's when it has a user (the tenant's user alone), else its tenant's. "" for every tenant
// (nothing to narrow) and for the zero owner (which matches nothing through the SQL condition
// anyway). An agent is not a token: an agent's search narrows by its user or tenant.
func ownerFacetMatch(o annals.Owner) string {
	if o.AllTenants || o.TenantID == "" {
		return ""
	}
	prefix, id := tenantFacet, o.TenantID
	if o.UserID != "" {
		prefix, id = userFacet, o.TenantID+"\n"+o.UserID
	}
	return `facets : "` + prefix + strings.ToUpper(hex.EncodeToString([]byte(id))) + `"`
}

// ownerShares remembers which owners are small enough for their token (planOwner), per
// database handle, until the entries have grown by 1/ownerShareRecheck: an owner's share
// changes slowly, and reading it costs a lookup per chat of the owner.
type ownerShares struct {
	mu    sync.Mutex
	known map[ownerKey]ownerShare
}

type ownerKey struct{ tenant, user string }

type ownerShare struct {
	small bool
	top   int64 // the highest entry pk when it was read
}

// maxOwnerShares bounds the owners remembered; past it the memory starts again.
const maxOwnerShares = 4096

func (s *ownerShares) get(k ownerKey, top int64) (small, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.known[k]
	if !ok || top > v.top+v.top/ownerShareRecheck || top < v.top {
		return false, false
	}
	return v.small, true
}

func (s *ownerShares) put(k ownerKey, v ownerShare) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known == nil || len(s.known) >= maxOwnerShares {
		s.known = map[ownerKey]ownerShare{}
	}
	s.known[k] = v
}

// planOwner sets p.owner, the owner token the plan's entry MATCHes carry, when the index holds
// them and the owner is small: its live chats hold at most 1/ownerTokenShare of the entries
// (their entry counts, through the index of live chats by owner, against the highest entry pk;
// an owner with more than ownerChatsRead live chats is taken as large). The answer only decides
// how a search walks, never what it finds, so it is remembered (ownerShares).
//
// q runs the statements: the search's read transaction, or nil for the reader pool.
func (db *DB) planOwner(ctx context.Context, q queryer, p *searchPlan) error {
	o := p.f.Chat.Owner
	m := ownerFacetMatch(o)
	if !db.ownerFacets || db.noOwnerFacets || m == "" || p.f.Text == nil {
		return nil
	}
	row := db.stmts.queryRow
	if q != nil {
		row = q.QueryRowContext
	}
	const topQ = `SELECT coalesce(max(pk), 0) FROM entries`
	annals.TraceStatement(ctx, topQ, nil)
	var top int64
	if err := row(ctx, topQ).Scan(&top); err != nil {
		return storeErr("owner's share", err)
	}
	key := ownerKey{o.TenantID, o.UserID}
	small, known := db.owners.get(key, top)
	if !known {
		// The live chats, so that the index of live chats by owner (0011) finds a user's chats
		// without reading the rest of its tenant's: an estimate, as the token is only a path.
		w := &where{}
		w.Add("c.tenant_id = ?", o.TenantID)
		if o.UserID != "" {
			w.Add("c.user_id = ?", o.UserID)
		}
		w.Add("c.archived_at IS NULL")
		share := `SELECT count(*), coalesce(sum(n), 0) FROM (SELECT c.entry_count AS n FROM chats c WHERE ` + w.SQL() + ` LIMIT ?)`
		args := append(append([]any{}, w.Args...), ownerChatsRead+1)
		annals.TraceStatement(ctx, share, args)
		var chats, mine int64
		if err := row(ctx, share, args...).Scan(&chats, &mine); err != nil {
			return storeErr("owner's share", err)
		}
		small = chats <= ownerChatsRead && mine*ownerTokenShare <= top
		db.owners.put(key, ownerShare{small: small, top: top})
	}
	if small {
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
