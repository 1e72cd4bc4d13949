package reader

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// JSONObject is a decoded JSON object whose values are kept raw, so a parser decodes only the
// fields it maps and hands the rest to entry metadata untouched.
type JSONObject map[string]json.RawMessage

// DecodeObject decodes b as a JSON object. A JSON null or a non-object is an error.
func DecodeObject(b []byte) (JSONObject, error) {
	var o JSONObject
	// json.Unmarshal, not a Decoder: text after the object makes the record invalid rather
	// than silently ignored.
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	if o == nil {
		return nil, errNotObject
	}
	return o, nil
}

// ValidJSON returns raw with invalid UTF-8 inside its strings replaced by U+FFFD (a source may
// hold any bytes; a stored entry may not), or nil when raw is not JSON at all.
func ValidJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || utf8.Valid(raw) {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// SafeMeta is Metadata with the result's strings made valid UTF-8: metadata carries raw values
// of the source, and those may hold invalid bytes.
func SafeMeta(m map[string]any) json.RawMessage { return ValidJSON(Metadata(m)) }

// errNotObject reports a JSON value that is valid but not an object (null, an array, ...).
var errNotObject = errors.New("not a JSON object")

// Str returns the string at key, "" when absent, null or not a string.
func (o JSONObject) Str(key string) string {
	raw, ok := o[key]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Num returns the number at key, 0 when absent or not a number.
func (o JSONObject) Num(key string) float64 {
	raw, ok := o[key]
	if !ok {
		return 0
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0
	}
	return f
}

// IsNum reports whether key holds a JSON number.
func (o JSONObject) IsNum(key string) bool {
	raw, ok := o[key]
	if !ok {
		return false
	}
	var f float64
	return json.Unmarshal(raw, &f) == nil
}

// Boolean returns the boolean at key, false when absent or not a boolean.
func (o JSONObject) Boolean(key string) bool {
	raw, ok := o[key]
	if !ok {
		return false
	}
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

// Obj returns the object at key, nil when absent or not an object.
func (o JSONObject) Obj(key string) JSONObject {
	raw, ok := o[key]
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	sub, err := DecodeObject(raw)
	if err != nil {
		return nil
	}
	return sub
}

// Arr returns the elements of the array at key, nil when absent or not an array.
func (o JSONObject) Arr(key string) []json.RawMessage {
	raw, ok := o[key]
	if !ok || len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var out []json.RawMessage
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// Raw returns the raw value at key, nil when absent or null.
func (o JSONObject) Raw(key string) json.RawMessage {
	raw, ok := o[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	return raw
}

// TextOf returns a raw JSON value as text: a string as itself, anything else as its JSON (a
// tool result may be a string, an object or an array of content blocks, and none of it may be
// lost).
func TextOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// isOpaqueKey reports whether a field name carries encrypted or signed reasoning (or a similar
// opaque provider blob). Such values are never rendered: they are dropped from metadata, with a
// flag saying something was dropped. Names are compared lowercased.
func isOpaqueKey(k string) bool {
	switch strings.ToLower(k) {
	case "encrypted_content", "encryptedcontent", "reasoningencryptedcontent", "reasoning_encrypted_content",
		"reasoningopaque", "reasoning_opaque", "signature", "thoughtsignature", "thought_signature", "redacted_data":
		return true
	}
	return false
}

// ScrubOpaque returns raw with every opaque-blob field removed at any depth, and whether one was
// removed. A value that is not valid JSON is returned unchanged.
func ScrubOpaque(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return raw, false
	}
	// Cheap test first: most values hold none of the keys, and every key holds one of these.
	lower := bytes.ToLower(raw)
	if !bytes.Contains(lower, []byte("encrypted")) && !bytes.Contains(lower, []byte("signature")) &&
		!bytes.Contains(lower, []byte("opaque")) && !bytes.Contains(lower, []byte("redacted_data")) {
		return raw, false
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return raw, false
	}
	dropped := false
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				if isOpaqueKey(k) {
					if s, ok := val.(string); ok && s == "" {
						continue // an empty blob reveals nothing; keep the shape
					}
					if val == nil {
						continue
					}
					delete(t, k)
					dropped = true
					continue
				}
				t[k] = walk(val)
			}
			return t
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
			return t
		}
		return x
	}
	v = walk(v)
	if !dropped {
		return raw, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw, false
	}
	return b, true
}

// Extras collects the fields of o not named in known, with opaque reasoning blobs removed, as a
// metadata value: an untyped nil when nothing is left, so Metadata drops it.
func Extras(o JSONObject, known ...string) any {
	if m := ExtraMap(o, known...); m != nil {
		return m
	}
	return nil
}

// ExtraMap is extras as a map, nil when nothing is left.
func ExtraMap(o JSONObject, known ...string) map[string]json.RawMessage {
	u := Unknown(o, known...)
	for k, v := range u {
		if isOpaqueKey(k) {
			delete(u, k)
			continue
		}
		if s, dropped := ScrubOpaque(v); dropped {
			u[k] = s
		}
	}
	if len(u) == 0 {
		return nil
	}
	return u
}

// CleanChat fits a chat built from source data into annals's limits, so that one odd session
// (a 5 KB working directory, a title with a stray byte) is imported rather than refused:
// attribute values, title, description and summary are made valid UTF-8 and cut to their limit
// with a marker, empty attributes are dropped, and tags that could never be valid are skipped.
func CleanChat(c *annals.Chat) *annals.Chat {
	attrs := annals.Attributes{}
	for k, v := range c.Attributes {
		if v == "" || k == "" || len(k) > annals.MaxAttrKeyBytes || strings.ContainsFunc(k, unicode.IsControl) || !utf8.ValidString(k) {
			continue
		}
		attrs[k] = Truncated(ValidText(v), annals.MaxAttrValueBytes)
	}
	c.Attributes = attrs
	c.Title = Truncated(ValidText(c.Title), annals.MaxTitleBytes)
	c.Description = Truncated(ValidText(c.Description), annals.MaxDescriptionBytes)
	c.Summary = Truncated(ValidText(c.Summary), annals.MaxSummaryBytes)
	var tags []string
	for _, t := range c.Tags {
		if annals.ValidateTags([]string{t}) == nil && len(tags) < annals.MaxTags {
			tags = append(tags, t)
		}
	}
	c.Tags = tags
	return c
}
