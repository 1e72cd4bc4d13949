package queryview

import (
	"strconv"

	"github.com/annals-dev/annals/view"
)

// The answers that carry messages write themselves into one buffer (AppendJSON), byte for byte
// what encoding/json writes for them (TestAnswersAppendJSONMatchesMarshal), without its
// reflection, its tree of wire values and its final copy of the whole answer; the HTTP server
// uses AppendJSON when an answer has one. Their struct tags stay for the Go client's decoding,
// so each shape is written twice: TestAppendJSONEveryField fills every field of each by
// reflection and fails on a field that one writes and the other does not. The messages inside
// have one encoder only (view.Message.AppendJSON). The other answers are small and stay with
// encoding/json.

// appendHead appends {"ok":true,"kind":<kind>.
func appendHead(dst []byte, h Head) []byte {
	if h.OK {
		dst = append(dst, `{"ok":true,"kind":`...)
	} else {
		dst = append(dst, `{"ok":false,"kind":`...)
	}
	return view.AppendString(dst, h.Kind)
}

// appendTail appends the limit, the caps and the scope, and closes the object.
func appendTail(dst []byte, limit int, caps Caps, scope string) []byte {
	dst = strconv.AppendInt(append(dst, `,"limit":`...), int64(limit), 10)
	dst = strconv.AppendInt(append(dst, `,"content_chars":`...), int64(caps.ContentChars), 10)
	dst = strconv.AppendInt(append(dst, `,"result_chars":`...), int64(caps.ResultChars), 10)
	dst = view.AppendString(append(dst, `,"scope":`...), scope)
	return append(dst, '}')
}

func appendCursor(dst []byte, c *string) []byte {
	dst = append(dst, `,"cursor":`...)
	if c == nil {
		return append(dst, "null"...)
	}
	return view.AppendString(dst, *c)
}

// AppendJSON appends the answer as encoding/json writes it.
func (a *TranscriptAnswer) AppendJSON(dst []byte) ([]byte, error) {
	dst = appendHead(grow(dst, view.SizeHint(a.Messages)), a.Head)
	dst = view.AppendString(append(dst, `,"session":`...), a.Session)
	dst, err := view.AppendMessages(append(dst, `,"messages":`...), a.Messages)
	if err != nil {
		return dst, err
	}
	dst = strconv.AppendBool(append(dst, `,"has_more":`...), a.HasMore)
	if a.BeforeIDNext != nil {
		dst = strconv.AppendInt(append(dst, `,"before_id_next":`...), *a.BeforeIDNext, 10)
	}
	return appendTail(dst, a.Limit, a.Caps, string(a.Scope)), nil
}

// AppendJSON appends the answer as encoding/json writes it.
func (a *SearchAnswer) AppendJSON(dst []byte) ([]byte, error) {
	dst = appendHead(grow(dst, view.SizeHint(a.Messages)), a.Head)
	dst, err := view.AppendMessages(append(dst, `,"messages":`...), a.Messages)
	if err != nil {
		return dst, err
	}
	dst = strconv.AppendBool(append(dst, `,"has_more":`...), a.HasMore)
	dst = appendCursor(dst, a.Cursor)
	return appendTail(dst, a.Limit, a.Caps, string(a.Scope)), nil
}

// AppendJSON appends the answer as encoding/json writes it.
func (a *ConversationAnswer) AppendJSON(dst []byte) ([]byte, error) {
	hint := view.SizeHint(a.Messages)
	for i := range a.Events {
		hint += 160 + len(a.Events[i].Payload) + len(a.Events[i].Type) + len(a.Events[i].Session)
	}
	dst = appendHead(grow(dst, hint), a.Head)
	dst = view.AppendString(append(dst, `,"correlation":`...), a.Correlation)
	dst = append(dst, `,"events":`...)
	var err error
	if a.Events == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range a.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = a.Events[i].appendJSON(dst); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	dst = strconv.AppendBool(append(dst, `,"truncated":`...), a.Truncated)
	if dst, err = view.AppendMessages(append(dst, `,"messages":`...), a.Messages); err != nil {
		return dst, err
	}
	dst = strconv.AppendBool(append(dst, `,"has_more":`...), a.HasMore)
	dst = appendCursor(dst, a.Cursor)
	return appendTail(dst, a.Limit, a.Caps, string(a.Scope)), nil
}

// appendJSON appends the event as encoding/json writes it.
func (e *Event) appendJSON(dst []byte) ([]byte, error) {
	dst = strconv.AppendInt(append(dst, `{"id":`...), e.ID, 10)
	dst = view.AppendString(append(dst, `,"type":`...), e.Type)
	var err error
	if dst, err = view.AppendRaw(append(dst, `,"cause_id":`...), e.CauseID); err != nil {
		return dst, err
	}
	if dst, err = view.AppendRaw(append(dst, `,"state":`...), e.State); err != nil {
		return dst, err
	}
	if dst, err = view.AppendRaw(append(dst, `,"payload":`...), e.Payload); err != nil {
		return dst, err
	}
	dst = view.AppendString(append(dst, `,"created_at":`...), e.CreatedAt)
	dst = view.AppendString(append(dst, `,"session":`...), e.Session)
	return append(dst, '}'), nil
}

// grow makes room for n more bytes at once.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}
