package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/view"
)

// The read-only history view, with the semantics of the SQLite store's: every statement is built
// from the fixed fragments of internal/storecore (view.go) plus bound arguments and carries the
// owner constraint; this file holds what PostgreSQL does its own way.
// Channel comparisons are byte-wise because the channel column is COLLATE "C".

// viewSQL is how this engine writes the view's SQL (storecore.ViewDialect).
func viewSQL() storecore.ViewDialect {
	return storecore.ViewDialect{Strpos: "strpos", ClipContent: clipBytes, ClipText: clipText, OmitContent: "''::bytea, -1", OmitText: "'', -1", OrderedJoin: "JOIN",
		FoldedLike: func(col string) string {
			return `translate(` + col + `, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE ? ESCAPE '\'`
		}}
}

// clipBytes selects a bytea content column cut to at most 4*capChars bytes (a UTF-8 character is
// at most 4 bytes), so a page of megabyte entries never travels whole, and its full length in
// characters, or -1 when the first column holds the whole value. A value holding a NUL reports
// its byte length, as the SQLite store does (convert_from refuses NUL).
func clipBytes(col string, capChars int) string {
	b := itoa(int64(capChars) * 4)
	return "substring(" + col + " FROM 1 FOR " + b + "), CASE WHEN octet_length(" + col + ") <= " + b + " THEN -1" +
		" WHEN position('\\x00'::bytea IN " + col + ") > 0 THEN octet_length(" + col + ")" +
		" ELSE length(convert_from(" + col + ", 'UTF8')) END"
}

// clipText is clipBytes for a text column (tool arguments), which cannot hold a NUL.
func clipText(col string, capChars int) string {
	c := itoa(int64(capChars))
	return "left(" + col + ", " + c + "), CASE WHEN length(" + col + ") <= " + c + " THEN -1 ELSE length(" + col + ") END"
}

const entriesJoin = `entries e JOIN chats c ON c.pk = e.chat_pk`

// readMessages reads up to limit+1 rows: the extra one only tells that more follow.
func (db *DB) readMessages(rows pgx.Rows, sel view.Select, limit int) (*view.Page, error) {
	defer rows.Close()
	return storecore.ReadMessages(rows, sel, limit, db.storeErr)
}

