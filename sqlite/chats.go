package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

const chatColumns = `c.id, c.tenant_id, c.user_id, c.agent_id, c.attributes, c.created_at, c.last_activity, c.status,
	c.title, c.description, c.tags, c.pinned, c.archived_at, c.summary, c.summary_updated_at,
	c.run_count, c.entry_count, c.entry_input_tokens, c.run_input_tokens, c.entry_output_tokens, c.run_output_tokens, c.cost_usd,
	c.incarnation, c.title_generated, c.revision`

type scanner interface{ Scan(dest ...any) error }

func scanChat(row scanner) (*annals.Chat, error) {
	var c annals.Chat
	var attrs, tags, status string
	var created, active int64
	var archived, summarized sql.NullInt64
	// Counters are read leniently: a database written before token counts were bounded can hold
	// a sum that SQLite turned into a float, and one such chat must not break every list.
	var runs, entries, entryIn, runIn, entryOut, runOut counter
	var cost sql.NullFloat64
	err := row.Scan(&c.ID, &c.TenantID, &c.UserID, &c.AgentID, &attrs, &created, &active, &status,
		&c.Title, &c.Description, &tags, &c.Pinned, &archived, &c.Summary, &summarized,
		&runs, &entries, &entryIn, &runIn, &entryOut, &runOut, &cost, &c.Incarnation, &c.TitleGenerated, &c.Revision)
	if err != nil {
		return nil, &rowError{id: c.ID, err: err}
	}
	c.Totals = annals.Totals{
		Runs: int64(runs), Entries: int64(entries),
		InputTokens:  annals.SaturatingAdd(int64(entryIn), int64(runIn)),
		OutputTokens: annals.SaturatingAdd(int64(entryOut), int64(runOut)),
		CostUSD:      annals.FiniteCost(cost.Float64),
	}
	if attrs != "" && attrs != "{}" {
		if err := json.Unmarshal([]byte(attrs), &c.Attributes); err != nil {
			return nil, &rowError{id: c.ID, err: err}
		}
	}
	c.Status = annals.RunStatus(status)
	c.CreatedAt = fromNano(created)
	c.LastActivity = fromNano(active)
	c.Tags = splitTags(tags)
	c.ArchivedAt = fromNullNano(archived)
	c.SummaryUpdatedAt = fromNullNano(summarized)
	return &c, nil
}

// FindChatByID returns one chat regardless of owner; see annals.ChatStore.
func (db *DB) FindChatByID(ctx context.Context, id string) (*annals.Chat, error) {
	return findChatByID(ctx, db.reader, id)
}

