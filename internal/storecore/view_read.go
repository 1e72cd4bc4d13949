package storecore

import (
	"cmp"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/textcut"
	"github.com/annals-dev/annals/view"
)

// Reading the view's rows back, as both stores read them: the statements are in view.go.

// Scanner is a row the view reads: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows all are.
type Scanner interface{ Scan(dest ...any) error }

// messageRow holds the scan targets of one row of MessageColumns. One is made per page and
// reused for every row: a target passed to Scan escapes, so locals would be allocated again for
// each row (a fifth of a transcript page's allocations; issue 32).
type messageRow struct {
	session, channel, correlation     string
	id                                int64
	kind, name, callID, outcome       string
	t, textN, reasonN, argsN, resultN int64
	metaN                             int64
	text, reason, args, result, meta  []byte
	dest                              []any
}

func newMessageRow() *messageRow {
	r := &messageRow{}
	r.dest = []any{&r.session, &r.id, &r.kind, &r.channel, &r.correlation, &r.t, &r.text, &r.textN, &r.reason, &r.reasonN,
		&r.name, &r.args, &r.argsN, &r.callID, &r.result, &r.resultN, &r.outcome, &r.meta, &r.metaN}
	return r
}

// scan reads one row of MessageColumns into a message. Times are unix nanoseconds.
func (r *messageRow) scan(row Scanner, sel view.Select) (view.Message, error) {
	var m view.Message
	r.text, r.reason, r.args, r.result, r.meta = nil, nil, nil, nil, nil
	if err := row.Scan(r.dest...); err != nil {
		return m, err
	}
	m.Session, m.ID, m.Channel, m.Correlation = r.session, r.id, r.channel, r.correlation
	m.Metadata = wholeJSON(r.meta, r.metaN)
	m.Role = annals.EntryKind(r.kind)
	m.Content.Role = m.Role
	m.CreatedAt = FromNano(r.t)
	m.Content.Text = Clipped(r.text, r.textN, view.MaxContentChars)
	if len(r.reason) > 0 {
		reason := Clipped(r.reason, r.reasonN, view.MaxContentChars)
		m.Content.Reasoning = &reason
	}
	if m.Role == annals.KindTool {
		tool := &view.Tool{Name: r.name, CallID: r.callID, Result: Clipped(r.result, r.resultN, ResultCap(sel)), Outcome: annals.Outcome(r.outcome)}
		if len(r.args) > 0 {
			a := Clipped(r.args, r.argsN, view.MaxContentChars)
			if a.Truncated {
				tool.Arguments = &view.JSON{Truncated: true, Chars: a.Chars, Preview: a.Value}
			} else {
				tool.Arguments = &view.JSON{Raw: json.RawMessage(a.Value)}
			}
		}
		m.Content.Tool = tool
	}
	return m, nil
}

// RowIter is a result set the view pages through: *sql.Rows and pgx.Rows both are. The caller
// closes it.
type RowIter interface {
	Scanner
	Next() bool
	Err() error
}

// ReadMessages reads up to limit+1 rows of MessageColumns: the extra one only tells that more
// follow. storeErr classifies a driver error the store's way.
func ReadMessages(rows RowIter, sel view.Select, limit int, storeErr func(op string, err error) error) (*view.Page, error) {
	page := &view.Page{Messages: []view.Message{}}
	r := newMessageRow()
	for rows.Next() {
		m, err := r.scan(rows, sel)
		if err != nil {
			return nil, storeErr("scan view message", err)
		}
		if len(page.Messages) == limit {
			page.HasMore = true
			break
		}
		page.Messages = append(page.Messages, m)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("read view messages", err)
	}
	if page.HasMore && len(page.Messages) > 0 {
		last := page.Messages[len(page.Messages)-1]
		page.Next = &view.Position{Time: last.CreatedAt, ChatID: last.Session, Seq: last.ID}
	}
	return page, nil
}

