package view

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/annals-dev/annals/internal/jsonesc"
)

// A message's wire form is written here and nowhere else: AppendJSON writes it straight into the
// answer's buffer, and MarshalJSON (of Message, Content, Text and JSON) is AppendJSON, so
// encoding/json and the answers' own encoders cannot write two shapes. Strings are escaped as
// encoding/json escapes them (<, > and & as \u003c..., U+2028 and U+2029, control characters,
// invalid UTF-8 as \ufffd) and stored JSON is compacted with the same escapes, so the bytes are
// what encoding/json wrote for the earlier tree of wire values (the recorded answers hold them).
// encoding/json reached them through reflection, a tree of wire values per message and a copy of
// the whole answer; a transcript page of 80 messages (~300 KB) spent a third of its CPU there
// (issue 32).

// ErrInvalidJSON is AppendRaw's error for a stored value that is no JSON.
var ErrInvalidJSON = errors.New("stored value is not valid JSON")

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json escapes it (the one quoter,
// jsonesc, in its EncodingJSON style).
func AppendString(dst []byte, s string) []byte {
	return jsonesc.AppendString(dst, s, jsonesc.EncodingJSON)
}

// AppendRaw appends stored JSON as encoding/json writes a json.RawMessage: validated, compacted,
// with <, >, &, U+2028 and U+2029 escaped. Empty is null.
func AppendRaw(dst []byte, raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return append(dst, "null"...), nil
	}
	if !json.Valid(raw) {
		return dst, ErrInvalidJSON
	}
	// One pass over valid JSON: white space outside strings is dropped (json.Compact), the
	// characters HTML and JavaScript give meaning to are escaped (inside strings only, the one
	// place valid JSON holds them).
	start, inString := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			dst = append(dst, raw[start:i]...)
			start = i + 1
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, raw[start:]...), nil
}

// MarshalJSON writes the message as AppendJSON does.
func (m Message) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil) }

// MarshalJSON writes the content as AppendJSON writes it in a message.
func (c Content) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON writes the string, or the truncation marker.
func (t Text) MarshalJSON() ([]byte, error) { return t.appendJSON(nil), nil }

// MarshalJSON writes the value, or the truncation marker (null for no value).
func (j JSON) MarshalJSON() ([]byte, error) { return j.appendJSON(nil) }

// AppendJSON appends the message: its time in FormatTime's fixed precision, its channel also as
// the reference's event_type (the type of the event that carried it; null when none did).
func (m *Message) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, m.ID, 10)
	dst = append(dst, `,"session":`...)
	dst = AppendString(dst, m.Session)
	dst = append(dst, `,"role":`...)
	dst = AppendString(dst, string(m.Role))
	dst = append(dst, `,"channel":`...)
	dst = AppendString(dst, m.Channel)
	dst = append(dst, `,"correlation":`...)
	dst = AppendString(dst, m.Correlation)
	dst = append(dst, `,"content":`...)
	dst, err := m.Content.appendJSON(dst)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `,"event_id":`...)
	if m.EventID == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, *m.EventID, 10)
	}
	dst = append(dst, `,"created_at":`...)
	dst = append(AppendTime(append(dst, '"'), m.CreatedAt), '"')
	dst = append(dst, `,"event_type":`...)
	if m.Channel == "" {
		dst = append(dst, "null"...)
	} else {
		dst = AppendString(dst, m.Channel)
	}
	return append(dst, '}'), nil
}

