package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// object is one JSON object of a line, its members kept raw so that each field is decoded on its
// own: that is what lets every error name the exact field, and what makes field names
// case-sensitive (encoding/json alone would accept "ID" for "id").
type object struct {
	name    string // the object's path in messages: "entry", "entry.tool"
	keys    []string
	members map[string]json.RawMessage
	dup     string // the first key given twice
}

// parseLine parses one line as a JSON object. Checking the whole line with json.Valid first
// lets the splitter below assume well-formed JSON, which keeps the common path to one scan and
// no allocation per member; the slower diagnosis runs only for a malformed line.
func parseLine(raw []byte) (*object, error) {
	if !json.Valid(raw) {
		return nil, syntaxError(raw)
	}
	return parseObject("", raw)
}

// syntaxError explains why raw is not valid JSON.
func syntaxError(raw []byte) error {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &annals.Error{Code: annals.EINVALID, Message: "malformed JSON", Err: err}
	}
	msg := fmt.Sprintf("malformed JSON at column %d: %s", se.Offset, se.Error())
	if strings.Contains(se.Error(), "after top-level value") {
		msg += " (one record per line)"
	}
	return &annals.Error{Code: annals.EINVALID, Message: msg, Err: err}
}

// parseObject splits raw, a valid JSON value, into the members of an object, and refuses any
// other value. Members are sub-slices of raw: decoders copy what they keep.
func parseObject(name string, raw []byte) (*object, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		if name == "" {
			return nil, annals.Errorf(annals.EINVALID, "want a JSON object, got %s", describe(raw))
		}
		return nil, annals.Errorf(annals.EINVALID, "%s: want an object, got %s", name, describe(raw))
	}
	obj := &object{name: name, members: make(map[string]json.RawMessage)}
	for i := 1; ; {
		i = skipSpace(raw, i)
		switch raw[i] {
		case '}':
			return obj, nil
		case ',':
			i++
			continue
		}
		kend := stringEnd(raw, i)
		key := unquote(raw[i:kend])
		i = skipSpace(raw, skipSpace(raw, kend)+1) // past the colon
		vend := valueEnd(raw, i)
		val := raw[i:vend]
		i = vend
		if _, dup := obj.members[key]; dup {
			// encoding/json would silently keep the last value; a producer that writes a key
			// twice has a bug worth hearing about. It is reported by only(), once the caller
			// has named the object.
			if obj.dup == "" {
				obj.dup = key
			}
			continue
		}
		obj.keys = append(obj.keys, key)
		obj.members[key] = val
	}
}

// The helpers below walk JSON that json.Valid has accepted, so they need no error handling.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default: // a number, true, false or null
		j := i
		for j < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[j])) {
			j++
		}
		return j
	}
}

// unquote decodes a JSON string literal, copying it.
func unquote(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b[1 : len(b)-1])
	}
	var s string
	_ = json.Unmarshal(b, &s) // valid by construction
	return s
}

// path names a member in messages: "entry.kind", or "type" at the top of a line.
func (o *object) path(key string) string {
	if o.name == "" {
		return key
	}
	return o.name + "." + key
}

// has reports whether key is present with a non-null value.
func (o *object) has(key string) bool {
	raw, ok := o.members[key]
	return ok && !isNull(raw)
}

// get returns a member's raw value, or nil when it is absent or null: optional fields may be
// written as null by producers that serialise empty values that way.
func (o *object) get(key string) json.RawMessage {
	raw := o.members[key]
	if isNull(raw) {
		return nil
	}
	return raw
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }

// only refuses a key given twice, and the first member (in input order) that is not in allowed.
func (o *object) only(allowed []string) error {
	if o.dup != "" {
		return annals.Errorf(annals.EINVALID, "%s: field appears more than once", o.path(o.dup))
	}
	for _, k := range o.keys {
		if !slices.Contains(allowed, k) {
			hint := ""
			if o.name == "entry" && k == "seq" {
				hint = "; seq is assigned by the store in file order"
			}
			for _, a := range allowed {
				if strings.EqualFold(a, k) {
					hint = fmt.Sprintf("; field names are case-sensitive: did you mean %q?", a)
				}
			}
			return annals.Errorf(annals.EINVALID, "%s: unknown field %.40q (want one of: %s)%s", o.name, k, strings.Join(allowed, ", "), hint)
		}
	}
	return nil
}

func (o *object) str(key string, dst *string) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	if raw[0] != '"' {
		return wantGot(o.path(key), "a string", raw)
	}
	*dst = unquote(raw)
	return nil
}

func (o *object) strs(key string, dst *[]string) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	if raw[0] != '[' {
		return wantGot(o.path(key), "an array of strings", raw)
	}
	out := []string{}
	for i := skipSpace(raw, 1); raw[i] != ']'; {
		end := valueEnd(raw, i)
		item := raw[i:end]
		if item[0] != '"' {
			return wantGot(fmt.Sprintf("%s[%d]", o.path(key), len(out)), "a string", item)
		}
		out = append(out, unquote(item))
		if i = skipSpace(raw, end); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	*dst = out
	return nil
}

func (o *object) strMap(key string, dst *map[string]string) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	obj, err := parseObject(o.path(key), raw)
	if err != nil {
		return err
	}
	out := make(map[string]string, len(obj.keys))
	for _, k := range obj.keys {
		item := obj.members[k]
		if item[0] != '"' {
			return wantGot(fmt.Sprintf("%s[%.40q]", o.path(key), k), "a string", item)
		}
		out[k] = unquote(item)
	}
	*dst = out
	return nil
}

func (o *object) int(key string, dst *int64) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return wantGot(o.path(key), "an integer", raw)
	}
	*dst = n
	return nil
}

func (o *object) float(key string, dst *float64) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if raw[0] == '"' || err != nil {
		return wantGot(o.path(key), "a finite number", raw)
	}
	*dst = f
	return nil
}

// time decodes an RFC 3339 timestamp; dst stays nil when the field is absent, so callers can
// tell a default from an explicit value.
func (o *object) time(key string, dst **time.Time) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	if raw[0] != '"' {
		return wantGot(o.path(key), "an RFC 3339 timestamp string", raw)
	}
	s := unquote(raw)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return &annals.Error{Code: annals.EINVALID, Err: err,
			Message: fmt.Sprintf("%s: want an RFC 3339 timestamp such as \"2025-01-31T09:30:00Z\", got %.40q", o.path(key), s)}
	}
	*dst = &t
	return nil
}

// object decodes a nested object whose members the caller decodes in turn.
func (o *object) object(key string, dst **object) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	obj, err := parseObject(o.path(key), raw)
	if err != nil {
		return err
	}
	*dst = obj
	return nil
}

// jsonObject keeps a free-form JSON object as it was written.
func (o *object) jsonObject(key string, dst *json.RawMessage) error {
	raw := o.get(key)
	if raw == nil {
		return nil
	}
	if raw[0] != '{' {
		return wantGot(o.path(key), "an object", raw)
	}
	*dst = bytes.Clone(raw) // raw points into the decoder's line buffer
	return nil
}

// anyJSON keeps any JSON value as it was written.
func (o *object) anyJSON(key string, dst *json.RawMessage) error {
	if raw := o.get(key); raw != nil {
		*dst = bytes.Clone(raw) // raw points into the decoder's line buffer
	}
	return nil
}

func wantGot(field, want string, raw json.RawMessage) error {
	return annals.Errorf(annals.EINVALID, "%s: want %s, got %s", field, want, describe(raw))
}

// describe names a JSON value's kind for messages, showing short scalars so the user can find
// them in the line.
func describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return fmt.Sprintf("the string %.40q", unquote(raw))
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if len(raw) > 40 {
		return "a number"
	}
	return "the number " + string(raw)
}