func findChatByID(ctx context.Context, q querier, id string) (*annals.Chat, error) {
	c, err := scanChat(q.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats c WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, annals.NotFound(id)
	}
	if err != nil {
		return nil, storeErr("find chat", err)
	}
	return c, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// where is the shared WHERE builder (storecore.Where), with this store's own additions.
type where struct{ storecore.Where }

func chatWhere(f annals.ChatFilter) (*where, error) {
	w := &where{}
	w.AddOwner("c", f.Owner)
	if f.ID != nil {
		w.Add("c.id = ?", *f.ID)
	}
	w.AddIDs("c", f.IDs)
	if f.IDPrefix != "" {
		// substr and instr compare bytes exactly (LIKE would fold case and read % and _).
		w.Add("(substr(c.id, 1, length(?)) = ? OR instr(c.id, ':' || ?) > 0)", f.IDPrefix, f.IDPrefix, f.IDPrefix)
	}
	if f.Status != nil {
		if _, err := annals.ParseRunStatus(string(*f.Status)); err != nil {
			return nil, err
		}
		w.Add("c.status = ?", string(*f.Status))
	}
	if f.From != nil {
		w.Add("c.last_activity >= ?", unixNano(*f.From))
	}
	if f.To != nil {
		w.Add("c.last_activity <= ?", unixNano(*f.To))
	}
	if f.Tag != nil {
		w.Add("EXISTS (SELECT 1 FROM chat_tags t WHERE t.chat_pk = c.pk AND t.tag = ?)", *f.Tag)
	}
	if f.TitleContains != nil && *f.TitleContains != "" {
		// Both sides are folded by Go's strings.ToLower, which knows all of Unicode.
		w.Add("instr(c.title_fold, ?) > 0", strings.ToLower(*f.TitleContains))
	}
	if f.Agent != nil {
		w.Add("c.agent_id = ?", *f.Agent)
	}
	if len(f.Agents) > 0 {
		marks := make([]string, len(f.Agents))
		for i, a := range f.Agents {
			marks[i] = "?"
			w.Args = append(w.Args, a)
		}
		w.Conds = append(w.Conds, "c.agent_id IN ("+strings.Join(marks, ", ")+")")
	}
	for _, t := range f.Tags {
		w.Add("EXISTS (SELECT 1 FROM chat_tags t WHERE t.chat_pk = c.pk AND t.tag = ?)", t)
	}
	for k, m := range f.Attributes {
		if m.Contains {
			w.Add("EXISTS (SELECT 1 FROM chat_attributes a WHERE a.chat_pk = c.pk AND a.key = ? AND instr(a.value, ?) > 0)", k, m.Value)
		} else {
			w.Add("EXISTS (SELECT 1 FROM chat_attributes a WHERE a.chat_pk = c.pk AND a.key = ? AND a.value = ?)", k, m.Value)
		}
	}
	if len(f.MetaTerms) > 0 {
		q, err := ftsAnd(f.MetaTerms)
		if err != nil {
			return nil, err
		}
		if len(f.MetaFields) > 0 {
			cols, err := metaColumns(f.MetaFields)
			if err != nil {
				return nil, err
			}
			q = "{" + cols + "} : (" + q + ")"
		}
		w.Add("c.pk IN (SELECT rowid FROM chats_fts WHERE chats_fts MATCH ?)", q)
	}
	if f.PinnedOnly {
		w.Add("c.pinned = 1")
	}
	if !f.IncludeArchived {
		w.Add("c.archived_at IS NULL")
	}
	return w, nil
}

// chatCountSQL counts the chats of a list. Live chats are counted over chats_live_by_owner
// (migration 0011), named, because for one tenant the planner otherwise takes the tenant's
// activity index, which holds no archived state, and reads every chat row to check it (5.7 ms of
// a first list page at 1M entries, issue 16). The partial index always applies, since a list
// without archived chats filters on archived_at IS NULL.
func chatCountSQL(w *where, f annals.ChatFilter) string {
	if f.IncludeArchived {
		return `SELECT count(*) FROM chats c WHERE ` + w.SQL()
	}
	return `SELECT count(*) FROM chats c INDEXED BY chats_live_by_owner WHERE ` + w.SQL()
}

// FindChats lists chats in owner scope; see annals.ChatStore.
func (db *DB) FindChats(ctx context.Context, f annals.ChatFilter) ([]*annals.Chat, int, error) {
	w, err := chatWhere(f)
	if err != nil {
		return nil, 0, err
	}
	if f.Offset < 0 {
		return nil, 0, annals.Errorf(annals.EINVALID, "offset must not be negative")
	}
	limit := annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit)
	var total int
	if err := db.reader.QueryRowContext(ctx, chatCountSQL(w, f), w.Args...).Scan(&total); err != nil {
		return nil, 0, storeErr("count chats", err)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT `+chatColumns+` FROM chats c WHERE `+w.SQL()+`
		ORDER BY c.pinned DESC, c.last_activity DESC, c.id LIMIT ? OFFSET ?`, append(w.Args, limit, f.Offset)...)
	if err != nil {
		return nil, 0, storeErr("find chats", err)
	}
	defer rows.Close()
	chats := []*annals.Chat{}
	var skipped annals.RowSkipper
	for rows.Next() {
		c, err := scanChat(rows)
		if re, ok := err.(*rowError); ok {
			// One chat that cannot be read never breaks the page: it is skipped and reported.
			skipped.Skip(re.id, re.err)
			continue
		}
		if err != nil {
			return nil, 0, storeErr("scan chat", err)
		}
		chats = append(chats, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, storeErr("find chats", err)
	}
	return chats, total, skipped.Err()
}

// UpdateChat changes mutable metadata; see annals.ChatStore.
func (db *DB) UpdateChat(ctx context.Context, ref annals.ChatRef, upd annals.ChatUpdate) (*annals.Chat, error) {
	if err := upd.Validate(); err != nil {
		return nil, err
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = db.updateChatIn(ctx, tx, ref, upd, db.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// updateChatIn applies a validated update inside tx, stamping archived_at and
// summary_updated_at with at, and records its replication operation.
func (db *DB) updateChatIn(ctx context.Context, tx *sql.Tx, ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) (*annals.Chat, error) {
	if err := db.setHumanIn(ctx, tx, ref, upd, at); err != nil {
		return nil, err
	}
	if err := db.recordChange(ctx, tx, &annals.OpPayload{Curate: annals.CurateChangeOf(ref.ID, upd, fromNano(unixNano(at)))}); err != nil {
		return nil, err
	}
	return findChatByID(ctx, tx, ref.ID)
}

// setHumanIn applies a validated update inside tx, stamping archived_at and
// summary_updated_at with at, and records no replication operation.
func (db *DB) setHumanIn(ctx context.Context, tx *sql.Tx, ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error {
	id := ref.ID
	// The ref's owner and incarnation are checked in the write transaction (SQLite has one
	// writer), so the row found here is the row the caller checked, and stays it until commit.
	var pk int64
	var archived sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT pk, archived_at FROM chats WHERE `+refWhere, refArgs(ref)...).Scan(&pk, &archived)
	if errors.Is(err, sql.ErrNoRows) {
		return annals.NotFound(id)
	}
	if err != nil {
		return storeErr("find chat", err)
	}
	now := unixNano(at)
	set := &where{}
	if upd.Title != nil {
		// A title given by a caller is a person's: it is no longer a generated one.
		set.Add("title = ?, title_fold = ?, title_generated = ?", *upd.Title, strings.ToLower(*upd.Title), upd.TitleGenerated)
	}
	if upd.Description != nil {
		set.Add("description = ?", *upd.Description)
	}
	if upd.Summary != nil {
		set.Add("summary = ?, summary_updated_at = ?", *upd.Summary, now)
	}
	if upd.Pinned != nil {
		set.Add("pinned = ?", *upd.Pinned)
	}
	if upd.Archived != nil {
		switch {
		case *upd.Archived && !archived.Valid:
			set.Add("archived_at = ?", now)
		case !*upd.Archived:
			set.Add("archived_at = NULL")
		}
	}
	var tags []string
	if upd.Tags != nil {
		tags = dedupe(*upd.Tags)
		set.Add("tags = ?", joinTags(tags))
	}
	if len(set.Conds) > 0 {
		q := `UPDATE chats SET ` + strings.Join(set.Conds, ", ") + ` WHERE pk = ?`
		if _, err := tx.ExecContext(ctx, q, append(set.Args, pk)...); err != nil {
			return storeErr("update chat", err)
		}
	}
	if upd.Tags != nil {
		w := &writer{ctx: ctx, tx: tx}
		defer w.close()
		if err := w.replaceTags(pk, tags); err != nil {
			return err
		}
	}
	return nil
}

