package storecore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// The read-only history view (view.Store), as both stores build it: every statement is made
// of the fixed fragments below plus bound arguments (? placeholders) and carries the owner
// constraint. What differs between the engines is in ViewDialect; executing and the full-text
// match stay in each store.

// ViewDialect is what the view's SQL needs to know about an engine.
type ViewDialect struct {
	// Strpos is the engine's "position of a substring" function taking (haystack, needle):
	// instr in SQLite, strpos in PostgreSQL.
	Strpos string
	// ClipContent selects a content column (text, reasoning, tool result) cut to at most
	// capChars characters, reading at most 4*capChars bytes, as two columns: the prefix, and -1
	// when it is the whole value, else the full length (see Clipped).
	ClipContent func(col string, capChars int) string
	// ClipText is ClipContent for the tool arguments column.
	ClipText func(col string, capChars int) string
	// OmitContent and OmitText stand in for a projected-away column pair of the same shape.
	OmitContent, OmitText string
	// OrderedJoin is a join that keeps the written table order: SQLite's CROSS JOIN (its
	// planner otherwise may start a lookup of given rows from every chat of the tenant), plain
	// JOIN where the planner needs no help.
	OrderedJoin string
	// FoldedLike is the condition that the text column col, its ASCII letters folded to lower
	// case, matches one LIKE pattern argument (ESCAPE '\'; PrefixPattern makes it): SQLite's
	// own LIKE, which folds ASCII only; translate() before LIKE in PostgreSQL, whose lower()
	// would fold other letters too.
	FoldedLike func(col string) string
}

// PrefixPattern is the FoldedLike pattern of a value starting with p, ASCII letters in either
// case: p folded, its \, % and _ escaped (they are ordinary characters), then %.
func PrefixPattern(p string) string {
	lit := LikePattern(FoldASCII(p))
	return lit[1:]
}

// AgentChannel is true for an entry on a channel in/agent/<noun>/... with a non-empty noun.
// "in/agent0" is the first string after every "in/agent/..." ('0' follows '/'), so the pair of
// comparisons is an index range, never a LIKE pattern. The non-empty test repeats the partial
// index's condition so a planner may use entries_by_chat_channel.
func AgentChannel(alias string) string {
	return alias + `.channel <> '' AND ` + alias + `.channel > 'in/agent/' AND ` + alias + `.channel < 'in/agent0' AND substr(` + alias + `.channel, 10, 1) <> '/'`
}

// AgentNoun extracts <noun> from the channel col, in/agent/<noun>[/...] (the prefix is 9
// characters long).
func (d ViewDialect) AgentNoun(col string) string {
	return `substr(` + col + `, 10, CASE WHEN ` + d.Strpos + `(substr(` + col + `, 10), '/') > 0
		THEN ` + d.Strpos + `(substr(` + col + `, 10), '/') - 1 ELSE length(` + col + `) END)`
}

// AgentWalk is a recursive CTE yielding (pk, ch) for every chat in scope and one channel per
// agent noun the chat's entries use, by skip-scan over entries_by_chat_channel: from a channel
// in/agent/<noun>/... it jumps to in/agent/<noun>0, the first string past every channel below
// that noun, so a chat with a million entries on in/agent/main/... costs a few seeks, not a
// million rows. The noun's own channel in/agent/<noun> steps to the next channel instead, since
// a sibling noun such as <noun>-x sorts between it and in/agent/<noun>/. A final row per chat
// has ch NULL. The owner condition is the caller's, on alias c.
func (d ViewDialect) AgentWalk(owner string) string {
	const next = `SELECT min(x.channel) FROM entries x WHERE x.chat_pk = %s AND x.channel <> '' AND x.channel > %s
		AND x.channel < 'in/agent0'`
	first := fmt.Sprintf(next, "c.pk", "'in/agent/'")
	step := fmt.Sprintf(next, "w.pk", "w.ch") + ` AND x.channel >= CASE WHEN ` + d.Strpos + `(substr(w.ch, 10), '/') > 0
		THEN substr(w.ch, 1, 8 + ` + d.Strpos + `(substr(w.ch, 10), '/')) || '0' ELSE w.ch END`
	return `walk(pk, ch) AS (SELECT c.pk, (` + first + `) FROM chats c WHERE ` + owner + `
		UNION ALL SELECT w.pk, (` + step + `) FROM walk w WHERE w.ch IS NOT NULL)`
}

