package queryview

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/textcut"
	"github.com/annals-dev/annals/view"
)

// What a client of the reference view (lanius's history package) relies on, and annals's own
// data does not say by itself: the ids it knows its sessions by, and its events as stored.

// laniusChatPrefix starts the id of every chat the lanius importer made (importer.ChatID of the
// format "lanius"): the reference's session s-982613bf is the chat lanius:s-982613bf.
const laniusChatPrefix = "lanius:"

// LedgerAttribute marks a chat that holds a ledger of events rather than a conversation (the
// lanius importer's lanius:ledger): it is no session, links no agent and fills no search page,
// and conversation still answers its events. Its value does not matter.
const LedgerAttribute = "ledger"

// laniusEventKey is the metadata key under which the lanius importer keeps an event's ledger
// fields (importer.LaniusEventMetaKey).
const laniusEventKey = "lanius_event"

// maxPayloadChars and payloadPreviewChars are the reference's cap on a stored JSON text and the
// preview it shows instead (CONTENT_CAP, text[:2048]).
const (
	maxPayloadChars     = 16 << 10
	payloadPreviewChars = 2048
)

// sessionID is how an answer names a chat: an imported lanius session by the id lanius knows it
// by, any other chat by its own id.
func sessionID(chatID string) string {
	if s, ok := strings.CutPrefix(chatID, laniusChatPrefix); ok && s != "" {
		return s
	}
	return chatID
}

// sessionIDs renames a list of chat ids in place.
func sessionIDs(ids []string) []string {
	for i, id := range ids {
		ids[i] = sessionID(id)
	}
	return ids
}