// ViewAgents lists agent nouns and their sessions in scope; see view.Store.
func (db *DB) ViewAgents(ctx context.Context, f view.AgentsFilter) (*view.Agents, error) {
	maxAgents := annals.EffectiveLimit(f.MaxAgents, view.MaxAgents, view.MaxAgents)
	maxSessions := annals.EffectiveLimit(f.MaxSessions, view.MaxAgentSessions, view.MaxAgentSessions)
	ow := &where{}
	ow.AddOwner("c", f.Owner)
	ow.AddExcludeAttribute(f.ExcludeAttribute)

	// links pairs every agent noun with a chat it appears in; ranked numbers each agent's chats
	// newest first; top keeps the most recently active agents. One extra agent and one extra
	// session per agent are read only to set the truncated flags.
	q := `WITH RECURSIVE ` + viewSQL().AgentWalk(ow.SQL()) + `,
		links(agent, pk) AS (
			SELECT c.agent_id, c.pk FROM chats c WHERE ` + ow.SQL() + ` AND c.agent_id <> ''
			UNION
			SELECT ` + viewSQL().AgentNoun("ch") + `, pk FROM walk WHERE ch IS NOT NULL AND substr(ch, 10, 1) <> '/'),
		ranked AS (
			SELECT l.agent AS agent, c.id AS id, c.last_activity AS active,
				row_number() OVER (PARTITION BY l.agent ORDER BY c.last_activity DESC, c.id) AS rn
			FROM links l JOIN chats c ON c.pk = l.pk),
		top AS (SELECT agent, active FROM ranked WHERE rn = 1 ORDER BY active DESC, agent LIMIT ?)
		SELECT r.agent, r.id FROM ranked r JOIN top t ON t.agent = r.agent
		WHERE r.rn <= ? ORDER BY t.active DESC, r.agent, r.rn`
	args := append(append(append([]any{}, ow.Args...), ow.Args...), maxAgents+1, maxSessions+1)
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("view agents", err)
	}
	defer rows.Close()
	out := &view.Agents{Agents: []view.Agent{}, Unlinked: []string{}}
	for rows.Next() {
		var agent, id string
		if err := rows.Scan(&agent, &id); err != nil {
			return nil, db.storeErr("scan view agent", err)
		}
		n := len(out.Agents)
		if n == 0 || out.Agents[n-1].Agent != agent {
			if n == maxAgents {
				out.AgentsTruncated = true
				break
			}
			out.Agents = append(out.Agents, view.Agent{Agent: agent, Sessions: []string{}})
			n++
		}
		a := &out.Agents[n-1]
		if len(a.Sessions) == maxSessions {
			a.SessionsTruncated = true
			continue
		}
		a.Sessions = append(a.Sessions, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("view agents", err)
	}

	uq := `SELECT c.id FROM chats c WHERE ` + ow.SQL() + ` AND NOT ` + storecore.AgentLinked() + `
		ORDER BY c.last_activity DESC, c.id LIMIT ?`
	urows, err := db.pool.Query(ctx, rebind(uq), append(append([]any{}, ow.Args...), maxSessions+1)...)
	if err != nil {
		return nil, db.storeErr("view unlinked sessions", err)
	}
	defer urows.Close()
	for urows.Next() {
		var id string
		if err := urows.Scan(&id); err != nil {
			return nil, db.storeErr("scan unlinked session", err)
		}
		if len(out.Unlinked) == maxSessions {
			out.UnlinkedTruncated = true
			break
		}
		out.Unlinked = append(out.Unlinked, id)
	}
	urows.Close()
	if err := urows.Err(); err != nil {
		return nil, db.storeErr("view unlinked sessions", err)
	}
	return out, nil
}

// ViewSessions lists chats in scope with entry timestamps and counters; see view.Store.
func (db *DB) ViewSessions(ctx context.Context, f view.SessionsFilter) (*view.SessionList, error) {
	q, args, limit, err := viewSQL().ViewSessionsQuery(f)
	if err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("view sessions", err)
	}
	defer rows.Close()
	out := &view.SessionList{Sessions: []view.Session{}}
	for rows.Next() {
		var s view.Session
		var title []byte
		var created, active int64
		var first, last *int64
		if err := rows.Scan(&s.ID, &s.AgentID, &title, &created, &active, &first, &last, &s.Messages, &s.Events, &s.SourceEvents); err != nil {
			return nil, db.storeErr("scan view session", err)
		}
		if len(out.Sessions) == limit {
			out.HasMore = true
			break
		}
		s.Title = string(title)
		s.CreatedAt, s.LastActivity = fromNano(created), fromNano(active)
		s.FirstAt, s.LastAt = fromNullNano(first), fromNullNano(last)
		out.Sessions = append(out.Sessions, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("view sessions", err)
	}
	return out, nil
}

