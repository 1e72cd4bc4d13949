package queryview

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/view"
)

// The answers that write their own JSON (AppendJSON) also carry encoding/json's struct tags, which
// the Go client decodes with and json.Marshal writes with: two encoders of one shape. The tests
// below fill every field of every such answer by reflection, hostile strings in every string, and
// hold the two to the same bytes, and check that every field reaches the bytes, so a field added
// to the struct and not to AppendJSON (or written by one and not the other) fails here by name.
// A message's own wire form has one encoder only (view.Message.AppendJSON, which its MarshalJSON
// calls), so the same walk checks it reaches every field of a message.

// fillString is the hostile string every string field gets: HTML characters, JavaScript's line
// ends, quotes, control characters, multi-byte and astral characters and invalid UTF-8.
const fillString = "h<&>\u2028\u2029\"\\\n\b\x01é漢🦅\xff"

// fillRaw is the JSON every json.RawMessage field gets: white space to compact, escapes to write.
const fillRaw = "{ \"k\" : \"<&>\u2028é\" , \"n\" : [1, 2.50, null] }"

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// fill sets every field under v: strings to fillString, numbers to n, bools to b, raw JSON to
// fillRaw, times to one with (b) or without a sub-millisecond part, pointers to filled values and
// slices to two filled elements. A kind it does not know fails the test, so a new field of a new
// type is filled once the test is taught it.
func fill(t *testing.T, v reflect.Value, path string, b bool, n int64) {
	t.Helper()
	switch {
	case v.Type() == rawMessageType:
		v.SetBytes([]byte(fillRaw))
		return
	case v.Type() == reflect.TypeFor[time.Time]():
		ns := 123_000_000
		if b {
			ns = 123_456_789
		}
		v.Set(reflect.ValueOf(time.Date(2026, 6, 12, 10, 2, 19, ns, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fillString)
	case reflect.Bool:
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		v.SetInt(n)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path, b, n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(t, v.Index(i), path+"[]", b, n+int64(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i), path+"."+v.Type().Field(i).Name, b, n)
		}
	default:
		t.Fatalf("%s: fill does not know %s; teach it", path, v.Type())
	}
}

// leaf is one field that holds a value (no struct, pointer or slice), and how to change it.
type leaf struct {
	path string
	v    reflect.Value
}

// leaves lists the fields under v that hold values, each slice's first element only.
func leaves(v reflect.Value, path string) []leaf {
	if v.Type() == rawMessageType || v.Type() == reflect.TypeFor[time.Time]() {
		return []leaf{{path, v}}
	}
	switch v.Kind() {
	case reflect.Pointer:
		return leaves(v.Elem(), path)
	case reflect.Slice:
		return leaves(v.Index(0), path+"[0]")
	case reflect.Struct:
		var out []leaf
		for i := range v.NumField() {
			out = append(out, leaves(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
		return out
	}
	return []leaf{{path, v}}
}

// change changes a leaf's value and returns the function that puts it back.
func change(l leaf) (undo func()) {
	old := reflect.New(l.v.Type()).Elem()
	old.Set(l.v)
	switch {
	case l.v.Type() == rawMessageType:
		l.v.SetBytes([]byte(`[7]`))
	case l.v.Type() == reflect.TypeFor[time.Time]():
		l.v.Set(reflect.ValueOf(l.v.Interface().(time.Time).Add(time.Millisecond)))
	case l.v.Kind() == reflect.String:
		l.v.SetString(l.v.String() + "x")
	case l.v.Kind() == reflect.Bool:
		l.v.SetBool(!l.v.Bool())
	default:
		l.v.SetInt(l.v.Int() + 1000)
	}
	return func() { l.v.Set(old) }
}

type appendAnswer interface {
	AppendJSON([]byte) ([]byte, error)
}

// eventAnswer lets the walk reach Event's own encoder.
type eventAnswer struct{ Event }

func (e *eventAnswer) AppendJSON(dst []byte) ([]byte, error) { return e.appendJSON(dst) }

// notEncoded are the fields no answer writes, each with why.
var notEncoded = map[string]string{
	// The entry's metadata is the view's own reading (the lanius overlay), never an answer's.
	".Metadata": "read, never written",
}

// filledAnswers are the answers that write their own JSON, every field filled with bools b.
func filledAnswers(t *testing.T, b bool) map[string]appendAnswer {
	out := map[string]appendAnswer{
		"TranscriptAnswer":   &TranscriptAnswer{},
		"SearchAnswer":       &SearchAnswer{},
		"ConversationAnswer": &ConversationAnswer{},
		"Event":              &eventAnswer{},
	}
	for name, a := range out {
		fill(t, reflect.ValueOf(a).Elem(), name, b, 7)
	}
	// A stored content is written instead of every other content field: it is left empty, and
	// setting it is one of the changes the walk makes.
	for _, ms := range [][]view.Message{out["TranscriptAnswer"].(*TranscriptAnswer).Messages,
		out["SearchAnswer"].(*SearchAnswer).Messages, out["ConversationAnswer"].(*ConversationAnswer).Messages} {
		for i := range ms {
			ms[i].Content.Stored = nil
		}
	}
	return out
}

// TestAppendJSONEveryField holds each answer's AppendJSON to json.Marshal's bytes with every field
// set (bools all true, then all false: a truncation marker and the value it replaces), and
// checks that changing any one field changes the bytes in one of the two.
func TestAppendJSONEveryField(t *testing.T) {
	marshal := func(a appendAnswer) ([]byte, error) {
		if e, ok := a.(*eventAnswer); ok {
			return json.Marshal(e.Event)
		}
		return json.Marshal(a)
	}
	matters := map[string]bool{}
	for _, b := range []bool{true, false} {
		for name, a := range filledAnswers(t, b) {
			want, err := marshal(a)
			if err != nil {
				t.Fatalf("%s: json.Marshal: %v", name, err)
			}
			got, err := a.AppendJSON(nil)
			if err != nil {
				t.Fatalf("%s: AppendJSON: %v", name, err)
			}
			if !bytes.Equal(got, want) {
				j := 0
				for j < len(got) && j < len(want) && got[j] == want[j] {
					j++
				}
				t.Errorf("%s (bools %v): AppendJSON differs from json.Marshal at byte %d:\n got  %.160q\n want %.160q", name, b, j, got[max(j-40, 0):], want[max(j-40, 0):])
			}
			for _, l := range leaves(reflect.ValueOf(a).Elem(), name) {
				undo := change(l)
				after, err := a.AppendJSON(nil)
				undo()
				if err != nil {
					t.Fatalf("%s changed: AppendJSON: %v", l.path, err)
				}
				matters[l.path] = matters[l.path] || !bytes.Equal(after, got)
			}
		}
	}
	for path, ok := range matters {
		_, skip := notEncoded[path[strings.LastIndex(path, "."):]]
		switch {
		case !ok && !skip:
			t.Errorf("%s never reaches AppendJSON's bytes: write it, or list it in notEncoded with why", path)
		case ok && skip:
			t.Errorf("%s is listed as not encoded, but changes the bytes", path)
		}
	}
	if len(matters) < 40 {
		t.Fatalf("the walk reached only %d fields", len(matters))
	}
}

// TestMessageMarshalIsAppendJSON: a message has one encoder; json.Marshal of it (and of its
// content, texts and JSON values) writes AppendJSON's bytes.
func TestMessageMarshalIsAppendJSON(t *testing.T) {
	for _, b := range []bool{true, false} {
		var m view.Message
		fill(t, reflect.ValueOf(&m).Elem(), "Message", b, 3)
		m.Content.Stored = nil
		want, err := m.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := json.Marshal(m); err != nil || !bytes.Equal(got, want) {
			t.Errorf("json.Marshal(message) = %s, %v; want %s", got, err, want)
		}
		var back struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if got, err := json.Marshal(m.Content); err != nil || !bytes.Equal(got, back.Content) {
			t.Errorf("json.Marshal(content) = %s, %v; want %s", got, err, back.Content)
		}
	}
}
