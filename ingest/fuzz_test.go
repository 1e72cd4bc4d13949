package ingest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

// FuzzDecoder checks that no input makes the decoder panic, and that it only ever returns
// validated ops or invalid-line errors that name their line.
func FuzzDecoder(f *testing.F) {
	if data, err := os.ReadFile(exampleFile); err == nil {
		f.Add(string(data))
		for _, line := range strings.Split(string(data), "\n") {
			f.Add(line)
		}
	}
	for _, s := range []string{
		"",
		"\n\n",
		"{}",
		"[]",
		"null",
		`{"type":"chat","id":"c1","id":"c2"}`,
		`{"type":"entry","chat_id":"c1","id":"e1","kind":"tool","tool":{"name":"x","arguments":{"a":[1,{"b":null}]},"outcome":"failed"}}`,
		`{"type":"entry","chat_id":"c1","id":"e1","kind":"user","metadata":{"a":"\ud800"}}`,
		`{"type":"truncate","chat_id":"c1","seq":-1}`,
		`{"type":"truncate","chat_id":"c1","seq":1e3}`,
		`{"type":"run","chat_id":"c1","id":"r1","status":"completed","cost_usd":1e400}`,
		`{"type":"chat","id":"c1","attributes":{"":"x"}}`,
		"{\"type\":\"chat\",\"id\":\"c\xff\"}",
		"\xEF\xBB\xBF{\"type\":\"chat\",\"id\":\"c1\"}\r\n",
		`{"type":"chat","id":"c1"} x`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		dec := ingest.NewDecoder(strings.NewReader(input))
		for {
			l, err := dec.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if code := annals.ErrorCode(err); code != annals.EINVALID {
					t.Fatalf("got code %q for %v, want invalid", code, err)
				}
				var le *ingest.LineError
				if !errors.As(err, &le) || le.Line != dec.LineNumber() {
					t.Fatalf("got %v, want a LineError for line %d", err, dec.LineNumber())
				}
				if prefix := fmt.Sprintf("line %d: ", le.Line); !strings.HasPrefix(annals.ErrorMessage(err), prefix) {
					t.Fatalf("got message %q, want prefix %q", annals.ErrorMessage(err), prefix)
				}
				continue
			}
			if err := l.Op.Validate(); err != nil {
				t.Fatalf("line %d decoded to an op that does not validate: %v", l.Number, err)
			}
			if l.Number != dec.LineNumber() {
				t.Fatalf("got line number %d, decoder is at %d", l.Number, dec.LineNumber())
			}
		}
	})
}

// FuzzDecoderAgreesWithEncodingJSON checks the decoder's own JSON splitting against
// encoding/json: whatever one line decodes to must carry the values encoding/json reads from it.
func FuzzDecoderAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"type":"chat","id":"c\"1}","title":"a\\\"}b","tags":[ "x" , "y\u0041" ],"attributes":{"k\"":"v]"}}`,
		`{ "type" : "entry" , "chat_id":"c1","id":"e\n1","kind":"tool","tool":{"name":"n","arguments":{"a":"}","b":[1,{"c":"]"}]}},"metadata":{"x":[]}}`,
		`{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"\u00e9\ud83d\ude00","input_tokens":-0}`,
		`{"type":"run","chat_id":"c1","id":"r1","status":"running","cost_usd":1.5e-3}`,
		`{"type":"truncate","chat_id":"c1","seq":7}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		l, err := ingest.NewDecoder(strings.NewReader(line)).Next()
		if err != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the decoder accepted a line encoding/json refuses: %v", err)
		}
		check := func(field string, got any) {
			t.Helper()
			want := m[field]
			if raw, ok := got.(json.RawMessage); ok {
				if len(raw) == 0 {
					got = nil
				} else if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatalf("%s: kept invalid JSON %q", field, raw)
				}
			}
			if s, ok := got.(string); ok && s == "" && want == nil {
				return // an absent or null string field decodes to ""
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %#v, encoding/json read %#v", field, got, want)
			}
		}
		switch op := l.Op; {
		case op.Chat != nil:
			check("id", op.Chat.ID)
			check("title", op.Chat.Title)
			check("description", op.Chat.Description)
		case op.Append != nil:
			e := op.Append.Entries[0]
			check("chat_id", e.ChatID)
			check("id", e.ID)
			check("text", e.Text)
			check("reasoning", e.Reasoning)
			check("metadata", e.Metadata)
			if e.Tool != nil {
				tm := m["tool"].(map[string]any)
				m = tm
				check("name", e.Tool.Name)
				check("result", e.Tool.Result)
				check("arguments", e.Tool.Arguments)
			}
		case op.Run != nil:
			check("id", op.Run.ID)
			check("chat_id", op.Run.ChatID)
		case op.Truncate != nil:
			check("chat_id", op.Truncate.ChatID)
			check("entry_id", op.Truncate.Point.EntryID)
			check("source_id", op.Truncate.Point.SourceID)
		}
	})
}
