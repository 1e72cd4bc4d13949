package reader

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// OpenReadOnly opens a source file for reading only: importers never write to a source.
func OpenReadOnly(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return f, nil
}

// ChatID builds a stable chat id "<format>:<id>" from a source's own session id. An id that would
// exceed annals.MaxIDBytes, or that holds control characters, is replaced by a hash of itself, so
// the same source always gets the same chat.
func ChatID(format, id string) string {
	return format + ":" + SafeID(id, annals.MaxIDBytes-len(format)-1)
}

// EntryID makes an entry id from a source message id and an optional part index (part < 0
// means none). It is stable across re-imports because both come from the source.
func EntryID(msgID string, part int) string {
	if part < 0 {
		return SafeID(msgID, annals.MaxIDBytes)
	}
	suffix := fmt.Sprintf("#%d", part)
	return SafeID(msgID, annals.MaxIDBytes-len(suffix)) + suffix
}

// SafeID returns id when it is a valid annals id of at most max bytes, else "h-" plus a hex
// sha256 prefix of it. An empty id stays empty.
func SafeID(id string, max int) string {
	if id == "" {
		return ""
	}
	ok := len(id) <= max && utf8.ValidString(id)
	if ok {
		for _, r := range id {
			if unicode.IsControl(r) {
				ok = false
				break
			}
		}
	}
	if ok {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	h := "h-" + hex.EncodeToString(sum[:])
	if len(h) > max && max > 2 {
		h = h[:max]
	}
	return h
}

// ValidText returns s with invalid UTF-8 replaced, so a stray byte in a source never makes a
// whole entry invalid.
func ValidText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// ParseTime reads the timestamp forms agent tools write: RFC 3339 (with or without fraction),
// and Unix seconds or milliseconds as a JSON number. The zero time means unknown.
func ParseTime(v any) time.Time {
	t := parseAnyTime(v)
	if t.IsZero() || t.Before(annals.MinTime) || !t.Before(annals.MaxTime) {
		// A time annals cannot store (year 0000, a counter read as seconds) is no time: the
		// record is kept with the time its neighbours give it, never refused for its clock.
		return time.Time{}
	}
	return t
}

func parseAnyTime(v any) time.Time {
	switch t := v.(type) {
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05"} {
			if ts, err := time.Parse(layout, t); err == nil {
				return ts.UTC()
			}
		}
	case float64:
		return unixTime(t)
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return unixTime(f)
		}
	}
	return time.Time{}
}

func unixTime(f float64) time.Time {
	switch {
	case f <= 0:
		return time.Time{}
	case f > 1e17: // nanoseconds
		return time.Unix(0, int64(f)).UTC()
	case f > 1e14: // microseconds
		return time.UnixMicro(int64(f)).UTC()
	case f > 1e11: // milliseconds
		return time.UnixMilli(int64(f)).UTC()
	default:
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
	}
}

// Metadata marshals m (dropping empty values) into an entry metadata object, or nil when
// nothing is left. A value that cannot be marshalled is dropped rather than failing the entry.
func Metadata(m map[string]any) json.RawMessage {
	clean := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			continue
		case string:
			if x == "" {
				continue
			}
		case json.RawMessage:
			if len(x) == 0 {
				continue
			}
		case map[string]any:
			if len(x) == 0 {
				continue
			}
		case []any:
			if len(x) == 0 {
				continue
			}
		}
		clean[k] = v
	}
	if len(clean) == 0 {
		return nil
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return nil
	}
	return validJSONText(b)
}

// validJSONText replaces invalid UTF-8 in marshalled JSON: encoding/json copies the bytes of
// a json.RawMessage as they are, and annals refuses metadata that is not valid UTF-8. Invalid
// bytes can only sit inside JSON strings, so the result stays valid JSON.
func validJSONText(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// SanitizeEntry makes an entry's JSON fields valid UTF-8, whatever a parser put in them.
func SanitizeEntry(e *annals.Entry) {
	if len(e.Metadata) > 0 {
		e.Metadata = validJSONText(e.Metadata)
	}
	if e.Tool != nil && len(e.Tool.Arguments) > 0 {
		e.Tool.Arguments = validJSONText(e.Tool.Arguments)
	}
}

// Unknown returns the fields of obj whose names are not in known, for entry metadata: what the
// source carried that annals has no field for is kept, not lost.
func Unknown(obj map[string]json.RawMessage, known ...string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
outer:
	for k, v := range obj {
		for _, kn := range known {
			if k == kn {
				continue outer
			}
		}
		if out == nil {
			out = make(map[string]json.RawMessage)
		}
		out[k] = v
	}
	return out
}

// Truncated bounds s to max bytes on a rune boundary, marking the cut, so one huge tool output
// never makes its entry exceed annals.MaxEntryBytes.
func Truncated(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = "\n[... truncated by annals import ...]"
	cut := max - len(mark)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// ShortHash is a hex sha256 prefix, for ids derived from content when a source has none.
func ShortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ShortHashBytes is ShortHash(string(b)) without copying b: a reader naming each line by its
// hash (Codex) copied every line twice for it (to a string, and back to bytes for the hash).
func ShortHashBytes(b []byte) string {
	h := sha256.New()
	h.Write(b)
	h.Write([]byte{0})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// JSONString encodes s as a JSON string value.
func JSONString(s string) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		return json.RawMessage(`""`)
	}
	return b
}

// EmitEntries appends entries to a chat in appends of at most annals.MaxBatchEntries, the
// largest one capture op takes.
func EmitEntries(chatID string, entries []*annals.Entry, out Output) error {
	for len(entries) > 0 {
		n := min(len(entries), annals.MaxBatchEntries)
		if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: entries[:n]}}); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}
