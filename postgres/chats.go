package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

const chatColumns = `c.id, c.tenant_id, c.user_id, c.agent_id, c.attributes, c.created_at, c.last_activity, c.status,
	c.title, c.description, c.tags, c.pinned, c.archived_at, c.summary, c.summary_updated_at,
	c.run_count, c.entry_count, c.entry_input_tokens, c.run_input_tokens, c.entry_output_tokens, c.run_output_tokens, c.cost_usd,
	c.incarnation, c.title_generated, c.revision`

// chatScan holds the scan targets of chatColumns.
type chatScan struct {
	c                    annals.Chat
	attrs, status        string
	title, desc, summary []byte
	created, active      int64
	archived, summarized *int64
	tags                 []string
	entryIn, runIn       int64
	entryOut, runOut     int64
}

func (s *chatScan) targets() []any {
	return []any{&s.c.ID, &s.c.TenantID, &s.c.UserID, &s.c.AgentID, &s.attrs, &s.created, &s.active, &s.status,
		&s.title, &s.desc, &s.tags, &s.c.Pinned, &s.archived, &s.summary, &s.summarized,
		&s.c.Totals.Runs, &s.c.Totals.Entries, &s.entryIn, &s.runIn, &s.entryOut, &s.runOut, &s.c.Totals.CostUSD,
		&s.c.Incarnation, &s.c.TitleGenerated, &s.c.Revision}
}

func (s *chatScan) chat() (*annals.Chat, error) {
	c := s.c
	if s.attrs != "" && s.attrs != "{}" {
		if err := json.Unmarshal([]byte(s.attrs), &c.Attributes); err != nil {
			return nil, err
		}
	}
	// Added in Go, saturating: the sum of two bigint counters can exceed bigint.
	c.Totals.InputTokens = annals.SaturatingAdd(s.entryIn, s.runIn)
	c.Totals.OutputTokens = annals.SaturatingAdd(s.entryOut, s.runOut)
	c.Totals.CostUSD = annals.FiniteCost(c.Totals.CostUSD)
	c.Status = annals.RunStatus(s.status)
	c.CreatedAt = fromNano(s.created)
	c.LastActivity = fromNano(s.active)
	c.Title, c.Description, c.Summary = string(s.title), string(s.desc), string(s.summary)
	if len(s.tags) > 0 {
		c.Tags = s.tags
	}
	c.ArchivedAt = fromNullNano(s.archived)
	c.SummaryUpdatedAt = fromNullNano(s.summarized)
	return &c, nil
}

// scanChat reads one row of chatColumns followed by extra targets.
func scanChat(row pgx.Row, extra ...any) (*annals.Chat, error) {
	var s chatScan
	// A failed Scan closes pgx's rows, so only a value that scanned but cannot be decoded is a
	// row that the rest of the page can do without (PostgreSQL's column types rule out the rest).
	if err := row.Scan(append(s.targets(), extra...)...); err != nil {
		return nil, err
	}
	c, err := s.chat()
	if err != nil {
		return nil, &rowError{id: s.c.ID, err: err}
	}
	return c, nil
}

// rowError is a row that could not be decoded, with the id of its chat.
type rowError struct {
	id  string
	err error
}

func (e *rowError) Error() string { return "chat " + e.id + ": " + e.err.Error() }

// Unwrap returns the cause, so a missing row still reads as sql.ErrNoRows.
func (e *rowError) Unwrap() error { return e.err }

// FindChatByID returns one chat regardless of owner; see annals.ChatStore.
func (db *DB) FindChatByID(ctx context.Context, id string) (*annals.Chat, error) {
	return db.findChatByID(ctx, db.pool, id)
}