// DeleteChat removes a chat and everything it owns; see annals.ChatStore.
func (db *DB) DeleteChat(ctx context.Context, ref annals.ChatRef) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error { return db.deleteChatIn(ctx, tx, ref) })
}

// deleteChatIn deletes the chat ref names inside tx and records its tombstone operation.
func (db *DB) deleteChatIn(ctx context.Context, tx *sql.Tx, ref annals.ChatRef) error {
	r, err := tx.ExecContext(ctx, `DELETE FROM chats WHERE `+refWhere, refArgs(ref)...)
	if err != nil {
		return storeErr("delete chat", err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return annals.NotFound(ref.ID)
	}
	db.feedTouch(tx, ref.ID, ref.Owner.TenantID, true)
	return db.recordChange(ctx, tx, &annals.OpPayload{Delete: &annals.DeleteChange{ChatID: ref.ID}})
}

// refWhere matches the one chat an annals.ChatRef names, by id, exact owner and incarnation;
// refArgs are its arguments.
const refWhere = `id = ? AND tenant_id = ? AND user_id = ? AND agent_id = ? AND incarnation = ?`

func refArgs(ref annals.ChatRef) []any {
	return []any{ref.ID, ref.Owner.TenantID, ref.Owner.UserID, ref.Owner.AgentID, ref.Incarnation}
}

func dedupe(tags []string) []string {
	seen := make(map[string]bool, len(tags))
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// metaColumns maps field names to chats_fts columns through a fixed table, so only known column
// names ever reach the FTS5 column filter.
func metaColumns(fields []string) (string, error) {
	known := map[string]string{"title": "title", "description": "description", "summary": "summary", "tags": "tags"}
	cols := make([]string, 0, len(fields))
	for _, f := range fields {
		col, ok := known[f]
		if !ok {
			return "", annals.Errorf(annals.EINVALID, "unknown metadata field %q (want any of: title, description, summary, tags)", f)
		}
		cols = append(cols, col)
	}
	return strings.Join(cols, " "), nil
}
