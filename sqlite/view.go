package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
	"github.com/annals-dev/annals/view"
)

// The read-only history view. Every statement is built from the fixed fragments of
// internal/storecore (view.go) plus bound arguments, and carries the owner constraint in its
// WHERE clause; this file holds what SQLite does its own way.

// viewSQL is how this engine writes the view's SQL (storecore.ViewDialect).
func viewSQL() storecore.ViewDialect {
	return storecore.ViewDialect{Strpos: "instr", ClipContent: clipColumns, ClipText: clipColumns, OmitContent: "X'', -1", OmitText: "X'', -1", OrderedJoin: "CROSS JOIN",
		FoldedLike: func(col string) string { return col + ` LIKE ? ESCAPE '\'` }}
}

// clipColumns selects a content column cut to at most capChars characters, reading at most
// 4*capChars bytes (a UTF-8 character is at most 4 bytes) so a page of megabyte entries never
// travels whole. The second column is -1 when the first holds the whole value, else the full
// length: SQLite's length() counts characters but stops at a NUL, so for a value holding one it
// falls back to the byte length. Byte arithmetic runs on the BLOB cast because substr() on text
// also stops at a NUL.
func clipColumns(col string, capChars int) string {
	b := itoa(int64(capChars) * 4)
	blob := "CAST(" + col + " AS BLOB)"
	return "substr(" + blob + ", 1, " + b + "), CASE WHEN length(" + blob + ") <= " + b + " THEN -1" +
		" WHEN instr(" + blob + ", X'00') > 0 THEN length(" + blob + ") ELSE length(" + col + ") END"
}

const entriesJoin = `entries e JOIN chats c ON c.pk = e.chat_pk`