// AgentLinked is true for a chat linked to some agent: the chat's own agent id, or an entry on
// an agent channel.
func AgentLinked() string {
	return `(c.agent_id <> '' OR EXISTS (SELECT 1 FROM entries x WHERE x.chat_pk = c.pk AND ` + AgentChannel("x") + `))`
}

// ViewRow is true for an entry (alias e) that is a row of the view: every entry but a tool call
// still waiting for its result (a tool entry with no outcome and no result). Such a call lives
// on its assistant message only (ViewToolCalls), as the reference keeps a call nobody answered
// in its assistant row's tool_calls and has no tool row for it, so pages, counts and positions
// line up with the reference's.
const ViewRow = "(e.kind <> 'tool' OR e.tool_outcome <> '' OR e.tool_result <> '')"

// AddExcludeAttribute leaves out the chats (alias c) carrying the attribute key, whatever its
// value: one primary-key probe of chat_attributes per chat, so it is cheap on every row of a page.
func (w *Where) AddExcludeAttribute(key string) {
	if key != "" {
		w.Add("NOT EXISTS (SELECT 1 FROM chat_attributes xa WHERE xa.chat_pk = c.pk AND xa.key = ?)", key)
	}
}

// AddChannelPrefixes matches a channel prefix on whole segments, as the reference matches a type
// prefix (type = P OR type LIKE P || '/%'): the channel itself (exactly), or anything below it
// with ASCII letters in either case (IN/AGENT/MAIN finds in/agent/main/x, as the reference's LIKE
// does, but not in/agent/main). A prefix is taken as given, as the reference takes it: a trailing
// "/" is part of it (in/agent/main/ finds in/agent/main/ and in/agent/main//x only) and the empty
// prefix finds the channels starting with "/"; an entry without a channel never matches. %, _ and
// * in a prefix are ordinary characters: unlike the reference's LIKE, never wildcards.
func (w *Where) AddChannelPrefixes(d ViewDialect, prefixes []string) error {
	if len(prefixes) > view.MaxChannels {
		return annals.Errorf(annals.EINVALID, "%d channel prefixes given (at most %d allowed)", len(prefixes), view.MaxChannels)
	}
	parts := make([]string, 0, len(prefixes))
	for _, p := range prefixes {
		parts = append(parts, "e.channel = ? OR "+d.FoldedLike("e.channel"))
		w.Args = append(w.Args, p, PrefixPattern(p+"/"))
	}
	if len(parts) > 0 {
		w.Conds = append(w.Conds, "e.channel <> '' AND ("+strings.Join(parts, " OR ")+")")
	}
	return nil
}

// AddViewFilters adds the filters of a view search that both stores write alike: channel
// prefixes, the excluded attribute, agent linkage, roles, the inclusive time bounds and the
// dropped tool rows. The words, the substring and the position to continue after are each
// store's own. Errors: invalid.
func (w *Where) AddViewFilters(d ViewDialect, f view.Filter) error {
	if err := w.AddChannelPrefixes(d, f.Channels); err != nil {
		return err
	}
	w.AddExcludeAttribute(f.ExcludeAttribute)
	w.Add(ViewRow)
	if f.AgentsOnly {
		w.Add(AgentLinked())
	}
	if f.AgentChannelOnly {
		// The reference's e.type LIKE 'in/agent/%': ASCII letters in either case, any noun.
		w.Add("e.channel <> '' AND "+d.FoldedLike("e.channel"), PrefixPattern(view.AgentChannelPrefix))
	}
	if len(f.Roles) > 0 {
		kinds := make([]string, len(f.Roles))
		for i, r := range f.Roles {
			if _, err := annals.ParseEntryKind(string(r)); err != nil {
				return err
			}
			kinds[i] = string(r)
		}
		w.In("e.kind", kinds)
	}
	if f.Since != nil && f.Until != nil && f.Since.After(*f.Until) {
		return annals.Errorf(annals.EINVALID, "since %s is after until %s", f.Since.Format(time.RFC3339Nano), f.Until.Format(time.RFC3339Nano))
	}
	if f.Since != nil {
		w.Add("e.time >= ?", f.Since.UTC().UnixNano())
	}
	if f.Until != nil {
		w.Add("e.time <= ?", f.Until.UTC().UnixNano())
	}
	if f.Select.DropToolRows {
		w.Add("e.kind <> 'tool'")
	}
	return nil
}