// Clipped finishes a clip in Go: n < 0 means v is the whole value, which may still hold more
// than capChars characters (it was bounded in bytes); otherwise v is a prefix and n the full
// length.
func Clipped(v []byte, n int64, capChars int) view.Text {
	s := string(v)
	if n < 0 && len(s) <= capChars {
		return view.Text{Value: s} // no more characters than bytes: nothing to count
	}
	if n < 0 {
		c := utf8.RuneCountInString(s)
		if c <= capChars {
			return view.Text{Value: s}
		}
		n = int64(c)
	}
	return view.Text{Value: textcut.First(s, capChars), Truncated: true, Chars: n}
}

// ReadLocate reads the row of ViewLocateQuery; noRows tells the driver's "no row" error.
func ReadLocate(row Scanner, noRows func(error) bool, storeErr func(op string, err error) error) (*view.Position, error) {
	var p view.Position
	var t int64
	err := row.Scan(&p.ChatID, &p.Seq, &t)
	if noRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr("view locate", err)
	}
	p.Time = FromNano(t)
	return &p, nil
}

// ReadEvents reads up to limit+1 rows of ViewEventsQuery.
func ReadEvents(rows RowIter, limit int, storeErr func(op string, err error) error) (*view.EventPage, error) {
	page := &view.EventPage{Events: []view.Event{}}
	// One set of scan targets for every row (a target passed to Scan escapes).
	var ev view.Event
	var t, textN, metaN int64
	var text, meta []byte
	dest := []any{&ev.Session, &ev.Seq, &ev.Channel, &ev.Correlation, &t, &text, &textN, &meta, &metaN}
	for rows.Next() {
		ev, text, meta = view.Event{}, nil, nil
		if err := rows.Scan(dest...); err != nil {
			return nil, storeErr("scan view event", err)
		}
		if len(page.Events) == limit {
			page.HasMore = true
			break
		}
		ev.CreatedAt = FromNano(t)
		ev.Text = Clipped(text, textN, view.MaxContentChars)
		ev.Metadata = wholeJSON(meta, metaN)
		page.Events = append(page.Events, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("read view events", err)
	}
	if page.HasMore && len(page.Events) > 0 {
		last := page.Events[len(page.Events)-1]
		page.Next = &view.Position{Time: last.CreatedAt, ChatID: last.Session, Seq: last.Seq}
	}
	return page, nil
}

// wholeJSON is a clipped metadata column as JSON, nil when it was clipped or is no JSON:
// metadata is only useful whole, and a clipped object is no JSON.
func wholeJSON(v []byte, n int64) json.RawMessage {
	if n < 0 && len(v) <= view.MaxContentChars {
		// Whole, and no more characters than bytes: v itself (the row's own copy), if JSON.
		if json.Valid(v) {
			return v
		}
		return nil
	}
	if m := Clipped(v, n, view.MaxContentChars); !m.Truncated && json.Valid([]byte(m.Value)) {
		return json.RawMessage(m.Value)
	}
	return nil
}

// ReadChatCalls reads the rows of ViewChatCallsQuery and gives each message of chatID at seqs its
// calls: the entries after it that are calls, up to the first that is not, at most
// view.MaxCallsPerMessage seqs on. It is CallOf's rule over rows already read (the conformance
// tests of the view hold both to the same answers).
func ReadChatCalls(rows RowIter, chatID string, seqs []int64, storeErr func(op string, err error) error) (map[view.Ref][]view.Call, error) {
	run, err := readCallRun(rows, nil, storeErr)
	if err != nil {
		return nil, err
	}
	out := map[view.Ref][]view.Call{}
	for _, s := range seqs {
		if calls := run.callsAfter(s); len(calls) > 0 {
			out[view.Ref{ChatID: chatID, Seq: s}] = calls
		}
	}
	return out, nil
}

// callRun is the entries of one chat's range in seq order, each with its call when it is one
// (CallOf's test: a tool entry with arguments).
type callRun []callEntry

type callEntry struct {
	seq  int64
	call *view.Call
}

// readCallRun appends the rows of ViewChatCallsQuery or ViewPageGapsQuery to run.
func readCallRun(rows RowIter, run callRun, storeErr func(op string, err error) error) (callRun, error) {
	// One set of scan targets for every row (a target passed to Scan escapes).
	var row struct {
		seq          int64
		isCall       int
		callID, name string
		args         []byte
		argsN        int64
	}
	dest := []any{&row.seq, &row.isCall, &row.callID, &row.name, &row.args, &row.argsN}
	for rows.Next() {
		row.args = nil
		if err := rows.Scan(dest...); err != nil {
			return nil, storeErr("scan view tool call", err)
		}
		e := callEntry{seq: row.seq}
		if row.isCall == 1 {
			e.call = &view.Call{CallID: row.callID, Name: row.name, Arguments: callArguments(row.args, row.argsN)}
		}
		run = append(run, e)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("read view tool calls", err)
	}
	return run, nil
}

// callsAfter is the calls of the message at seq s: the entries after it that are calls, up to
// the first that is not, at most view.MaxCallsPerMessage seqs on.
func (run callRun) callsAfter(s int64) []view.Call {
	i, _ := slices.BinarySearchFunc(run, s+1, func(e callEntry, seq int64) int { return cmp.Compare(e.seq, seq) })
	var out []view.Call
	for ; i < len(run) && run[i].call != nil && run[i].seq <= s+view.MaxCallsPerMessage; i++ {
		out = append(out, *run[i].call)
	}
	return out
}

// AttachPageCalls gives every assistant message of a transcript page (one chat, oldest first, as
// read by MessageColumns without OmitToolCalls) its calls, as ReadChatCalls would: the page's
// own rows and gaps, the rows of ViewPageGapsQuery (the entries of the range the page does not
// hold), are together every entry of the range, so a page's calls cost the few entries it
// lacks, not a second read of the whole range (issue 32). The caller closes gaps.
func AttachPageCalls(ms []view.Message, gaps RowIter, storeErr func(op string, err error) error) error {
	run := make(callRun, 0, len(ms)+8)
	for i := range ms {
		e := callEntry{seq: ms[i].ID}
		if t := ms[i].Content.Tool; ms[i].Role == annals.KindTool && t != nil && t.Arguments != nil {
			// The same columns, cut alike, as ViewChatCallsQuery reads for a call.
			e.call = &view.Call{CallID: t.CallID, Name: t.Name, Arguments: t.Arguments}
		}
		run = append(run, e)
	}
	run, err := readCallRun(gaps, run, storeErr)
	if err != nil {
		return err
	}
	slices.SortFunc(run, func(a, b callEntry) int { return cmp.Compare(a.seq, b.seq) })
	for i := range ms {
		if ms[i].Role == annals.KindAssistant {
			if calls := run.callsAfter(ms[i].ID); len(calls) > 0 {
				ms[i].Content.ToolCalls = calls
			}
		}
	}
	return nil
}

// callArguments is a clipped arguments column as a call's arguments; nil when empty.
func callArguments(args []byte, argsN int64) *view.JSON {
	if len(args) == 0 {
		return nil
	}
	a := Clipped(args, argsN, view.MaxContentChars)
	if a.Truncated {
		return &view.JSON{Truncated: true, Chars: a.Chars, Preview: a.Value}
	}
	return &view.JSON{Raw: json.RawMessage(a.Value)}
}

// ReadToolCalls reads the rows of ViewToolCallsQuery.
func ReadToolCalls(rows RowIter, storeErr func(op string, err error) error) (map[view.Ref][]view.Call, error) {
	out := map[view.Ref][]view.Call{}
	for rows.Next() {
		var ref view.Ref
		var call view.Call
		var args []byte
		var argsN int64
		if err := rows.Scan(&ref.ChatID, &ref.Seq, &call.CallID, &call.Name, &args, &argsN); err != nil {
			return nil, storeErr("scan view tool call", err)
		}
		call.Arguments = callArguments(args, argsN)
		out[ref] = append(out[ref], call)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("read view tool calls", err)
	}
	return out, nil
}