// readMessages reads up to limit+1 rows: the extra one only tells that more follow.
func readMessages(rows *sql.Rows, sel view.Select, limit int) (*view.Page, error) {
	defer rows.Close()
	return storecore.ReadMessages(rows, sel, limit, storeErr)
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
	rows, err := db.stmts.query(ctx, q, args...)
	if err != nil {
		return nil, storeErr("view agents", err)
	}
	defer rows.Close()
	out := &view.Agents{Agents: []view.Agent{}, Unlinked: []string{}}
	for rows.Next() {
		var agent, id string
		if err := rows.Scan(&agent, &id); err != nil {
			return nil, storeErr("scan view agent", err)
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
	if err := rows.Err(); err != nil {
		return nil, storeErr("view agents", err)
	}
	rows.Close()

	uq := `SELECT c.id FROM chats c WHERE ` + ow.SQL() + ` AND NOT ` + storecore.AgentLinked() + `
		ORDER BY c.last_activity DESC, c.id LIMIT ?`
	urows, err := db.stmts.query(ctx, uq, append(append([]any{}, ow.Args...), maxSessions+1)...)
	if err != nil {
		return nil, storeErr("view unlinked sessions", err)
	}
	defer urows.Close()
	for urows.Next() {
		var id string
		if err := urows.Scan(&id); err != nil {
			return nil, storeErr("scan unlinked session", err)
		}
		if len(out.Unlinked) == maxSessions {
			out.UnlinkedTruncated = true
			break
		}
		out.Unlinked = append(out.Unlinked, id)
	}
	if err := urows.Err(); err != nil {
		return nil, storeErr("view unlinked sessions", err)
	}
	return out, nil
}

// ViewSessions lists chats in scope with entry timestamps and counters; see view.Store.
func (db *DB) ViewSessions(ctx context.Context, f view.SessionsFilter) (*view.SessionList, error) {
	q, args, limit, err := viewSQL().ViewSessionsQuery(f)
	if err != nil {
		return nil, err
	}
	rows, err := db.stmts.query(ctx, q, args...)
	if err != nil {
		return nil, storeErr("view sessions", err)
	}
	defer rows.Close()
	out := &view.SessionList{Sessions: []view.Session{}}
	for rows.Next() {
		var s view.Session
		var created, active int64
		var first, last sql.NullInt64
		if err := rows.Scan(&s.ID, &s.AgentID, &s.Title, &created, &active, &first, &last, &s.Messages, &s.Events, &s.SourceEvents); err != nil {
			return nil, storeErr("scan view session", err)
		}
		if len(out.Sessions) == limit {
			out.HasMore = true
			break
		}
		s.CreatedAt, s.LastActivity = fromNano(created), fromNano(active)
		s.FirstAt, s.LastAt = fromNullNano(first), fromNullNano(last)
		out.Sessions = append(out.Sessions, s)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("view sessions", err)
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
	err = db.stmts.queryRow(ctx, `SELECT c.pk FROM chats c WHERE `+cw.SQL(), cw.Args...).Scan(&pk)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, annals.NotFound(f.ChatID)
	}
	if err != nil {
		return nil, storeErr("view transcript chat", err)
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
	rows, err := db.stmts.query(ctx, `SELECT `+viewSQL().MessageColumns(f.Select)+` FROM entries e JOIN chats c ON c.pk = e.chat_pk
		WHERE `+w.SQL()+` ORDER BY e.seq DESC LIMIT ?`, append(w.Args, limit+1)...)
	if err != nil {
		return nil, storeErr("view transcript", err)
	}
	page, err := readMessages(rows, f.Select, limit)
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
		gaps, err := db.stmts.query(ctx, q, args...)
		if err != nil {
			return nil, storeErr("view transcript calls", err)
		}
		defer gaps.Close()
		if err := storecore.AttachPageCalls(page.Messages, gaps, storeErr); err != nil {
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
	// correlation_id <> '' repeats the partial index's condition so the planner may use it.
	w.Add("e.correlation_id = ? AND e.correlation_id <> ''", f.CorrelationID)
	if f.ExcludeAttribute != "" {
		// The excluded chats are gathered once and each entry is tested on its own chat_pk,
		// before its chat is read: a correlation held by hundreds of a ledger's events (which
		// the view excludes here) skipped them at the cost of a chat seek and an attribute probe
		// each (AddExcludeAttribute's form, which the other queries keep).
		w.Add("e.chat_pk NOT IN (SELECT xa.chat_pk FROM chat_attributes xa WHERE xa.key = ?)", f.ExcludeAttribute)
	}
	w.Add(storecore.ViewRow)
	if f.Select.DropToolRows {
		w.Add("e.kind <> 'tool'")
	}
	if f.After != nil {
		t := unixNano(f.After.Time)
		w.Add("e.time >= ? AND (e.time, c.id, e.seq) > (?, ?, ?)", t, t, f.After.ChatID, f.After.Seq)
	}
	rows, err := db.stmts.query(ctx, viewSQL().KeysFirst(f.Select, entriesJoin, &w.Where, "e.time, c.id, e.seq"), append(w.Args, limit+1)...)
	if err != nil {
		return nil, storeErr("view conversation", err)
	}
	return readMessages(rows, f.Select, limit)
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
	if err := w.AddViewFilters(viewSQL(), f); err != nil {
		return nil, err
	}
	if err := storecore.ValidateSubstring(f.Substring); err != nil {
		return nil, err
	}
	dense, err := db.addWords(ctx, w, f)
	if err != nil {
		return nil, err
	}
	if f.After != nil {
		// The plain time bound lets the planner seek entries_by_time; the row value makes the
		// order total, so a page boundary inside one instant neither repeats nor skips a row.
		t := unixNano(f.After.Time)
		w.Add("e.time <= ? AND (e.time, c.id, e.seq) < (?, ?, ?)", t, t, f.After.ChatID, f.After.Seq)
	}
	if f.Substring != "" {
		return db.viewSubstring(ctx, w, f, limit)
	}
	// The plan is chosen here, because SQLite without statistics guesses that the owner's
	// tenant is selective and would sort every entry in scope for each page. Without words, walk
	// entries_by_time newest first and stop at the page (measured on 100k entries of one tenant:
	// 1.5 ms against 30 ms). With words, start from the full-text matches: a rare word costs
	// next to nothing, a word in every entry costs one sort of its matches.
	// Words matching many entries (dense) take the time walk too: their matches become one
	// in-memory set, and the walk stops at the page instead of sorting every match (a word in
	// half of 200k entries: 110 ms sorted, 11 ms walked; a rare word: 2 ms from the matches).
	from := `entries e INDEXED BY entries_by_time JOIN chats c ON c.pk = e.chat_pk`
	if len(f.Words) > 0 && !dense {
		from = `entries_fts CROSS JOIN entries e ON e.pk = entries_fts.rowid JOIN chats c ON c.pk = e.chat_pk`
	}
	order := "e.time DESC, c.id DESC, e.seq DESC"
	rows, err := db.stmts.query(ctx, viewSQL().KeysFirst(f.Select, from, &w.Where, order), append(w.Args, limit+1)...)
	if err != nil && strings.Contains(err.Error(), "no such index") {
		// A read-only open of a file written by an older annals never ran migration 0003: the
		// hint names an index that is not there. Same answer, the planner's plan.
		rows, err = db.stmts.query(ctx, viewSQL().KeysFirst(f.Select, entriesJoin, &w.Where, order), append(w.Args, limit+1)...)
	}
	if err != nil {
		return nil, storeErr("view search", err)
	}
	return readMessages(rows, f.Select, limit)
}

// ViewEvents returns the event entries sharing a correlation id in capture order; see
// view.Store.
func (db *DB) ViewEvents(ctx context.Context, f view.EventsFilter) (*view.EventPage, error) {
	w := &where{}
	w.AddOwner("c", f.Owner)
	q, args, limit, err := viewSQL().ViewEventsQuery(&w.Where, f)
	if err != nil {
		return nil, err
	}
	rows, err := db.stmts.query(ctx, q, args...)
	if err != nil {
		return nil, storeErr("view events", err)
	}
	defer rows.Close()
	return storecore.ReadEvents(rows, limit, storeErr)
}

// ViewLocate finds the entry carrying a source id; see view.Store.
func (db *DB) ViewLocate(ctx context.Context, f view.LocateFilter) (*view.Position, error) {
	w := &where{}
	w.AddOwner("c", f.Owner)
	q, args, err := storecore.ViewLocateQuery(&w.Where, f)
	if err != nil {
		return nil, err
	}
	return storecore.ReadLocate(db.stmts.queryRow(ctx, q, args...), func(err error) bool { return errors.Is(err, sql.ErrNoRows) }, storeErr)
}

// ViewToolCalls returns the calls following some messages; see view.Store.
func (db *DB) ViewToolCalls(ctx context.Context, f view.ToolCallsFilter) (map[view.Ref][]view.Call, error) {
	if len(f.Messages) == 0 {
		return map[view.Ref][]view.Call{}, nil
	}
	w := &where{}
	w.AddOwner("c", f.Owner)
	if chatID, lo, hi, ok := storecore.OneChatSpan(f.Messages); ok && len(f.Messages) <= view.MaxSearch {
		// A page of one chat (a transcript): one range of it, in a statement of one shape.
		q, args := viewSQL().ViewChatCallsQuery(&w.Where, chatID, lo, hi)
		rows, err := db.stmts.query(ctx, q, args...)
		if err != nil {
			return nil, storeErr("view tool calls", err)
		}
		defer rows.Close()
		seqs := make([]int64, len(f.Messages))
		for i, m := range f.Messages {
			seqs[i] = m.Seq
		}
		return storecore.ReadChatCalls(rows, chatID, seqs, storeErr)
	}
	q, args, err := viewSQL().ViewToolCallsQuery(&w.Where, f)
	if err != nil {
		return nil, err
	}
	// Not through the statement cache: the text differs with the number of messages.
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeErr("view tool calls", err)
	}
	defer rows.Close()
	return storecore.ReadToolCalls(rows, storeErr)
}

// addWords adds a search's words to w: every word an FTS5 string (quoted, quotes doubled),
// never query syntax. It reports whether they match densely (see denseMatch), which decides
// the plan: a dense match is tested against the matches' set while walking by time.
func (db *DB) addWords(ctx context.Context, w *where, f view.Filter) (bool, error) {
	if len(f.Words) == 0 {
		return false, nil
	}
	if len(f.Words) > view.MaxWords {
		return false, annals.Errorf(annals.EINVALID, "the text has %d words (at most %d allowed)", len(f.Words), view.MaxWords)
	}
	for i, word := range f.Words {
		if word == "" {
			return false, annals.Errorf(annals.EINVALID, "words[%d] is empty", i)
		}
	}
	q, err := ftsAnd(f.Words)
	if err != nil {
		return false, err
	}
	// With a substring the plan walks by time or starts from entries_tri, so the words are a
	// set either way.
	dense := f.Substring != ""
	if !dense {
		if dense, err = db.denseMatch(ctx, f.Owner, q); err != nil {
			return false, err
		}
	}
	if dense {
		w.Add("e.pk IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)", q)
	} else {
		w.Add("entries_fts MATCH ?", q)
	}
	return dense, nil
}

// viewDenseMatches is the number of matching entries in scope from which sorting them all costs
// more than walking entries newest first until the page is full.
const viewDenseMatches = 4000

// denseMatch reports whether a full-text query matches at least viewDenseMatches entries in
// scope. Counting stops there, and counts only the owner's entries, so the plan (and its time)
// depends on nothing outside the caller's scope.
func (db *DB) denseMatch(ctx context.Context, o annals.Owner, match string) (bool, error) {
	w := &where{}
	w.Add("entries_fts MATCH ?", match)
	w.AddOwner("c", o)
	var n int
	err := db.stmts.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM entries_fts CROSS JOIN entries e ON e.pk = entries_fts.rowid
		JOIN chats c ON c.pk = e.chat_pk WHERE `+w.SQL()+` LIMIT ?)`, append(w.Args, viewDenseMatches)...).Scan(&n)
	if err != nil {
		return false, storeErr("view search density", err)
	}
	return n >= viewDenseMatches, nil
}

// ViewGeneration is the change watch's generation (view.Generations, walkcache.go): the query
// view's answers are reused only until anything is committed to the file.
func (db *DB) ViewGeneration(ctx context.Context) (uint64, error) {
	return db.watch.generation(ctx)
}