// attachCalls gives every assistant message of a page its tool_calls, as the reference stores
// them on the assistant row: the tool entries that directly follow it. select.tool_calls false
// leaves them off, which is what it does in the reference; tool rows themselves stay whole.
func (v *View) attachCalls(ctx context.Context, scope annals.Scope, ms []view.Message, sel *Select) error {
	if !wantCalls(sel) {
		return nil
	}
	var refs []view.Ref
	for _, m := range ms {
		if m.Role == annals.KindAssistant {
			refs = append(refs, view.Ref{ChatID: m.Session, Seq: m.ID})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	calls, err := v.svc.ViewToolCalls(ctx, scope, view.ToolCallsFilter{Messages: refs})
	if err != nil {
		return err
	}
	for i := range ms {
		if cs := calls[view.Ref{ChatID: ms[i].Session, Seq: ms[i].ID}]; ms[i].Role == annals.KindAssistant && len(cs) > 0 {
			ms[i].Content.ToolCalls = cs
		}
	}
	return nil
}

// wantCalls reports whether assistant messages carry their tool_calls: unless select.tool_calls
// is false.
func wantCalls(sel *Select) bool {
	return sel == nil || sel.ToolCalls == nil || *sel.ToolCalls
}

// renameMessages renames the sessions of a page in place and gives imported lanius messages what
// lanius answers for them (laniusOverlay).
func renameMessages(ms []view.Message) []view.Message {
	for i := range ms {
		ms[i].Session = sessionID(ms[i].Session)
		laniusOverlay(&ms[i])
	}
	return ms
}

// laniusOrigin is where the lanius importer keeps a message row's id and ledger link.
type laniusOrigin struct {
	ID      *int64 `json:"id"`
	EventID *int64 `json:"event_id"`
}

// laniusMessageSource is the source id the lanius importer gives the entry of lanius's
// messages row id (its "m<id>"; a tool row's result lands on its call's entry, which carries
// both rows' source ids, the assistant's first).
func laniusMessageSource(id int64) string { return "m" + strconv.FormatInt(id, 10) }

// referenceID reads a cursor a client of the reference passes: a message id, in the decimal
// text Cursor keeps (or a string holding one, as Python's int() reads it). ok is false for
// anything else (an annals cursor).
func referenceID(s string) (int64, bool) {
	return pyIntString(s)
}

// beforeSeq turns a transcript's before_id into the seq the page ends before (0: none). As in
// the reference the page holds the messages whose id is below it. A message of an imported
// lanius session is known to the client by lanius's id (see laniusBefore); any other id is an
// entry seq. Nothing comes before an id of 1 or less.
func (v *View) beforeSeq(ctx context.Context, scope annals.Scope, req *TranscriptRequest) (int64, error) {
	if req.BeforeID == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(string(req.BeforeID), 10, 64)
	if err != nil {
		return 0, annals.Errorf(annals.EINVALID, "before_id %q is not an integer", string(req.BeforeID))
	}
	if id <= 1 {
		return 1, nil
	}
	chat := req.Session
	if !strings.HasPrefix(chat, laniusChatPrefix) {
		chat = laniusChatPrefix + chat
	}
	pos, err := v.svc.ViewLocate(ctx, scope, view.LocateFilter{ChatID: chat, SourceID: laniusMessageSource(id)})
	if err != nil {
		return 0, err
	}
	if pos != nil {
		return pos.Seq, nil
	}
	seq, lanius, err := v.laniusBefore(ctx, scope, chat, id)
	if err != nil || lanius {
		return seq, err
	}
	return id, nil
}

// laniusBefore finds, in an imported lanius session, where the messages below a lanius id that
// is none of its messages' end: the seq of its first message with a larger id (0 when every
// message's id is below), by bisection over the session's seqs, each step one message read.
// lanius's ids grow with its messages' order, which the import keeps. lanius is false when the
// chat is no imported lanius session in scope.
func (v *View) laniusBefore(ctx context.Context, scope annals.Scope, chat string, id int64) (seq int64, lanius bool, err error) {
	// at is the last message at or before seq s: its seq and lanius id (ok false: none).
	at := func(s int64) (int64, int64, bool, error) {
		page, err := v.svc.ViewTranscript(ctx, scope, view.TranscriptFilter{ChatID: chat, BeforeSeq: s + 1, Limit: 1})
		if err != nil || len(page.Messages) == 0 {
			return 0, 0, false, err
		}
		m := page.Messages[0]
		seq := m.ID
		laniusOverlay(&m)
		return seq, m.ID, true, nil
	}
	last, err := v.svc.ViewTranscript(ctx, scope, view.TranscriptFilter{ChatID: chat, Limit: 1})
	if annals.ErrorCode(err) == annals.ENOTFOUND || err == nil && len(last.Messages) == 0 {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	hi, hiID, _, err := at(last.Messages[0].ID)
	if err != nil || hiID < id {
		return 0, true, err
	}
	// The answer lies in (lo, hi]: every message at or before lo has a smaller id, the one at
	// hi has at least id.
	lo := int64(0)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		s, sID, ok, err := at(mid)
		if err != nil {
			return 0, true, err
		}
		if ok && sID >= id {
			hi = s
		} else {
			lo = mid
		}
	}
	return hi, true, nil
}

// laniusOverlay gives a message imported from lanius what lanius's view answers for it and the
// entry's fields cannot say (importer.LaniusContentMetaKey): the id of the event that carried it
// (for a tool entry, the tool row's) and, for a content that was no JSON object or was over
// lanius's cap, the content exactly as lanius answers it — its value, or its
// {"truncated": true, "chars", "preview"} marker in place of the whole content.
func laniusOverlay(m *view.Message) {
	// Every key the lanius importer writes starts with "lanius": other metadata is not parsed.
	if !bytes.Contains(m.Metadata, []byte(`"lanius`)) {
		return
	}
	meta, ok := scanLaniusMessage(m.Metadata)
	if !ok {
		var full struct {
			Lanius       *laniusOrigin              `json:"lanius"`
			LaniusResult *laniusOrigin              `json:"lanius_result"`
			Content      map[string]json.RawMessage `json:"lanius_content"`
		}
		if json.Unmarshal(m.Metadata, &full) != nil {
			return
		}
		meta.Lanius, meta.LaniusResult = full.Lanius, full.LaniusResult
		meta.Content.Value, meta.Content.Chars, meta.Content.Preview = full.Content["value"], full.Content["chars"], full.Content["preview"]
	}
	switch {
	case meta.LaniusResult != nil && meta.LaniusResult.EventID != nil:
		m.EventID = meta.LaniusResult.EventID
	case meta.Lanius != nil && meta.Lanius.EventID != nil:
		m.EventID = meta.Lanius.EventID
	}
	// The id is lanius's own row id, the one its clients pass back (before_id, a cursor): a tool
	// entry that carries a result is the tool row.
	switch {
	case meta.LaniusResult != nil && meta.LaniusResult.ID != nil && *meta.LaniusResult.ID > 0:
		m.ID = *meta.LaniusResult.ID
	case meta.Lanius != nil && meta.Lanius.ID != nil && *meta.Lanius.ID > 0:
		m.ID = *meta.Lanius.ID
	}
	if v := meta.Content.Value; len(v) > 0 {
		m.Content.Stored = v
		return
	}
	var chars int64
	var preview string
	if json.Unmarshal(meta.Content.Chars, &chars) == nil && chars > 0 && json.Unmarshal(meta.Content.Preview, &preview) == nil {
		m.Content.Stored, _ = json.Marshal(struct {
			Truncated bool   `json:"truncated"`
			Chars     int64  `json:"chars"`
			Preview   string `json:"preview"`
		}{true, chars, preview})
	}
}

// Event is one event of a conversation, in the reference's shape: its ledger id, type, cause,
// state and payload as stored. Session is the chat holding it (annals's addition).
type Event struct {
	ID        int64           `json:"id"`
	Type      string          `json:"type"`
	CauseID   json.RawMessage `json:"cause_id"`
	State     json.RawMessage `json:"state"`
	Payload   json.RawMessage `json:"payload"`
	CreatedAt string          `json:"created_at"`
	Session   string          `json:"session"`
}

// eventOf turns an event entry into the reference's event. An imported lanius event answers with
// its ledger fields; any other event with its seq as id and no cause or state.
func eventOf(ev view.Event) Event {
	out := Event{ID: ev.Seq, Type: ev.Channel, CauseID: jsonNull, State: jsonNull,
		CreatedAt: view.FormatTime(ev.CreatedAt), Session: sessionID(ev.Session)}
	var lanius *laniusEventMeta
	ok := true
	if bytes.Contains(ev.Metadata, []byte(`"`+laniusEventKey+`"`)) {
		lanius, ok = scanLaniusEvent(ev.Metadata)
	}
	if !ok {
		// What the walk does not expect, encoding/json decodes: one decode of the importer's key
		// alone (other metadata is skipped, not parsed into values).
		lanius = nil
		var meta struct {
			Lanius *struct {
				ID          *int64          `json:"id"`
				CauseID     json.RawMessage `json:"cause_id"`
				State       json.RawMessage `json:"state"`
				PayloadNull bool            `json:"payload_null"`
			} `json:"lanius_event"`
		}
		if json.Unmarshal(ev.Metadata, &meta) == nil && meta.Lanius != nil {
			lanius = &laniusEventMeta{ID: meta.Lanius.ID, CauseID: meta.Lanius.CauseID, State: meta.Lanius.State, PayloadNull: meta.Lanius.PayloadNull}
		}
	}
	if lanius != nil {
		if lanius.ID != nil {
			out.ID = *lanius.ID
		}
		if lanius.CauseID != nil {
			out.CauseID = lanius.CauseID
		}
		if lanius.State != nil {
			out.State = lanius.State
		}
		if lanius.PayloadNull {
			out.Payload = jsonNull
			return out
		}
	}
	out.Payload = payloadOf(ev.Text)
	return out
}

var jsonNull = json.RawMessage("null")

// payloadOf is the reference's capped_json: a text over the cap becomes {"truncated": true,
// "chars", "preview"}; valid JSON is the value it holds (an object, a number, a string...);
// anything else is the raw string.
func payloadOf(t view.Text) json.RawMessage {
	chars := t.Chars
	if !t.Truncated {
		chars = int64(utf8.RuneCountInString(t.Value))
	}
	if chars > maxPayloadChars {
		b, _ := json.Marshal(struct {
			Truncated bool   `json:"truncated"`
			Chars     int64  `json:"chars"`
			Preview   string `json:"preview"`
		}{true, chars, textcut.First(t.Value, payloadPreviewChars)})
		return b
	}
	if v := strings.TrimSpace(t.Value); v != "" && json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	b, _ := json.Marshal(t.Value)
	return b
}