// AppendMessages appends a list of messages ([] for none).
func AppendMessages(dst []byte, ms []Message) ([]byte, error) {
	if ms == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	var err error
	for i := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = ms[i].AppendJSON(dst); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendJSON appends the content: the stored content as it is, or role, text and the rest; a
// tool message also carries its call id, tool name and result under the reference's names
// (tool_call_id, name, content), as its stored tool rows do. A cut result is, under those names,
// what the reference's truncation makes of it: the kept characters followed by "…", and
// truncated_to, their number (or the truncate the client gave, TruncatedTo).
func (c *Content) appendJSON(dst []byte) ([]byte, error) {
	if len(c.Stored) > 0 {
		return AppendRaw(dst, c.Stored)
	}
	dst = append(dst, `{"role":`...)
	dst = AppendString(dst, string(c.Role))
	dst = append(dst, `,"text":`...)
	dst = c.Text.appendJSON(dst)
	if c.Reasoning != nil {
		dst = append(dst, `,"reasoning":`...)
		dst = c.Reasoning.appendJSON(dst)
	}
	var err error
	t := c.Tool
	if t != nil {
		dst = append(dst, `,"tool":{`...)
		comma := false
		if t.Name != "" {
			dst = AppendString(append(dst, `"name":`...), t.Name)
			comma = true
		}
		if t.CallID != "" {
			if comma {
				dst = append(dst, ',')
			}
			dst = AppendString(append(dst, `"call_id":`...), t.CallID)
			comma = true
		}
		if t.Arguments != nil {
			if comma {
				dst = append(dst, ',')
			}
			if dst, err = t.Arguments.appendJSON(append(dst, `"arguments":`...)); err != nil {
				return dst, err
			}
			comma = true
		}
		if comma {
			dst = append(dst, ',')
		}
		dst = t.Result.appendJSON(append(dst, `"result":`...))
		if t.Outcome != "" {
			dst = AppendString(append(dst, `,"outcome":`...), string(t.Outcome))
		}
		dst = append(dst, '}')
	}
	if len(c.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i := range c.ToolCalls {
			call := &c.ToolCalls[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(append(dst, `{"call_id":`...), call.CallID)
			dst = AppendString(append(dst, `,"fn_name":`...), call.Name)
			if dst, err = call.Arguments.appendJSON(append(dst, `,"fn_arguments":`...)); err != nil {
				return dst, err
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if t == nil {
		return append(dst, '}'), nil
	}
	// A tool message also carries its call id, tool name and result under the reference's names.
	r := t.Result
	dst = AppendString(append(dst, `,"tool_call_id":`...), t.CallID)
	if t.Name != "" {
		dst = AppendString(append(dst, `,"name":`...), t.Name)
	}
	dst = append(dst, `,"content":`...)
	if !r.Truncated {
		dst = AppendString(dst, r.Value)
		return append(dst, '}'), nil
	}
	dst = AppendString(dst, r.Value+"…")
	if t.TruncatedTo != nil && len(t.TruncatedTo) == 0 {
		return append(dst, '}'), nil // an empty echo is omitted, as omitempty omits it
	}
	dst = append(dst, `,"truncated_to":`...)
	if t.TruncatedTo != nil {
		if dst, err = AppendRaw(dst, t.TruncatedTo); err != nil {
			return dst, err
		}
	} else {
		dst = strconv.AppendInt(dst, int64(utf8.RuneCountInString(r.Value)), 10)
	}
	return append(dst, '}'), nil
}

// appendJSON appends the string, or the truncation marker.
func (t *Text) appendJSON(dst []byte) []byte {
	if !t.Truncated {
		return AppendString(dst, t.Value)
	}
	return appendTruncated(dst, t.Chars, t.Value)
}

func appendTruncated(dst []byte, chars int64, preview string) []byte {
	dst = append(dst, `{"truncated":true,"chars":`...)
	dst = strconv.AppendInt(dst, chars, 10)
	dst = append(dst, `,"preview":`...)
	dst = AppendString(dst, preview)
	return append(dst, '}')
}

// appendJSON appends the value (a nil *JSON is null), or the truncation marker.
func (j *JSON) appendJSON(dst []byte) ([]byte, error) {
	switch {
	case j == nil:
		return append(dst, "null"...), nil
	case j.Truncated:
		return appendTruncated(dst, j.Chars, j.Preview), nil
	}
	return AppendRaw(dst, j.Raw)
}

// SizeHint is about how many bytes AppendMessages writes for ms, to size the buffer once.
func SizeHint(ms []Message) int {
	n := 2
	for i := range ms {
		m := &ms[i]
		n += 256 + len(m.Session) + len(m.Channel)*2 + len(m.Correlation) + len(m.Content.Stored) + len(m.Content.Text.Value)
		if r := m.Content.Reasoning; r != nil {
			n += len(r.Value)
		}
		if t := m.Content.Tool; t != nil {
			n += 2*len(t.Result.Value) + 64
			if t.Arguments != nil {
				n += len(t.Arguments.Raw) + len(t.Arguments.Preview)
			}
		}
		for _, c := range m.Content.ToolCalls {
			n += 64 + len(c.CallID) + len(c.Name)
			if c.Arguments != nil {
				n += len(c.Arguments.Raw) + len(c.Arguments.Preview)
			}
		}
	}
	return n
}
