package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

var clock = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func newDecoder(s string) *ingest.Decoder {
	return ingest.NewDecoderOptions(strings.NewReader(s), ingest.DecoderOptions{Now: func() time.Time { return clock }})
}

// decodeAll returns every line of s, failing the test on any error.
func decodeAll(t *testing.T, s string) []ingest.Line {
	t.Helper()
	dec := newDecoder(s)
	var lines []ingest.Line
	for {
		l, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return lines
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		lines = append(lines, l)
	}
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestDecoderDecodesEveryLineType(t *testing.T) {
	ended := ts("2025-01-02T03:05:00Z")
	tests := []struct {
		name string
		line string
		want annals.CaptureOp
	}{
		{
			name: "chat with every field",
			line: `{"type":"chat","id":"c1","tenant_id":"acme","user_id":"u1","agent_id":"a1","attributes":{"source":"claude-code","repository":"github.com/o/r"},"created_at":"2025-01-02T03:04:05.5Z","title":"Fix it","description":"A bug.","tags":["bug","go"]}`,
			want: annals.CaptureOp{Chat: &annals.Chat{
				ID: "c1", TenantID: "acme", UserID: "u1", AgentID: "a1",
				Attributes: annals.Attributes{"source": "claude-code", "repository": "github.com/o/r"},
				CreatedAt:  ts("2025-01-02T03:04:05.5Z"), Title: "Fix it", Description: "A bug.", Tags: []string{"bug", "go"},
			}},
		},
		{
			name: "chat defaults to the local tenant and the decoder's time",
			line: `{"type":"chat","id":"c1"}`,
			want: annals.CaptureOp{Chat: &annals.Chat{ID: "c1", TenantID: ingest.DefaultTenant, CreatedAt: clock}},
		},
		{
			name: "null optional fields are absent",
			line: `{"type":"chat","id":"c1","tenant_id":null,"title":null,"tags":null,"attributes":null,"created_at":null}`,
			want: annals.CaptureOp{Chat: &annals.Chat{ID: "c1", TenantID: ingest.DefaultTenant, CreatedAt: clock}},
		},
		{
			name: "text entry with every field",
			line: `{"type":"entry","chat_id":"c1","id":"e1","kind":"assistant","run_id":"r1","source_ids":["m1","m2"],"channel":"out/agent/main","correlation_id":"k1","time":"2025-01-02T03:04:06Z","text":"hello","reasoning":"think","input_tokens":10,"output_tokens":3,"metadata":{"model":"m","n":[1,2]}}`,
			want: annals.CaptureOp{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{{
				ChatID: "c1", ID: "e1", Kind: annals.KindAssistant, RunID: "r1", SourceIDs: []string{"m1", "m2"},
				Channel: "out/agent/main", CorrelationID: "k1", Time: ts("2025-01-02T03:04:06Z"),
				Text: "hello", Reasoning: "think", InputTokens: 10, OutputTokens: 3,
				Metadata: json.RawMessage(`{"model":"m","n":[1,2]}`),
			}}}},
		},
		{
			name: "tool entry keeps its arguments as written",
			line: `{"type":"entry","chat_id":"c1","id":"e2","kind":"tool","tool":{"name":"Bash","call_id":"t1","arguments":{"command": "go test ./..."},"result":"FAIL","outcome":"failed"}}`,
			want: annals.CaptureOp{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{{
				ChatID: "c1", ID: "e2", Kind: annals.KindTool, Time: clock,
				Tool: &annals.ToolCall{Name: "Bash", CallID: "t1", Arguments: json.RawMessage(`{"command": "go test ./..."}`), Result: "FAIL", Outcome: annals.OutcomeFailed},
			}}}},
		},
		{
			name: "tool arguments may be any JSON value",
			line: `{"type":"entry","chat_id":"c1","id":"e3","kind":"tool","tool":{"name":"echo","arguments":["a",1]}}`,
			want: annals.CaptureOp{Append: &annals.AppendOp{ChatID: "c1", Entries: []*annals.Entry{{
				ChatID: "c1", ID: "e3", Kind: annals.KindTool, Time: clock,
				Tool: &annals.ToolCall{Name: "echo", Arguments: json.RawMessage(`["a",1]`)},
			}}}},
		},
		{
			name: "run with every field",
			line: `{"type":"run","chat_id":"c1","id":"r1","status":"completed","model":"claude-sonnet-4-5","started_at":"2025-01-02T03:04:05Z","ended_at":"2025-01-02T03:05:00Z","input_tokens":100,"output_tokens":20,"cost_usd":0.0123}`,
			want: annals.CaptureOp{Run: &annals.Run{
				ChatID: "c1", ID: "r1", Status: annals.StatusCompleted, Model: "claude-sonnet-4-5",
				StartedAt: ts("2025-01-02T03:04:05Z"), EndedAt: &ended, InputTokens: 100, OutputTokens: 20, CostUSD: 0.0123,
			}},
		},
		{
			name: "a recap run annals recorded keeps its kind",
			line: `{"type":"run","chat_id":"c1","id":"recap-c1-x","status":"completed","model":"gpt-4o-mini","input_tokens":300,"kind":"recap"}`,
			want: annals.CaptureOp{Run: &annals.Run{
				ChatID: "c1", ID: "recap-c1-x", Status: annals.StatusCompleted, Model: "gpt-4o-mini", InputTokens: 300, Kind: annals.RunKindRecap,
			}},
		},
		{
			// A zero start lets the store stamp a new run and keep a stored run's start.
			name: "run without a start leaves it zero",
			line: `{"type":"run","chat_id":"c1","id":"r1","status":"running"}`,
			want: annals.CaptureOp{Run: &annals.Run{ChatID: "c1", ID: "r1", Status: annals.StatusRunning}},
		},
		{
			name: "truncate at an entry id",
			line: `{"type":"truncate","chat_id":"c1","entry_id":"e5"}`,
			want: annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: "c1", Point: annals.TruncatePoint{EntryID: "e5"}}},
		},
		{
			name: "truncate at a source id",
			line: `{"type":"truncate","chat_id":"c1","source_id":"m7"}`,
			want: annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: "c1", Point: annals.TruncatePoint{SourceID: "m7"}}},
		},
		{
			name: "truncate at a seq",
			line: `{"type":"truncate","chat_id":"c1","seq":4}`,
			want: annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: "c1", Point: annals.TruncatePoint{Seq: 4}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := decodeAll(t, tt.line+"\n")
			if len(lines) != 1 {
				t.Fatalf("got %d lines, want 1", len(lines))
			}
			if got := lines[0]; got.Number != 1 || !reflect.DeepEqual(got.Op, tt.want) {
				t.Errorf("got line %d\n%s\nwant\n%s", got.Number, dump(got.Op), dump(tt.want))
			}
		})
	}
}