// ViewTranscript pages one chat backwards; see view.Store.
func (db *DB) ViewTranscript(ctx context.Context, f view.TranscriptFilter) (*view.Page, error) {
	limit, err := storecore.ViewLimit(f.Limit, view.DefaultTranscript, view.MaxTranscript)
	if err != nil {
		return nil, err
	}
	if f.BeforeSeq < 0 {
		return nil, annals.Errorf(annals.EINVALID, "before_id must not be negative")
	}
	if err := storecore.ValidateSelect(f.Select); err != nil {
		return nil, err
	}
	// The owner is part of the lookup, so a chat outside scope and a missing chat take the same
	// path to the same error.
	cw := &where{}
	cw.Add("c.id = ?", f.ChatID)
	cw.AddOwner("c", f.Owner)
	var pk int64
	err = db.pool.QueryRow(ctx, rebind(`SELECT c.pk FROM chats c WHERE `+cw.SQL()), cw.Args...).Scan(&pk)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, annals.NotFound(f.ChatID)
	}
	if err != nil {
		return nil, db.storeErr("view transcript chat", err)
	}
	w := &where{}
	w.Add("e.chat_pk = ?", pk)
	// Repeated on the entry query: the scope is enforced by the statement that reads the rows.
	w.AddOwner("c", f.Owner)
	if f.BeforeSeq > 0 {
		w.Add("e.seq < ?", f.BeforeSeq)
	}
	w.Add(storecore.ViewRow)
	if f.Select.DropToolRows {
		w.Add("e.kind <> 'tool'")
	}
	rows, err := db.pool.Query(ctx, rebind(`SELECT `+viewSQL().MessageColumns(f.Select)+` FROM entries e JOIN chats c ON c.pk = e.chat_pk
		WHERE `+w.SQL()+` ORDER BY e.seq DESC LIMIT ?`), append(w.Args, limit+1)...)
	if err != nil {
		return nil, db.storeErr("view transcript", err)
	}
	page, err := db.readMessages(rows, f.Select, limit)
	if err != nil {
		return nil, err
	}
	// Read newest first to take the newest page; shown oldest first. Next is the oldest message,
	// the one a following page continues before.
	for i, j := 0, len(page.Messages)-1; i < j; i, j = i+1, j-1 {
		page.Messages[i], page.Messages[j] = page.Messages[j], page.Messages[i]
	}
	if page.HasMore {
		m := page.Messages[0]
		page.Next = &view.Position{Time: m.CreatedAt, ChatID: m.Session, Seq: m.ID}
	}
	if f.Calls && !f.Select.OmitToolCalls && len(page.Messages) > 0 {
		cw := &where{}
		cw.AddOwner("c", f.Owner)
		q, args := viewSQL().ViewPageGapsQuery(&cw.Where, pk, page.Messages[0].ID, page.Messages[len(page.Messages)-1].ID, f.Select)
		gaps, err := db.pool.Query(ctx, rebind(q), args...)
		if err != nil {
			return nil, db.storeErr("view transcript calls", err)
		}
		defer gaps.Close()
		if err := storecore.AttachPageCalls(page.Messages, gaps, db.storeErr); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// ViewConversation returns the entries sharing a correlation id; see view.Store.
func (db *DB) ViewConversation(ctx context.Context, f view.ConversationFilter) (*view.Page, error) {
	limit, err := storecore.ViewLimit(f.Limit, view.DefaultConversation, view.MaxConversation)
	if err != nil {
		return nil, err
	}
	if f.CorrelationID == "" {
		return nil, annals.Errorf(annals.EINVALID, "correlation is required")
	}
	if err := storecore.ValidateSelect(f.Select); err != nil {
		return nil, err
	}
	w := &where{}
	w.AddOwner("c", f.Owner)
	w.addTenant("e", f.Owner)
	// correlation_id <> '' repeats the partial index's condition so the planner may use it.
	w.Add("e.correlation_id = ? AND e.correlation_id <> ''", f.CorrelationID)
	w.AddExcludeAttribute(f.ExcludeAttribute)
	w.Add(storecore.ViewRow)
	if f.Select.DropToolRows {
		w.Add("e.kind <> 'tool'")
	}
	if f.After != nil {
		t := unixNano(f.After.Time)
		w.Add("e.time >= ? AND (e.time, c.id, e.seq) > (?::bigint, ?::text, ?::bigint)", t, t, f.After.ChatID, f.After.Seq)
	}
	rows, err := db.pool.Query(ctx, rebind(viewSQL().KeysFirst(f.Select, entriesJoin, &w.Where, "e.time, c.id, e.seq")), append(w.Args, limit+1)...)
	if err != nil {
		return nil, db.storeErr("view conversation", err)
	}
	return db.readMessages(rows, f.Select, limit)
}

// ViewSearch filters entries in scope, newest first; see view.Store.
func (db *DB) ViewSearch(ctx context.Context, f view.Filter) (*view.Page, error) {
	limit, err := storecore.ViewLimit(f.Limit, view.DefaultSearch, view.MaxSearch)
	if err != nil {
		return nil, err
	}
	if err := storecore.ValidateSelect(f.Select); err != nil {
		return nil, err
	}
	w := &where{}
	w.AddOwner("c", f.Owner)
	w.addTenant("e", f.Owner)
	if err := w.AddViewFilters(viewSQL(), f); err != nil {
		return nil, err
	}
	if len(f.Words) > 0 {
		if len(f.Words) > view.MaxWords {
			return nil, annals.Errorf(annals.EINVALID, "the text has %d words (at most %d allowed)", len(f.Words), view.MaxWords)
		}
		for i, word := range f.Words {
			if word == "" {
				return nil, annals.Errorf(annals.EINVALID, "words[%d] is empty", i)
			}
		}
		// Every word is tokenized and quoted as tsquery lexemes: never query syntax.
		q, ok, err := tsAndLiteral(f.Words, "")
		if err != nil {
			return nil, err
		}
		if ok {
			w.Add("e.tsv @@ ?::tsquery", q)
		} else {
			w.Add("false")
		}
	}
	if err := storecore.ValidateSubstring(f.Substring); err != nil {
		return nil, err
	}
	if f.After != nil {
		// The plain time bound lets the planner walk entries_by_time; the row value makes the
		// order total, so a page boundary inside one instant neither repeats nor skips a row.
		t := unixNano(f.After.Time)
		w.Add("e.time <= ? AND (e.time, c.id, e.seq) < (?::bigint, ?::text, ?::bigint)", t, t, f.After.ChatID, f.After.Seq)
	}
	if f.Substring != "" {
		return db.viewSubstring(ctx, w, f, limit)
	}
	rows, err := db.pool.Query(ctx, rebind(viewSQL().KeysFirst(f.Select, entriesJoin, &w.Where, viewSearchOrder)), append(w.Args, limit+1)...)
	if err != nil {
		return nil, db.storeErr("view search", err)
	}
	return db.readMessages(rows, f.Select, limit)
}

// ViewEvents returns the event entries sharing a correlation id in capture order; see
// view.Store.
func (db *DB) ViewEvents(ctx context.Context, f view.EventsFilter) (*view.EventPage, error) {
	w := &where{}
	w.AddOwner("c", f.Owner)
	w.addTenant("e", f.Owner)
	q, args, limit, err := viewSQL().ViewEventsQuery(&w.Where, f)
	if err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("view events", err)
	}
	defer rows.Close()
	return storecore.ReadEvents(rows, limit, db.storeErr)
}

// ViewLocate finds the entry carrying a source id; see view.Store.
func (db *DB) ViewLocate(ctx context.Context, f view.LocateFilter) (*view.Position, error) {
	w := &where{}
	w.AddOwner("c", f.Owner)
	w.addTenant("s", f.Owner)
	q, args, err := storecore.ViewLocateQuery(&w.Where, f)
	if err != nil {
		return nil, err
	}
	return storecore.ReadLocate(db.pool.QueryRow(ctx, rebind(q), args...), func(err error) bool { return errors.Is(err, pgx.ErrNoRows) }, db.storeErr)
}

// ViewToolCalls returns the calls following some messages; see view.Store.
func (db *DB) ViewToolCalls(ctx context.Context, f view.ToolCallsFilter) (map[view.Ref][]view.Call, error) {
	if len(f.Messages) == 0 {
		return map[view.Ref][]view.Call{}, nil
	}
	// The owner applies to the chats; their entries are reached by chat pk alone.
	w := &where{}
	w.AddOwner("c", f.Owner)
	q, args, err := viewSQL().ViewToolCallsQuery(&w.Where, f)
	if err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("view tool calls", err)
	}
	defer rows.Close()
	return storecore.ReadToolCalls(rows, db.storeErr)
}