// ViewLimit applies default and cap, refusing a negative limit.
func ViewLimit(n, def, max int) (int, error) {
	if n < 0 {
		return 0, annals.Errorf(annals.EINVALID, "limit must not be negative")
	}
	return annals.EffectiveLimit(n, def, max), nil
}

// MessageColumns selects a ViewMessage under a projection; ReadMessages reads them back.
func (d ViewDialect) MessageColumns(sel view.Select) string {
	max := view.MaxContentChars
	cols := []string{"c.id, e.seq, e.kind, e.channel, e.correlation_id, e.time", d.ClipContent("e.text", max)}
	if sel.OmitReasoning {
		cols = append(cols, d.OmitContent)
	} else {
		cols = append(cols, d.ClipContent("e.reasoning", max))
	}
	name := strconv.Itoa(view.MaxToolNameChars)
	if sel.OmitToolCalls {
		cols = append(cols, "''", d.OmitText)
	} else {
		cols = append(cols, "substr(e.tool_name, 1, "+name+")", d.ClipText("e.tool_args", max))
	}
	cols = append(cols, "substr(e.tool_call_id, 1, "+name+")", d.ClipContent("e.tool_result", ResultCap(sel)), "e.tool_outcome",
		d.ClipText("e.metadata", max))
	return strings.Join(cols, ", ")
}

// ResultCap is how many characters of a tool result a projection keeps.
func ResultCap(sel view.Select) int {
	if sel.ResultChars != nil && *sel.ResultChars >= 0 && *sel.ResultChars < view.MaxContentChars {
		return *sel.ResultChars
	}
	return view.MaxContentChars
}

// ValidateSelect refuses a projection the view cannot apply.
func ValidateSelect(sel view.Select) error {
	if sel.ResultChars != nil && *sel.ResultChars < 0 {
		return annals.Errorf(annals.EINVALID, "the tool result truncation must not be negative")
	}
	return nil
}

// KeysFirst builds a page query that orders and limits row keys only, then reads the (clipped)
// content of the page's rows: sorting the whole match set with its content columns would carry
// up to 64 KiB per field through the sorter for every matching row, not just the page's. from
// is the inner FROM clause, which may carry an index hint.
func (d ViewDialect) KeysFirst(sel view.Select, from string, w *Where, order string) string {
	return `SELECT ` + d.MessageColumns(sel) + ` FROM (SELECT e.pk AS pk FROM ` + from + `
		WHERE ` + w.SQL() + ` ORDER BY ` + order + ` LIMIT ?) page
		JOIN entries e ON e.pk = page.pk JOIN chats c ON c.pk = e.chat_pk ORDER BY ` + order
}

