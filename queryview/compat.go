package queryview

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"

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
	if sel != nil && sel.ToolCalls != nil && !*sel.ToolCalls {
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

// referenceID reads a cursor or before_id a client of the reference passes: a message id, as
// a JSON number or a string holding one. ok is false for anything else (an annals cursor).
func referenceID(s string) (int64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	// id < 95750.5 keeps 95750: the page ends before the next whole id.
	return int64(math.Ceil(f)), true
}

// beforeSeq turns a transcript's before_id into the seq the page ends before (0: none). A
// message of an imported lanius session is known to the client by lanius's id, and the page
// ends before that message's entry; any other id is an entry seq. As in the reference, a falsy
// before_id means none, and nothing comes before a negative or zero one.
func (v *View) beforeSeq(ctx context.Context, scope annals.Scope, req *TranscriptRequest) (int64, error) {
	id, ok := referenceID(string(req.BeforeID))
	switch {
	case !ok || req.BeforeID == "":
		return 0, nil
	case id <= 0:
		return 1, nil
	}
	chat := req.Session
	if !strings.HasPrefix(chat, laniusChatPrefix) {
		chat = laniusChatPrefix + chat
	}
	pos, err := v.svc.ViewLocate(ctx, scope, view.LocateFilter{ChatID: chat, SourceID: laniusMessageSource(id)})
	if err != nil || pos == nil {
		return id, err
	}
	return pos.Seq, nil
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
	var meta struct {
		Lanius       *laniusOrigin              `json:"lanius"`
		LaniusResult *laniusOrigin              `json:"lanius_result"`
		Content      map[string]json.RawMessage `json:"lanius_content"`
	}
	if json.Unmarshal(m.Metadata, &meta) != nil {
		return
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
	if v, ok := meta.Content["value"]; ok && len(v) > 0 {
		m.Content.Stored = v
		return
	}
	var chars int64
	var preview string
	if json.Unmarshal(meta.Content["chars"], &chars) == nil && chars > 0 && json.Unmarshal(meta.Content["preview"], &preview) == nil {
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
	// One decode of the importer's key alone (other metadata is skipped, not parsed into values).
	var meta struct {
		Lanius *struct {
			ID          *int64          `json:"id"`
			CauseID     json.RawMessage `json:"cause_id"`
			State       json.RawMessage `json:"state"`
			PayloadNull bool            `json:"payload_null"`
		} `json:"lanius_event"`
	}
	if bytes.Contains(ev.Metadata, []byte(`"`+laniusEventKey+`"`)) && json.Unmarshal(ev.Metadata, &meta) == nil && meta.Lanius != nil {
		lanius := meta.Lanius
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
		chars = int64(len([]rune(t.Value)))
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
