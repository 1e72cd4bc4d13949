package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

const exampleFile = "../examples/first-chat.jsonl"

// onlyReader hides every method but Read, like a pipe or an HTTP body.
type onlyReader struct{ io.Reader }

func readExample(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func opts() ingest.Options {
	return ingest.Options{Now: func() time.Time { return clock }}
}

// opKinds describes each Capture call as a list like "chat run append(8)".
func opKinds(calls [][]annals.CaptureOp) []string {
	var out []string
	for _, ops := range calls {
		var parts []string
		for _, op := range ops {
			switch {
			case op.Chat != nil:
				parts = append(parts, "chat")
			case op.Append != nil:
				parts = append(parts, fmt.Sprintf("append(%d)", len(op.Append.Entries)))
			case op.Truncate != nil:
				parts = append(parts, "truncate")
			case op.Run != nil:
				parts = append(parts, "run")
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func TestIngestAppliesTheExampleFile(t *testing.T) {
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(readExample(t)), opts())
	if err != nil {
		t.Fatal(err)
	}
	want := annals.CaptureResult{ChatsCreated: 2, EntriesAppended: 12, EntriesRemoved: 1, RunsRecorded: 2}
	if rep.CaptureResult != want {
		t.Errorf("got counts %+v, want %+v", rep.CaptureResult, want)
	}
	if rep.Lines != 18 || rep.Batches != 1 {
		t.Errorf("got %d lines in %d batches, want 18 lines in 1 batch", rep.Lines, rep.Batches)
	}
	if got, want := store.entryIDs("c-2b04d6aa"), []string{"e1", "e3", "e4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got transcript %v after the rewind, want %v", got, want)
	}
	if got := len(store.entryIDs("c-7f3a91e2")); got != 8 {
		t.Errorf("got %d entries in the first chat, want 8", got)
	}
	if r := store.runs["c-7f3a91e2-run-1"]; r == nil || r.Status != annals.StatusCompleted {
		t.Errorf("got run %+v, want it recorded as completed by the later line", r)
	}
}

func TestIngestGroupsConsecutiveEntriesOfOneChat(t *testing.T) {
	store := newMemStore()
	if _, err := ingest.Ingest(context.Background(), store, strings.NewReader(readExample(t)), opts()); err != nil {
		t.Fatal(err)
	}
	want := []string{"chat run append(8) run chat append(2) truncate append(2)"}
	if got := opKinds(store.calls); !reflect.DeepEqual(got, want) {
		t.Errorf("got Capture calls %q, want %q", got, want)
	}
}

func TestIngestTwiceLeavesTheSameTranscripts(t *testing.T) {
	store := newMemStore()
	in := readExample(t)
	if _, err := ingest.Ingest(context.Background(), store, strings.NewReader(in), opts()); err != nil {
		t.Fatal(err)
	}
	first := map[string][]string{}
	for id := range store.chats {
		first[id] = store.entryIDs(id)
	}
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(in), opts())
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range first {
		if got := store.entryIDs(id); !reflect.DeepEqual(got, want) {
			t.Errorf("chat %s: got %v after the second ingest, want %v", id, got, want)
		}
	}
	// The rewound entry is appended again and removed again by the same truncate line.
	want := annals.CaptureResult{ChatsUnchanged: 2, EntriesAppended: 1, EntriesSkipped: 11, EntriesRemoved: 1, RunsRecorded: 2}
	if rep.CaptureResult != want {
		t.Errorf("got counts %+v, want %+v", rep.CaptureResult, want)
	}
}

func TestIngestWritesNothingWhenAnyLineIsInvalid(t *testing.T) {
	in := `{"type":"chat","id":"c1"}
{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"hi"}
{"type":"entry","chat_id":"c1","id":"e2","kind":"robot"}

{"type":"entry","chat_id":"c1","id":"e3","kind":"user","colour":"red"}
{"type":"entry","chat_id":"c1","id":"e4","kind":"user","text":"fine"}
`
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(in), ingest.Options{BatchSize: 1})
	if len(store.calls) != 0 {
		t.Fatalf("got %d Capture calls, want none", len(store.calls))
	}
	if annals.ErrorCode(err) != annals.EINVALID {
		t.Fatalf("got %v, want code invalid", err)
	}
	msg := annals.ErrorMessage(err)
	for _, want := range []string{"2 invalid lines", "nothing was written", `line 3: entry.kind: unknown entry kind "robot"`, `line 5: entry: unknown field "colour"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("got message %q, want it to contain %q", msg, want)
		}
	}
	var le *ingest.LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Errorf("got LineError %+v, want the first bad line, 3", le)
	}
	if rep == nil || rep.Batches != 0 || rep.Lines != 6 {
		t.Errorf("got report %+v, want 6 lines read and no batches", rep)
	}
}

func TestIngestKeepsASingleLineErrorAsIs(t *testing.T) {
	in := "{\"type\":\"chat\",\"id\":\"c1\"}\n{\"type\":\"entry\",\"chat_id\":\"c1\",\"id\":\"e1\",\"kind\":\"foo\"}\n"
	_, err := ingest.Ingest(context.Background(), newMemStore(), strings.NewReader(in), ingest.Options{})
	assertLineError(t, err, 2, `entry.kind: unknown entry kind "foo" (want one of: user, assistant, tool, system, event)`)
}

func TestIngestStopsReadingAfterMaxErrors(t *testing.T) {
	in := strings.Repeat("{}\n", 10)
	_, err := ingest.Ingest(context.Background(), newMemStore(), strings.NewReader(in), ingest.Options{MaxErrors: 3})
	msg := annals.ErrorMessage(err)
	if !strings.Contains(msg, "at least 3 invalid lines") || strings.Contains(msg, "line 4:") {
		t.Errorf("got message %q, want 3 errors and a note that reading stopped", msg)
	}
}

func TestIngestNamesTheLineOfAFailedBatchAndKeepsEarlierBatches(t *testing.T) {
	in := `{"type":"chat","id":"c1"}
{"type":"entry","chat_id":"c1","id":"e1","kind":"user","text":"one"}
{"type":"entry","chat_id":"c1","id":"e2","kind":"user","text":"two"}
{"type":"entry","chat_id":"nope","id":"e1","kind":"user","text":"lost"}
{"type":"entry","chat_id":"c1","id":"e3","kind":"user","text":"three"}
`
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(in), ingest.Options{BatchSize: 2})
	if annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("got %v, want code not_found", err)
	}
	msg := annals.ErrorMessage(err)
	for _, want := range []string{`line 4: chat "nope" not found`, "lines before 3 are committed", "line 3 and later were not written"} {
		if !strings.Contains(msg, want) {
			t.Errorf("got message %q, want it to contain %q", msg, want)
		}
	}
	var le *ingest.LineError
	if !errors.As(err, &le) || le.Line != 4 {
		t.Errorf("got LineError %+v, want line 4", le)
	}
	if got, want := store.entryIDs("c1"), []string{"e1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got entries %v, want only the first batch's %v", got, want)
	}
	if rep.Batches != 1 || rep.ChatsCreated != 1 || rep.EntriesAppended != 1 {
		t.Errorf("got report %+v, want the first batch only", rep)
	}
}

func TestIngestNamesTheLinesOfAFailedGroupedAppend(t *testing.T) {
	in := `{"type":"entry","chat_id":"nope","id":"e1","kind":"user"}

{"type":"entry","chat_id":"nope","id":"e2","kind":"user"}
`
	_, err := ingest.Ingest(context.Background(), newMemStore(), strings.NewReader(in), ingest.Options{})
	if msg := annals.ErrorMessage(err); !strings.HasPrefix(msg, `lines 1-3: chat "nope" not found (nothing was written)`) {
		t.Errorf("got message %q", msg)
	}
}

func TestIngestReportsAConflictWithItsCode(t *testing.T) {
	in := "{\"type\":\"chat\",\"id\":\"c1\",\"agent_id\":\"a\"}\n{\"type\":\"chat\",\"id\":\"c1\",\"agent_id\":\"b\"}\n"
	_, err := ingest.Ingest(context.Background(), newMemStore(), strings.NewReader(in), ingest.Options{})
	if annals.ErrorCode(err) != annals.ECONFLICT || !strings.HasPrefix(annals.ErrorMessage(err), "line 2: ") {
		t.Errorf("got %q (%s), want a conflict on line 2", annals.ErrorMessage(err), annals.ErrorCode(err))
	}
}

func TestIngestSpoolsAnUnseekableInputAndRemovesTheSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	in := readExample(t)
	var sawSpool bool
	o := opts()
	o.BatchSize = 5
	o.Progress = func(p ingest.Progress) {
		if p.Phase == ingest.PhaseApply {
			files, _ := os.ReadDir(tmp)
			sawSpool = sawSpool || len(files) == 1
		}
	}
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, onlyReader{strings.NewReader(in)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.EntriesAppended != 12 || rep.Bytes != int64(len(in)) {
		t.Errorf("got report %+v, want 12 entries from %d bytes", rep, len(in))
	}
	if !sawSpool {
		t.Error("want a spool file in TMPDIR while applying")
	}
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Errorf("got %d files left in TMPDIR, want the spool removed", len(files))
	}
}

func TestIngestRereadsASeekableFileFromItsOffsetWithoutSpooling(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	in := readExample(t)
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Start after the first chat's 11 lines and the blank line: only the second chat is ingested.
	skip := 0
	for range 12 {
		skip += strings.IndexByte(in[skip:], '\n') + 1
	}
	if _, err := f.Seek(int64(skip), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var totals []int64
	o := opts()
	o.Progress = func(p ingest.Progress) {
		totals = append(totals, p.TotalBytes)
		if files, _ := os.ReadDir(tmp); len(files) != 0 {
			t.Error("a seekable file must not be spooled")
		}
	}
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, f, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ChatsCreated != 1 || rep.EntriesAppended != 4 {
		t.Errorf("got report %+v, want the second chat only", rep)
	}
	for _, total := range totals {
		if total != int64(len(in)-skip) {
			t.Errorf("got total bytes %d, want %d from the first progress call on", total, len(in)-skip)
		}
	}
}

func TestIngestReportsProgressForBothPhases(t *testing.T) {
	in := readExample(t)
	var got []ingest.Progress
	o := opts()
	o.BatchSize = 4
	o.Progress = func(p ingest.Progress) { got = append(got, p) }
	rep, err := ingest.Ingest(context.Background(), newMemStore(), onlyReader{strings.NewReader(in)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var phases []ingest.Phase
	for _, p := range got {
		phases = append(phases, p.Phase)
	}
	// 17 records: validation reports every 4 and at the end; apply reports each of 5 batches.
	want := []ingest.Phase{"validate", "validate", "validate", "validate", "validate", "apply", "apply", "apply", "apply", "apply"}
	if !reflect.DeepEqual(phases, want) {
		t.Fatalf("got phases %v, want %v", phases, want)
	}
	last := got[len(got)-1]
	if last.Bytes != int64(len(in)) || last.TotalBytes != int64(len(in)) || last.Lines != 18 {
		t.Errorf("got last progress %+v, want all %d bytes and 18 lines", last, len(in))
	}
	if last.CaptureResult != rep.CaptureResult || rep.Batches != 5 {
		t.Errorf("got last progress counts %+v and %d batches, want the report's %+v in 5", last.CaptureResult, rep.Batches, rep.CaptureResult)
	}
}

func TestIngestBoundsBatchesByBytes(t *testing.T) {
	in := "{\"type\":\"chat\",\"id\":\"c1\"}\n{\"type\":\"entry\",\"chat_id\":\"c1\",\"id\":\"e1\",\"kind\":\"user\"}\n{\"type\":\"entry\",\"chat_id\":\"c1\",\"id\":\"e2\",\"kind\":\"user\"}\n"
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(in), ingest.Options{BatchBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Batches != 3 || len(store.calls) != 3 {
		t.Errorf("got %d batches, want one per line", rep.Batches)
	}
}

func TestIngestSplitsAppendsAtTheEntryLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"chat","id":"c1"}` + "\n")
	n := annals.MaxBatchEntries + 1
	for i := range n {
		fmt.Fprintf(&b, `{"type":"entry","chat_id":"c1","id":"e%d","kind":"user"}`+"\n", i)
	}
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(b.String()), ingest.Options{BatchSize: n + 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("chat append(%d) append(1)", annals.MaxBatchEntries)}
	if got := opKinds(store.calls); !reflect.DeepEqual(got, want) || rep.EntriesAppended != n {
		t.Errorf("got calls %q and %d appended, want %q and %d", got, rep.EntriesAppended, want, n)
	}
}

func TestIngestGivesBothPassesTheSameDefaultTime(t *testing.T) {
	calls := 0
	o := ingest.Options{Now: func() time.Time { calls++; return clock.Add(time.Duration(calls) * time.Minute) }}
	in := "{\"type\":\"chat\",\"id\":\"c1\"}\n{\"type\":\"entry\",\"chat_id\":\"c1\",\"id\":\"e1\",\"kind\":\"user\"}\n"
	store := newMemStore()
	if _, err := ingest.Ingest(context.Background(), store, onlyReader{strings.NewReader(in)}, o); err != nil {
		t.Fatal(err)
	}
	if got := store.entries["c1"][0].Time; calls != 1 || !got.Equal(clock.Add(time.Minute)) {
		t.Errorf("got %d clock calls and entry time %v, want 1 call and %v", calls, got, clock.Add(time.Minute))
	}
}

func TestIngestStopsWhenTheContextIsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	o := opts()
	o.BatchSize = 2
	o.Progress = func(p ingest.Progress) {
		if p.Phase == ingest.PhaseApply {
			cancel()
		}
	}
	store := newMemStore()
	rep, err := ingest.Ingest(ctx, store, strings.NewReader(readExample(t)), o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if rep.Batches != 1 || len(store.calls) != 1 {
		t.Errorf("got %d batches and %d calls, want to stop after the first", rep.Batches, len(store.calls))
	}
}

func TestIngestReturnsReaderErrorsUnchanged(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("{\"type\":\"chat\",\"id\":\"c1\"}\n"), errReader{boom})
	store := newMemStore()
	_, err := ingest.Ingest(context.Background(), store, r, ingest.Options{})
	if !errors.Is(err, boom) || len(store.calls) != 0 {
		t.Errorf("got %v and %d calls, want %v and nothing written", err, len(store.calls), boom)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestFormatDocWorkedExample keeps docs/FORMAT.md honest: its worked example must ingest with
// the counts the document states.
func TestFormatDocWorkedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```jsonl\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/FORMAT.md has no jsonl example block")
	}
	store := newMemStore()
	rep, err := ingest.Ingest(context.Background(), store, strings.NewReader(example), opts())
	if err != nil {
		t.Fatal(err)
	}
	if want := (annals.CaptureResult{ChatsCreated: 2, EntriesAppended: 7, EntriesRemoved: 2, RunsRecorded: 2}); rep.CaptureResult != want || rep.Lines != 13 {
		t.Errorf("first ingest: got %d lines and %+v, want 13 lines and %+v", rep.Lines, rep.CaptureResult, want)
	}
	rep, err = ingest.Ingest(context.Background(), store, strings.NewReader(example), opts())
	if err != nil {
		t.Fatal(err)
	}
	if want := (annals.CaptureResult{ChatsUnchanged: 2, EntriesAppended: 2, EntriesSkipped: 5, EntriesRemoved: 2, RunsRecorded: 2}); rep.CaptureResult != want {
		t.Errorf("second ingest: got %+v, want %+v", rep.CaptureResult, want)
	}
	if got := store.entryIDs("demo-2"); !reflect.DeepEqual(got, []string{"m3"}) {
		t.Errorf("got demo-2 transcript %v, want [m3]", got)
	}

	bad := strings.Replace(example, `"id":"m4","kind":"assistant"`, `"id":"m4","kind":"answer"`, 1)
	_, err = ingest.Ingest(context.Background(), newMemStore(), strings.NewReader(bad), opts())
	assertLineError(t, err, 6, `entry.kind: unknown entry kind "answer"`)

	var kept []string
	for _, line := range strings.Split(example, "\n") {
		if !strings.Contains(line, `"type":"chat","id":"demo-2"`) {
			kept = append(kept, line)
		}
	}
	o := opts()
	o.BatchSize = 7
	_, err = ingest.Ingest(context.Background(), newMemStore(), strings.NewReader(strings.Join(kept, "\n")), o)
	want := `lines 9-10: chat "demo-2" not found (lines before 9 are committed, line 9 and later were not written; running the corrected input again is safe)`
	if got := annals.ErrorMessage(err); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
