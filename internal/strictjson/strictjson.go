// Package strictjson checks a JSON body before it is decoded into a Go value, for what
// encoding/json lets through: invalid UTF-8 (and lone UTF-16 surrogate escapes), which it turns
// into U+FFFD; a key given twice, of which it keeps the last; and a field name in another case,
// which it matches case-insensitively. A request that reaches the decoder after Check holds
// exactly the names and the text its sender wrote.
package strictjson

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// MaxDepth is how deeply a request body may nest arrays and objects: every JSON decoder of a
// request (HTTP routes, the op envelope, /query, MCP messages) refuses more, naming the bound.
// Real requests nest a dozen levels (a capture op's tool arguments included); the bound keeps
// hostile input from costing time, memory or stack in proportion to its depth.
const MaxDepth = 128

// checkEvery is how many tokens Check walks between looks at its context's deadline.
const checkEvery = 1024

// Check validates body for decoding into v (a pointer, or a reflect.Type's zero value). Errors
// are invalid and name the place: the byte offset of bad text or of nesting deeper than
// MaxDepth, the path of a repeated key or of a field name in the wrong case. Syntax errors are
// left to the decoder, which reports them. The check is linear in the size of body.
func Check(body []byte, v any) error {
	return CheckContext(context.Background(), body, v)
}

// CheckContext is Check that stops, with an unavailable error, once ctx is done: a request's
// check ends at the request's deadline.
func CheckContext(ctx context.Context, body []byte, v any) error {
	if err := CheckDepth(body, MaxDepth); err != nil {
		return err
	}
	if !utf8.Valid(body) {
		return annals.Errorf(annals.EINVALID, "the request body is not valid UTF-8 (first bad byte at offset %d); send text as UTF-8", firstInvalid(body))
	}
	if off := loneSurrogate(body); off >= 0 {
		return annals.Errorf(annals.EINVALID, "the request body holds a lone UTF-16 surrogate escape at offset %d, which is not a character", off)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	w := walker{ctx: ctx, dec: dec}
	err := w.walk(reflect.TypeOf(v))
	if ae, ok := err.(*annals.Error); ok {
		return ae
	}
	return nil // a syntax error: the decoder reports it with its own position
}

// Stopped is the error of work cut off because ctx ended (the request's deadline, or its client
// gone).
func Stopped(ctx context.Context) error {
	return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was stopped at its deadline (the server's --request-timeout) or cancelled before it was done", Err: context.Cause(ctx)}
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// loneSurrogate returns the offset of a \uD800–\uDFFF escape inside a string that is not half
// of a high-low pair, or -1.
func loneSurrogate(b []byte) int {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b):
			if b[i+1] != 'u' {
				i++ // an escaped character, perhaps a quote or a backslash
				continue
			}
			u, ok := hex4(b, i+2)
			switch {
			case !ok:
			case u >= 0xD800 && u <= 0xDBFF:
				lo, ok := uint32(0), false
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					lo, ok = hex4(b, i+8)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return i
				}
				i += 11
			case u >= 0xDC00 && u <= 0xDFFF:
				return i
			default:
				i += 5
			}
		}
	}
	return -1
}

func hex4(b []byte, at int) (uint32, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var v uint32
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// walker walks one body. The path of the value it is in is kept as a stack of segments (a key
// or an index each) and only joined into text for an error, so a step costs the same at any depth.
type walker struct {
	ctx    context.Context
	dec    *json.Decoder
	path   []segment
	tokens int
	fields map[reflect.Type]map[string]reflect.Type // structFields, once per type
}

// segment is one step of a path: an object key, or an array index when key is nil.
type segment struct {
	key   *string
	index int
}

// at is the path of the current value as text (a.b[2].c), with key appended when not nil.
func (w *walker) at(key *string) string {
	var b strings.Builder
	for _, s := range append(w.path, segment{key: key, index: -1}) {
		switch {
		case s.key != nil:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(*s.key)
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		}
	}
	return b.String()
}

func (w *walker) token() (json.Token, error) {
	w.tokens++
	if w.tokens%checkEvery == 0 && w.ctx.Err() != nil {
		return nil, Stopped(w.ctx)
	}
	return w.dec.Token()
}

// walk reads one value, checking its object keys against t (nil: any value, keys unchecked
// except for repeats).
func (w *walker) walk(t reflect.Type) error {
	tok, err := w.token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	t = concrete(t)
	switch d {
	case '{':
		if err := w.object(t); err != nil {
			return err
		}
	case '[':
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		w.path = append(w.path, segment{})
		for i := 0; w.dec.More(); i++ {
			w.path[len(w.path)-1].index = i
			if err := w.walk(et); err != nil {
				return err
			}
		}
		w.path = w.path[:len(w.path)-1]
	}
	_, err = w.token() // the closing delimiter
	return err
}

// object walks the members of an object of type t, after its '{'.
func (w *walker) object(t reflect.Type) error {
	fields, ok := w.fields[t]
	if !ok {
		fields = structFields(t)
		if w.fields == nil {
			w.fields = map[reflect.Type]map[string]reflect.Type{}
		}
		w.fields[t] = fields
	}
	seen := map[string]bool{}
	for w.dec.More() {
		kt, err := w.token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		if seen[key] {
			return annals.Errorf(annals.EINVALID, "field %q is given twice (give each field once)", w.at(&key))
		}
		seen[key] = true
		var ft reflect.Type
		switch {
		case fields != nil:
			var known bool
			if ft, known = fields[key]; !known {
				for name := range fields {
					if strings.EqualFold(name, key) {
						return annals.Errorf(annals.EINVALID, "unknown field %q (field names are case-sensitive: did you mean %q?)", w.at(&key), w.at(&name))
					}
				}
			}
		case t != nil && t.Kind() == reflect.Map:
			ft = t.Elem()
		}
		w.path = append(w.path, segment{key: &key, index: -1})
		if err := w.walk(ft); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	return nil
}

// concrete strips pointers. A type that decodes itself (json.Unmarshaler) is opaque (nil),
// unless it is a struct whose fields carry JSON names: such a type decodes into the same names
// (a wrapper that accepts "5" for 5, say), so its keys are checked against them all the same.
func concrete(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		if t.Implements(unmarshaler) && !namedStruct(t.Elem()) {
			return nil
		}
		t = t.Elem()
	}
	if t != nil && reflect.PointerTo(t).Implements(unmarshaler) && !namedStruct(t) {
		return nil
	}
	return t
}

// namedStruct reports whether t is a struct with at least one field named by a json tag.
func namedStruct(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			return true
		}
	}
	return false
}

// structFields maps the JSON names of a struct's fields (embedded structs flattened) to their
// types; nil when t is not a struct.
func structFields(t reflect.Type) map[string]reflect.Type {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range structFields(ft) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