// ViewSessionsQuery builds the query of ViewSessions: a page of chats in scope (newest activity
// first, one extra row to tell that more follow), each with its first and last entry time and
// its message and event counts. It returns the statement, its arguments and the page size.
func (d ViewDialect) ViewSessionsQuery(f view.SessionsFilter) (string, []any, int, error) {
	limit, err := ViewLimit(f.Limit, view.DefaultSessions, view.MaxSessions)
	if err != nil {
		return "", nil, 0, err
	}
	w := &Where{}
	w.AddOwner("c", f.Owner)
	if f.Agent != nil {
		a := *f.Agent
		if a == "" {
			return "", nil, 0, annals.Errorf(annals.EINVALID, "agent is empty (omit it to list every session)")
		}
		// As the reference: the agent's channel exactly, or below it with ASCII letters in either
		// case; the name is literal (no wildcard), and may name a channel below the noun
		// ("main/dm" keeps the chats on in/agent/main/dm[/...]).
		ch := view.AgentChannelPrefix + a
		w.Add(`(c.agent_id = ? OR EXISTS (SELECT 1 FROM entries x WHERE x.chat_pk = c.pk AND x.channel <> ''
			AND (x.channel = ? OR `+d.FoldedLike("x.channel")+`)))`, a, ch, PrefixPattern(ch+"/"))
	}
	w.AddExcludeAttribute(f.ExcludeAttribute)
	// Every selected column is grouped: PostgreSQL requires it, SQLite does not mind.
	q := `WITH page AS (SELECT c.pk, c.id, c.agent_id, c.title, c.created_at, c.last_activity FROM chats c
			WHERE ` + w.SQL() + ` ORDER BY c.last_activity DESC, c.id LIMIT ?)
		SELECT p.id, p.agent_id, p.title, p.created_at, p.last_activity, min(e.time), max(e.time),
			count(CASE WHEN e.kind IN ('user', 'assistant') OR e.kind = 'tool' AND ` + ViewRow + ` THEN 1 END),
			count(CASE WHEN e.kind IN ('system', 'event') THEN 1 END),
			(SELECT count(DISTINCT s.source_id) FROM entry_sources s WHERE s.chat_pk = p.pk
				AND substr(s.source_id, 1, ?) = ?)
		FROM page p LEFT JOIN entries e ON e.chat_pk = p.pk
		GROUP BY p.pk, p.id, p.agent_id, p.title, p.created_at, p.last_activity ORDER BY p.last_activity DESC, p.id`
	// The source events are those of one chat's entry_sources keys that start with the prefix:
	// compared as a prefix of the value, never a pattern, and the same under any collation.
	prefix := view.SourceEventPrefix
	return q, append(w.Args, limit+1, len(prefix), prefix), limit, nil
}

// ViewEventsQuery builds the query of ViewEvents on w, which holds the store's owner
// conditions: event entries with the correlation id in capture order (entry pk), each with its
// clipped text and metadata, one extra row to tell that more follow. After resolves to the pk of
// the entry it names; a position whose entry is gone (rewound) continues nowhere.
func (d ViewDialect) ViewEventsQuery(w *Where, f view.EventsFilter) (string, []any, int, error) {
	limit, err := ViewLimit(f.Limit, view.DefaultEvents, view.MaxEvents)
	if err != nil {
		return "", nil, 0, err
	}
	if f.CorrelationID == "" {
		return "", nil, 0, annals.Errorf(annals.EINVALID, "correlation is required")
	}
	// correlation_id <> '' repeats the partial index's condition so the planner may use it.
	w.Add("e.correlation_id = ? AND e.correlation_id <> '' AND e.kind = 'event'", f.CorrelationID)
	if f.After != nil {
		w.Add("e.pk > (SELECT x.pk FROM entries x JOIN chats y ON y.pk = x.chat_pk WHERE y.id = ? AND x.seq = ?)", f.After.ChatID, f.After.Seq)
	}
	max := view.MaxContentChars
	q := `SELECT c.id, e.seq, e.channel, e.correlation_id, e.time, ` + d.ClipContent("e.text", max) + `, ` + d.ClipText("e.metadata", max) + `
		FROM entries e JOIN chats c ON c.pk = e.chat_pk WHERE ` + w.SQL() + ` ORDER BY e.pk LIMIT ?`
	return q, append(w.Args, limit+1), limit, nil
}

// ViewLocateQuery builds the query of ViewLocate on w, which holds the store's owner conditions
// on alias c: the chat id, seq and time of the first entry (by seq) carrying the source id, in
// the named chat or in any chat in scope (the oldest, then).
func ViewLocateQuery(w *Where, f view.LocateFilter) (string, []any, error) {
	if f.SourceID == "" {
		return "", nil, annals.Errorf(annals.EINVALID, "source id is required")
	}
	w.Add("s.source_id = ?", f.SourceID)
	if f.ChatID != "" {
		w.Add("c.id = ?", f.ChatID)
	}
	return `SELECT c.id, e.seq, e.time FROM entry_sources s JOIN chats c ON c.pk = s.chat_pk JOIN entries e ON e.pk = s.entry_pk
		WHERE ` + w.SQL() + ` ORDER BY e.time, c.id, e.seq LIMIT 1`, w.Args, nil
}