func dump(op annals.CaptureOp) string {
	b, _ := json.Marshal(op)
	return string(b)
}

func TestDecoderNumbersLinesAndSkipsBlankOnes(t *testing.T) {
	in := "\xEF\xBB\xBF{\"type\":\"chat\",\"id\":\"c1\"}\r\n\n   \t\r\n" +
		`{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"hi"}` + "\n\n" +
		`{"type":"entry","chat_id":"c1","id":"e2","kind":"user","text":"no newline at the end"}`
	lines := decodeAll(t, in)
	var got []int
	for _, l := range lines {
		got = append(got, l.Number)
	}
	if want := []int{1, 4, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("got line numbers %v, want %v", got, want)
	}
	dec := newDecoder(in)
	for {
		if _, err := dec.Next(); err != nil {
			break
		}
	}
	if got, want := dec.BytesRead(), int64(len(in)); got != want {
		t.Errorf("got %d bytes read, want %d", got, want)
	}
}

func TestDecoderRefusesBadInput(t *testing.T) {
	longID := strings.Repeat("x", 1<<20)
	tests := []struct {
		name  string
		input string
		line  int
		want  []string // substrings of the message, after the "line N: " prefix
	}{
		{"malformed JSON", `{"type":"chat","id":}`, 1, []string{"malformed JSON", "column"}},
		{"truncated JSON", `{"type":"chat","id":"c1"`, 1, []string{"malformed JSON"}},
		{"not an object", `["chat"]`, 1, []string{"want a JSON object, got an array"}},
		{"two objects on one line", `{"type":"chat","id":"c1"} {"type":"chat","id":"c2"}`, 1, []string{"after top-level value", "one record per line"}},
		{"missing type", `{"id":"c1"}`, 1, []string{"type is required", "chat, entry, run, truncate"}},
		{"unknown type", `{"type":"message","id":"c1"}`, 1, []string{`type: unknown line type "message"`, "want one of: chat, entry, run, truncate"}},
		{"type of the wrong JSON type", `{"type":7}`, 1, []string{"type: want a string, got the number 7"}},
		{"unknown field", `{"type":"chat","id":"c1","colour":"red"}`, 1, []string{`chat: unknown field "colour"`, "want one of: type, id, tenant_id"}},
		{"field names are case-sensitive", `{"type":"chat","ID":"c1"}`, 1, []string{`chat: unknown field "ID"`, `did you mean "id"?`}},
		{"duplicate field", `{"type":"chat","id":"c1","id":"c2"}`, 1, []string{"chat.id: field appears more than once"}},
		{"seq on an entry", `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","seq":3}`, 1, []string{`entry: unknown field "seq"`, "assigned by the store"}},
		{"unknown tool field", `{"type":"entry","chat_id":"c1","id":"e1","kind":"tool","tool":{"name":"Bash","input":{}}}`, 1, []string{`entry.tool: unknown field "input"`}},
		{"unknown entry kind", `{"type":"entry","chat_id":"c1","id":"e1","kind":"foo"}`, 1, []string{`entry.kind: unknown entry kind "foo" (want one of: user, assistant, tool, system, event)`}},
		{"missing entry kind", `{"type":"entry","chat_id":"c1","id":"e1"}`, 1, []string{"entry.kind"}},
		{"unknown tool outcome", `{"type":"entry","chat_id":"c1","id":"e1","kind":"tool","tool":{"name":"x","outcome":"ok"}}`, 1, []string{`entry.tool.outcome: unknown tool outcome "ok"`}},
		{"tool entry without tool", `{"type":"entry","chat_id":"c1","id":"e1","kind":"tool"}`, 1, []string{"entry.tool is required"}},
		{"tool on a text entry", `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","tool":{"name":"x"}}`, 1, []string{"entry.tool is only allowed on a tool entry"}},
		{"tool that is not an object", `{"type":"entry","chat_id":"c1","id":"e1","kind":"tool","tool":"Bash"}`, 1, []string{`entry.tool: want an object, got the string "Bash"`}},
		{"missing chat id", `{"type":"chat","title":"x"}`, 1, []string{"chat.id is required"}},
		{"missing entry chat id", `{"type":"entry","id":"e1","kind":"user"}`, 1, []string{"entry.chat_id is required"}},
		{"missing entry id", `{"type":"entry","chat_id":"c1","kind":"user"}`, 1, []string{"entry.id is required"}},
		{"missing run id", `{"type":"run","chat_id":"c1","status":"running"}`, 1, []string{"run.id is required"}},
		{"missing run chat id", `{"type":"run","id":"r1","status":"running"}`, 1, []string{"run.chat_id is required"}},
		{"missing truncate chat id", `{"type":"truncate","seq":1}`, 1, []string{"truncate.chat_id is required"}},
		{"unknown run status", `{"type":"run","chat_id":"c1","id":"r1","status":"complete"}`, 1, []string{`run.status: unknown status "complete"`, "completed"}},
		{"run that ends before it starts", `{"type":"run","chat_id":"c1","id":"r1","status":"completed","started_at":"2025-01-02T00:00:00Z","ended_at":"2025-01-01T00:00:00Z"}`, 1, []string{"run.ended_at", "before run.started_at"}},
		{"unknown run kind", `{"type":"run","chat_id":"c1","id":"r1","status":"completed","kind":"agent"}`, 1, []string{`run.kind: unknown run kind "agent"`}},
		{"negative cost", `{"type":"run","chat_id":"c1","id":"r1","status":"completed","cost_usd":-1}`, 1, []string{"run.cost_usd is -1 (want a number from 0 to 1000000000)"}},
		{"string where a number goes", `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","input_tokens":"12"}`, 1, []string{`entry.input_tokens: want an integer, got the string "12"`}},
		{"fraction where an integer goes", `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","output_tokens":1.5}`, 1, []string{"entry.output_tokens: want an integer, got the number 1.5"}},
		{"number where a string goes", `{"type":"entry","chat_id":"c1","id":5,"kind":"user"}`, 1, []string{"entry.id: want a string, got the number 5"}},
		{"bad tag", `{"type":"chat","id":"c1","tags":["ok",3]}`, 1, []string{"chat.tags[1]: want a string, got the number 3"}},
		{"tags not an array", `{"type":"chat","id":"c1","tags":"a,b"}`, 1, []string{"chat.tags: want an array of strings"}},
		{"attribute that is not a string", `{"type":"chat","id":"c1","attributes":{"pr":42}}`, 1, []string{`chat.attributes["pr"]: want a string, got the number 42`}},
		{"metadata that is not an object", `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","metadata":[1]}`, 1, []string{"entry.metadata: want an object, got an array"}},
		{"bad time", `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","time":"yesterday"}`, 1, []string{`entry.time: want an RFC 3339 timestamp`, `got "yesterday"`}},
		{"time as a number", `{"type":"chat","id":"c1","created_at":1735689600}`, 1, []string{"chat.created_at: want an RFC 3339 timestamp string, got the number 1735689600"}},
		{"1 MB chat id", `{"type":"chat","id":"` + longID + `"}`, 1, []string{"chat.id is 1048576 bytes long (at most 256 allowed)"}},
		{"control character in an id", `{"type":"chat","id":"c\u00071"}`, 1, []string{"chat.id contains a control character"}},
		{"invalid UTF-8", "{\"type\":\"chat\",\"id\":\"c\xff1\"}", 1, []string{"not valid UTF-8", "column 23"}},
		{"truncate without a point", `{"type":"truncate","chat_id":"c1"}`, 1, []string{"truncate: want exactly one of entry_id, source_id or seq, got none"}},
		{"truncate with two points", `{"type":"truncate","chat_id":"c1","entry_id":"e1","seq":3}`, 1, []string{"got entry_id and seq"}},
		{"truncate at seq zero", `{"type":"truncate","chat_id":"c1","seq":0}`, 1, []string{"truncate.seq: want a positive integer, got 0"}},
		{"truncate at an empty entry id", `{"type":"truncate","chat_id":"c1","entry_id":""}`, 1, []string{"truncate.entry_id is required"}},
		{"error on a later line", "{\"type\":\"chat\",\"id\":\"c1\"}\n\n{\"type\":\"chat\",\"id\":\"c1\",\"pinned\":true}\n", 3, []string{`chat: unknown field "pinned"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := firstError(tt.input)
			assertLineError(t, err, tt.line, tt.want...)
		})
	}
}

// firstError decodes input and returns the first error other than io.EOF.
func firstError(input string) error {
	dec := newDecoder(input)
	for {
		_, err := dec.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func assertLineError(t *testing.T, err error, line int, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("got no error")
	}
	if got := annals.ErrorCode(err); got != annals.EINVALID {
		t.Errorf("got code %q, want %q (%v)", got, annals.EINVALID, err)
	}
	var ae *annals.Error
	if !errors.As(err, &ae) {
		t.Fatalf("got %T, want *annals.Error", err)
	}
	msg := annals.ErrorMessage(err)
	if prefix := fmt.Sprintf("line %d: ", line); !strings.HasPrefix(msg, prefix) {
		t.Errorf("got message %.300q, want it to start with %q", msg, prefix)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("got message %.300q, want it to contain %q", msg, w)
		}
	}
	var le *ingest.LineError
	if !errors.As(err, &le) || le.Line != line {
		t.Errorf("got LineError %+v, want line %d", le, line)
	}
}

func TestDecoderContinuesAfterABadLine(t *testing.T) {
	in := "{\"type\":\"chat\",\"id\":\"c1\"}\n{bad\n{\"type\":\"chat\",\"id\":\"c2\"}\n"
	dec := newDecoder(in)
	var got []string
	for {
		l, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			got = append(got, fmt.Sprintf("error@%d", dec.LineNumber()))
			continue
		}
		got = append(got, l.Op.Chat.ID)
	}
	if want := []string{"c1", "error@2", "c2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDecoderAcceptsAnEntryAtTheContentLimit(t *testing.T) {
	// The content limit applies to decoded bytes; the line limit leaves room for the framing.
	text := strings.Repeat("a", annals.MaxEntryBytes)
	line := `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"` + text + `"}`
	lines := decodeAll(t, line)
	if got := len(lines[0].Op.Append.Entries[0].Text); got != annals.MaxEntryBytes {
		t.Errorf("got %d bytes of text, want %d", got, annals.MaxEntryBytes)
	}

	over := `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"` + text + `","reasoning":"b"}`
	assertLineError(t, firstError(over), 1, `entry "e1" is 8388609 bytes`, "at most 8388608")
}

func TestDecoderRefusesAnOversizedLineAndReadsOn(t *testing.T) {
	big := `{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"` + strings.Repeat("a", ingest.MaxLineBytes) + `"}`
	in := big + "\n" + `{"type":"chat","id":"c2"}` + "\n"
	dec := newDecoder(in)
	_, err := dec.Next()
	assertLineError(t, err, 1, "line is longer than 9437184 bytes")
	l, err := dec.Next()
	if err != nil {
		t.Fatalf("Next after the oversized line: %v", err)
	}
	if l.Number != 2 || l.Op.Chat == nil || l.Op.Chat.ID != "c2" {
		t.Errorf("got line %d %s, want line 2 chat c2", l.Number, dump(l.Op))
	}
}

// endless is an unbounded stream of one byte with no line ending.
type endless byte

func (b endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestDecoderMemoryIsBoundedOnAHugeLine(t *testing.T) {
	const size = 128 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	dec := ingest.NewDecoder(io.MultiReader(io.LimitReader(endless('a'), size), strings.NewReader("\n")))
	_, err := dec.Next()
	runtime.ReadMemStats(&after)
	assertLineError(t, err, 1, "line is longer than")
	// Reading the whole 128 MiB line may allocate about one line limit's worth (the buffer
	// grows by doubling), never the line itself.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*ingest.MaxLineBytes {
		t.Errorf("allocated %d bytes to refuse a %d-byte line, want at most %d", alloc, size, 4*ingest.MaxLineBytes)
	}
	if got := dec.BytesRead(); got != size+1 {
		t.Errorf("got %d bytes read, want %d", got, size+1)
	}
}

func TestDecoderReturnsReaderErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	dec := ingest.NewDecoder(io.MultiReader(strings.NewReader("{\"type\":\"chat\",\"id\":\"c1\"}\n"), iotest.ErrReader(boom)))
	if _, err := dec.Next(); err != nil {
		t.Fatalf("first line: %v", err)
	}
	_, err := dec.Next()
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want it to wrap %v", err, boom)
	}
	var le *ingest.LineError
	if errors.As(err, &le) {
		t.Errorf("a reader error must not look like an invalid line: %v", err)
	}
	if _, again := dec.Next(); !errors.Is(again, boom) {
		t.Errorf("got %v on the next call, want the same sticky error", again)
	}
}

func TestDecoderDefaultsUseOneTimePerDecoder(t *testing.T) {
	calls := 0
	now := func() time.Time { calls++; return clock.Add(time.Duration(calls) * time.Hour) }
	in := "{\"type\":\"entry\",\"chat_id\":\"c1\",\"id\":\"e1\",\"kind\":\"user\"}\n{\"type\":\"entry\",\"chat_id\":\"c1\",\"id\":\"e2\",\"kind\":\"user\"}\n"
	dec := ingest.NewDecoderOptions(strings.NewReader(in), ingest.DecoderOptions{Now: now})
	a, _ := dec.Next()
	b, _ := dec.Next()
	ta, tb := a.Op.Append.Entries[0].Time, b.Op.Append.Entries[0].Time
	if calls != 1 || !ta.Equal(tb) || !ta.Equal(clock.Add(time.Hour)) {
		t.Errorf("got %d clock calls and times %v, %v; want 1 call and both %v", calls, ta, tb, clock.Add(time.Hour))
	}
}

func TestExampleFileDecodes(t *testing.T) {
	data, err := os.ReadFile("../examples/first-chat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := decodeAll(t, string(data))
	counts := map[string]int{}
	outcomes := map[annals.Outcome]int{}
	for _, l := range lines {
		switch {
		case l.Op.Chat != nil:
			counts["chat"]++
		case l.Op.Append != nil:
			counts["entry"]++
			if tool := l.Op.Append.Entries[0].Tool; tool != nil {
				outcomes[tool.Outcome]++
			}
		case l.Op.Run != nil:
			counts["run"]++
		case l.Op.Truncate != nil:
			counts["truncate"]++
		}
	}
	if want := map[string]int{"chat": 2, "entry": 12, "run": 2, "truncate": 1}; !reflect.DeepEqual(counts, want) {
		t.Errorf("got record counts %v, want %v", counts, want)
	}
	if outcomes[annals.OutcomeFailed] == 0 || outcomes[annals.OutcomeSucceeded] == 0 {
		t.Errorf("got tool outcomes %v, want at least one failed and one succeeded", outcomes)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("the example should end with a newline")
	}
}
