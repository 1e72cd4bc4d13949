package reader

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeUnknown is what UnknownFields answers by definition: the object decoded, then Unknown.
func decodeUnknown(raw []byte, known ...string) map[string]json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return Unknown(obj, known...)
}

func TestUnknownFieldsIsTheDecodedAnswer(t *testing.T) {
	known := []string{"type", "uuid", "message", "cwd"}
	for _, raw := range []string{
		`{}`, ` { } `, `null`, `[]`, `"type"`, `12`, ``, `{`, `{"type"`, `{"type":}`, `{"type":1,}`,
		`{"type":"user","uuid":"u1","message":{"content":[{"type":"text","text":"a \"quoted\" } ] , word"}]},"cwd":"/x"}`,
		`{"type":"user","extra":1}`,
		`{"extra":{"type":"x"},"type":"y"}`,
		`{"type":"a","type":"b"}`,
		`{"ty\u0070e":"escaped name","uuid":"u"}`,
		`{"type\\":"backslash"}`,
		`{"message":[1,2,{"a":[true,false,null]}],"cwd":-1.5e3}`,
		`{"message":"x"} trailing`,
		`{"message":"x"}{"other":1}`,
		`{"message":"unterminated}`,
		`{"message":{"cwd":"nested names are not top-level"},"other":"\\"}`,
		"{\n\t\"type\" :\r\n \"spaced\" ,\n \"cwd\":\"\" }",
		`{"type":"x","Type":"case differs"}`,
		"{\"type\":\"x\",\"caf\xe9\":1}",
		`{"message":{"a":"]}"},"uuid":"u","more":[{"x":"}"}]}`,
	} {
		got, want := UnknownFields([]byte(raw), known...), decodeUnknown([]byte(raw), known...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("UnknownFields(%q) = %v, want %v", raw, got, want)
		}
	}
}

// A line holding only known fields is not copied into a map: parsers ask this of every line,
// and decoding it whole was a seventh of the Claude Code reader's time (docs/BENCHMARKS.md).
func TestUnknownFieldsOfKnownFieldsAllocatesNothing(t *testing.T) {
	raw := []byte(`{"type":"assistant","uuid":"u1","cwd":"/home/dev","message":{"role":"assistant","content":[{"type":"text","text":"` +
		`a long reply with \"quotes\", brackets ] } and a backslash \\ in it"},{"type":"tool_use","input":{"command":"go test ./..."}}]}}`)
	known := []string{"type", "uuid", "message", "cwd"}
	if got := UnknownFields(raw, known...); got != nil {
		t.Fatalf("UnknownFields = %v, want nil", got)
	}
	if n := testing.AllocsPerRun(20, func() { UnknownFields(raw, known...) }); n != 0 {
		t.Fatalf("UnknownFields of a line of known fields allocates %v times, want 0", n)
	}
}

func FuzzUnknownFields(f *testing.F) {
	for _, s := range []string{`{"type":"x","uuid":"u"}`, `{"a":[{"b":"}"}],"type":1}`, `{"ty\"pe":2}`, ` null `, `{"cwd":"\\"}`} {
		f.Add(s)
	}
	known := []string{"type", "uuid", "cwd"}
	f.Fuzz(func(t *testing.T, raw string) {
		got, want := UnknownFields([]byte(raw), known...), decodeUnknown([]byte(raw), known...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("UnknownFields(%q) = %v, want %v", raw, got, want)
		}
	})
}