// ViewToolCallsQuery builds the query of ViewToolCalls on w, which holds the store's owner
// conditions on alias c: for each given message, the tool entries after it up to the first entry
// of another kind, at most view.MaxCallsPerMessage of them. Every probe is a range on the
// (chat_pk, seq) key.
func (d ViewDialect) ViewToolCallsQuery(w *Where, f view.ToolCallsFilter) (string, []any, error) {
	if len(f.Messages) > view.MaxSearch {
		return "", nil, annals.Errorf(annals.EINVALID, "%d messages given (at most %d allowed)", len(f.Messages), view.MaxSearch)
	}
	rows := make([]string, len(f.Messages))
	args := make([]any, 0, 2*len(f.Messages)+len(w.Args))
	for i, m := range f.Messages {
		rows[i] = "(CAST(? AS TEXT), CAST(? AS BIGINT))"
		args = append(args, m.ChatID, m.Seq)
	}
	name := strconv.Itoa(view.MaxToolNameChars)
	// Each message's bound (CallStop) is computed once, in the materialized b, not once for
	// every entry of its range the outer join tests (a 40-message page: 40 probes, not 2,500).
	q := `WITH r(chat_id, seq) AS (VALUES ` + strings.Join(rows, ", ") + `),
		b AS MATERIALIZED (SELECT c.id AS id, c.pk AS pk, r.seq AS seq, ` + CallStop("c.pk", "r.seq") + ` AS stop
			FROM r ` + d.OrderedJoin + ` chats c ON c.id = r.chat_id WHERE ` + w.SQL() + `)
		SELECT b.id, b.seq, substr(e.tool_call_id, 1, ` + name + `), substr(e.tool_name, 1, ` + name + `), ` + d.ClipText("e.tool_args", view.MaxContentChars) + `
		FROM b ` + d.OrderedJoin + ` entries e ON e.chat_pk = b.pk
		WHERE ` + CallRange("e", "b.pk", "b.seq", "b.stop") + ` ORDER BY b.id, b.seq, e.seq`
	return q, append(args, w.Args...), nil
}

// CallOf is the condition that the entry aliased call is one of the calls of the message at seq
// in the chat chatPK (SQL expressions): a tool entry with arguments after it, up to the first
// entry that is no such tool entry, at most view.MaxCallsPerMessage entries on. A tool entry
// without arguments is a result no call of the message asked for (the lanius importer's orphan
// result): a row of its own, never one of the message's calls. It is the one definition of a message's
// calls: the view attaches them (ViewToolCallsQuery) and its substring filter matches the message
// by their fields (SubstringMatch, SubstringOwners).
//
// The first entry of another kind is found once, as the upper bound of the range of the
// (chat_pk, seq) key: the range then reads the calls alone, not the window of
// ViewMaxCallsPerMessage entries (the substring search tests every assistant entry it walks).
func CallOf(call, chatPK, seq string) string {
	return CallRange(call, chatPK, seq, CallStop(chatPK, seq))
}

// CallStop is CallOf's upper bound (exclusive) of the calls of the message at seq in the chat
// chatPK: the seq of the first later entry that is no call, or the last seq MaxCallsPerMessage
// allows plus one.
func CallStop(chatPK, seq string) string {
	max := strconv.Itoa(view.MaxCallsPerMessage)
	return `coalesce((SELECT z.seq FROM entries z WHERE z.chat_pk = ` + chatPK + ` AND z.seq > ` + seq +
		` AND (z.kind <> 'tool' OR z.tool_args = '') ORDER BY z.seq LIMIT 1), ` + seq + ` + ` + max + ` + 1)`
}

// CallRange is CallOf given its bound stop (CallStop), which a caller may compute once per
// message rather than once per entry it tests.
func CallRange(call, chatPK, seq, stop string) string {
	max := strconv.Itoa(view.MaxCallsPerMessage)
	return call + `.chat_pk = ` + chatPK + ` AND ` + call + `.seq > ` + seq + ` AND ` + call + `.seq <= ` + seq + ` + ` + max +
		` AND ` + call + `.seq < ` + stop + ` AND ` + call + `.kind = 'tool'`
}