func (db *DB) findChatByID(ctx context.Context, q querier, id string) (*annals.Chat, error) {
	c, err := scanChat(q.QueryRow(ctx, `SELECT `+chatColumns+` FROM chats c WHERE c.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.NotFound(id)
	}
	if err != nil {
		return nil, db.storeErr("find chat", err)
	}
	return c, nil
}

// metaWeights maps metadata field names to their tsvector weights through a fixed table.
func metaWeights(fields []string) (string, error) {
	known := map[string]byte{annals.FieldTitle: wTitle, annals.FieldDescription: wDescription, annals.FieldSummary: wSummary, annals.FieldTags: wTags}
	var b []byte
	for _, f := range fields {
		wt, ok := known[f]
		if !ok {
			return "", annals.Errorf(annals.EINVALID, "unknown metadata field %q (want any of: title, description, summary, tags)", f)
		}
		b = append(b, wt)
	}
	return string(b), nil
}

func chatWhere(f annals.ChatFilter) (*where, error) {
	w := &where{}
	w.AddOwner("c", f.Owner)
	if f.ID != nil {
		w.Add("c.id = ?", *f.ID)
	}
	w.AddIDs("c", f.IDs)
	if f.IDPrefix != "" {
		// left and strpos compare exactly (LIKE would read % and _).
		w.Add("(left(c.id, length(?::text)) = ? OR strpos(c.id, ':' || ?::text) > 0)", f.IDPrefix, f.IDPrefix, f.IDPrefix)
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
		// Array containment compares whole elements: q3 never matches q3-plan, and quotes,
		// backslashes, % and _ are ordinary characters.
		w.Add("c.pk IN (SELECT m.chat_pk FROM chat_meta m WHERE m.tags @> ARRAY[?::text])", *f.Tag)
	}
	if f.TitleContains != nil && *f.TitleContains != "" {
		// Both sides are folded by Go's strings.ToLower, which knows all of Unicode; the byte
		// search is exact and reads no pattern syntax.
		w.Add("position(?::bytea IN c.title_fold) > 0", []byte(strings.ToLower(*f.TitleContains)))
	}
	if f.Agent != nil {
		w.Add("c.agent_id = ?", *f.Agent)
	}
	if len(f.Agents) > 0 {
		w.In("c.agent_id", f.Agents)
	}
	if len(f.Tags) > 0 {
		w.Add("c.pk IN (SELECT m.chat_pk FROM chat_meta m WHERE m.tags @> ?::text[])", f.Tags)
	}
	for k, m := range f.Attributes {
		if m.Contains {
			w.Add("EXISTS (SELECT 1 FROM chat_attributes a WHERE a.chat_pk = c.pk AND a.key = ? AND position(?::bytea IN a.value) > 0)", k, []byte(m.Value))
		} else {
			w.Add("EXISTS (SELECT 1 FROM chat_attributes a WHERE a.chat_pk = c.pk AND a.key = ? AND a.value = ?::bytea)", k, []byte(m.Value))
		}
	}
	if len(f.MetaTerms) > 0 {
		weights := ""
		if len(f.MetaFields) > 0 {
			var err error
			if weights, err = metaWeights(f.MetaFields); err != nil {
				return nil, err
			}
		}
		q, ok, err := tsAndLiteral(f.MetaTerms, weights)
		if err != nil {
			return nil, err
		}
		if ok {
			w.Add("c.pk IN (SELECT m.chat_pk FROM chat_meta m WHERE m.meta_tsv @@ ?::tsquery)", q)
		} else {
			w.Add("false")
		}
	}
	if f.PinnedOnly {
		w.Add("c.pinned")
	}
	if !f.IncludeArchived {
		w.Add("c.archived_at IS NULL")
	}
	return w, nil
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
	if err := db.tracedQueryRow(ctx, `SELECT count(*) FROM chats c WHERE `+w.SQL(), w.Args...).Scan(&total); err != nil {
		return nil, 0, db.storeErr("count chats", err)
	}
	rows, err := db.tracedQuery(ctx, `SELECT `+chatColumns+` FROM chats c WHERE `+w.SQL()+`
		ORDER BY c.pinned DESC, c.last_activity DESC, c.id LIMIT ? OFFSET ?`, append(w.Args, limit, f.Offset)...)
	if err != nil {
		return nil, 0, db.storeErr("find chats", err)
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
			return nil, 0, db.storeErr("scan chat", err)
		}
		chats = append(chats, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.storeErr("find chats", err)
	}
	return chats, total, skipped.Err()
}

// UpdateChat changes mutable metadata; see annals.ChatStore.
func (db *DB) UpdateChat(ctx context.Context, ref annals.ChatRef, upd annals.ChatUpdate) (*annals.Chat, error) {
	if err := upd.Validate(); err != nil {
		return nil, err
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
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
func (db *DB) updateChatIn(ctx context.Context, tx pgx.Tx, ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) (*annals.Chat, error) {
	if err := db.setHumanIn(ctx, tx, ref, upd, at); err != nil {
		return nil, err
	}
	if err := db.recordChange(ctx, tx, &annals.OpPayload{Curate: annals.CurateChangeOf(ref.ID, upd, fromNano(unixNano(at)))}); err != nil {
		return nil, err
	}
	return db.findChatByID(ctx, tx, ref.ID)
}

// setHumanIn applies a validated update inside tx, stamping archived_at and
// summary_updated_at with at, and records no replication operation.
func (db *DB) setHumanIn(ctx context.Context, tx pgx.Tx, ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error {
	id := ref.ID
	cur, err := db.lockChat(ctx, tx, ref)
	if err != nil {
		return err
	}
	now := unixNano(at)
	set := &where{}
	next := *cur
	if upd.Title != nil {
		next.Title = *upd.Title
		// A title given by a caller is a person's: it is no longer a generated one.
		set.Add("title = ?, title_fold = ?, title_generated = ?", []byte(*upd.Title), []byte(strings.ToLower(*upd.Title)), upd.TitleGenerated)
	}
	if upd.Description != nil {
		next.Description = *upd.Description
		set.Add("description = ?", []byte(*upd.Description))
	}
	if upd.Summary != nil {
		next.Summary = *upd.Summary
		set.Add("summary = ?, summary_updated_at = ?", []byte(*upd.Summary), now)
	}
	if upd.Pinned != nil {
		set.Add("pinned = ?", *upd.Pinned)
	}
	if upd.Archived != nil {
		switch {
		case *upd.Archived && cur.ArchivedAt == nil:
			set.Add("archived_at = ?", now)
		case !*upd.Archived:
			set.Add("archived_at = NULL")
		}
	}
	if upd.Tags != nil {
		next.Tags = dedupe(*upd.Tags)
		set.Add("tags = ?", next.Tags)
	}
	if len(set.Conds) > 0 {
		q := `UPDATE chats SET ` + strings.Join(set.Conds, ", ") + ` WHERE id = ?`
		if _, err := tx.Exec(ctx, rebind(q), append(set.Args, id)...); err != nil {
			return db.storeErr("update chat", err)
		}
	}
	if upd.Title != nil || upd.Description != nil || upd.Summary != nil || upd.Tags != nil {
		if err := db.writeMeta(ctx, tx, id, next.Title, next.Description, next.Summary, next.Tags); err != nil {
			return err
		}
	}
	return nil
}

// writeMeta rewrites a chat's chat_meta row (tags and metadata tsvector).
func (db *DB) writeMeta(ctx context.Context, tx pgx.Tx, id, title, description, summary string, tags []string) error {
	if tags == nil {
		tags = []string{}
	}
	_, err := tx.Exec(ctx, `UPDATE chat_meta m SET tags = $1, meta_tsv = $2 FROM chats c WHERE c.pk = m.chat_pk AND c.id = $3`,
		tags, metaTSV(title, description, summary, tags), id)
	if err != nil {
		return db.storeErr("update chat metadata index", err)
	}
	return nil
}

// lockChat reads a chat and locks its row for the rest of the transaction.
func (db *DB) lockChat(ctx context.Context, tx pgx.Tx, ref annals.ChatRef) (*annals.Chat, error) {
	c, err := scanChat(tx.QueryRow(ctx, `SELECT `+chatColumns+` FROM chats c WHERE `+refWhere+` FOR UPDATE`, refArgs(ref)...))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.NotFound(ref.ID)
	}
	if err != nil {
		return nil, db.storeErr("find chat", err)
	}
	return c, nil
}

// refWhere matches the one chat an annals.ChatRef names (alias c), by id, exact owner and
// incarnation; refArgs are its arguments.
const refWhere = `c.id = $1 AND c.tenant_id = $2 AND c.user_id = $3 AND c.agent_id = $4 AND c.incarnation = $5`

func refArgs(ref annals.ChatRef) []any {
	return []any{ref.ID, ref.Owner.TenantID, ref.Owner.UserID, ref.Owner.AgentID, ref.Incarnation}
}

// DeleteChat removes a chat and everything it owns; see annals.ChatStore.
func (db *DB) DeleteChat(ctx context.Context, ref annals.ChatRef) error {
	return db.writeTx(ctx, func(tx pgx.Tx) error { return db.deleteChatIn(ctx, tx, ref) })
}

// deleteChatIn deletes the chat ref names inside tx and records its tombstone operation.
func (db *DB) deleteChatIn(ctx context.Context, tx pgx.Tx, ref annals.ChatRef) error {
	tag, err := tx.Exec(ctx, `DELETE FROM chats c WHERE `+refWhere, refArgs(ref)...)
	if err != nil {
		return db.storeErr("delete chat", err)
	}
	if tag.RowsAffected() == 0 {
		return annals.NotFound(ref.ID)
	}
	db.feedMarks.Touch(tx, ref.ID, ref.Owner.TenantID, true)
	return db.recordChange(ctx, tx, &annals.OpPayload{Delete: &annals.DeleteChange{ChatID: ref.ID}})
}