// MaxChatCallsSpan is the widest seq span of one chat's messages whose calls are read as one
// range of the chat (ViewChatCallsQuery) rather than message by message: a transcript page, whose
// messages are consecutive.
const MaxChatCallsSpan = 4 * view.MaxTranscript

// OneChatSpan reports whether the messages are all of one chat within MaxChatCallsSpan seqs, and
// that chat and the lowest and highest seq.
func OneChatSpan(ms []view.Ref) (chatID string, lo, hi int64, ok bool) {
	if len(ms) == 0 {
		return "", 0, 0, false
	}
	chatID, lo, hi = ms[0].ChatID, ms[0].Seq, ms[0].Seq
	for _, m := range ms[1:] {
		if m.ChatID != chatID {
			return "", 0, 0, false
		}
		lo, hi = min(lo, m.Seq), max(hi, m.Seq)
	}
	return chatID, lo, hi, hi-lo <= MaxChatCallsSpan
}

// ViewChatCallsQuery builds the query of ViewToolCalls for messages of one chat between seqs lo
// and hi (OneChatSpan), on w, which holds the store's owner conditions on alias c: one range of the
// (chat_pk, seq) key, every entry after lo up to view.MaxCallsPerMessage after hi, each with
// whether it is a call (CallOf's test: a tool entry with arguments) and the call's fields.
// ReadChatCalls gives each message its calls from them. One statement of one shape for any page,
// where ViewToolCallsQuery's text grows with the number of messages.
func (d ViewDialect) ViewChatCallsQuery(w *Where, chatID string, lo, hi int64) (string, []any) {
	name := strconv.Itoa(view.MaxToolNameChars)
	q := `SELECT e.seq, CASE WHEN e.kind = 'tool' AND e.tool_args <> '' THEN 1 ELSE 0 END,
			substr(e.tool_call_id, 1, ` + name + `), substr(e.tool_name, 1, ` + name + `), ` + d.ClipText("e.tool_args", view.MaxContentChars) + `
		FROM chats c ` + d.OrderedJoin + ` entries e ON e.chat_pk = c.pk
		WHERE c.id = ? AND ` + w.SQL() + ` AND e.seq > ? AND e.seq <= ? ORDER BY e.seq`
	return q, append(append([]any{chatID}, w.Args...), lo, hi+view.MaxCallsPerMessage)
}

// ViewPageGapsQuery builds the query of the entries a transcript page of the chat chatPK does not
// hold, for AttachPageCalls, on w, which holds the store's owner conditions on alias c: between
// the page's first and last seqs (lo and hi) the entries the page's condition (ViewRow, and no
// tool rows with DropToolRows) left out, and every entry up to view.MaxCallsPerMessage after hi;
// in the columns of ViewChatCallsQuery.
func (d ViewDialect) ViewPageGapsQuery(w *Where, chatPK, lo, hi int64, sel view.Select) (string, []any) {
	name := strconv.Itoa(view.MaxToolNameChars)
	// Not ViewRow: a tool entry with no outcome and no result (columns that are never NULL).
	gap := "e.kind = 'tool' AND e.tool_outcome = '' AND e.tool_result = ''"
	if sel.DropToolRows {
		gap = "e.kind = 'tool'"
	}
	q := `SELECT e.seq, CASE WHEN e.kind = 'tool' AND e.tool_args <> '' THEN 1 ELSE 0 END,
			substr(e.tool_call_id, 1, ` + name + `), substr(e.tool_name, 1, ` + name + `), ` + d.ClipText("e.tool_args", view.MaxContentChars) + `
		FROM entries e JOIN chats c ON c.pk = e.chat_pk
		WHERE e.chat_pk = ? AND ` + w.SQL() + ` AND e.seq > ? AND e.seq <= ? AND (e.seq > ? OR ` + gap + `) ORDER BY e.seq`
	return q, append(append([]any{chatPK}, w.Args...), lo, hi+view.MaxCallsPerMessage, hi)
}
