// Package ingest reads the generic capture format, JSON Lines with one chat, entry, run or
// truncate record per line (docs/FORMAT.md), and applies it to an annals.CaptureStore.
//
// Decoder turns lines into validated annals.CaptureOp values one at a time, with bounded memory.
// Ingest validates a whole input before it writes anything, then applies it in batches, each
// one transaction.
package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// DefaultTenant is the tenant of a chat line that names none: the tenant of the local owner of
// a database, who imports their own agents' histories.
const DefaultTenant = "local"

// MaxLineBytes bounds one line, without its line ending. It is the per-entry content limit
// plus 1 MiB for the JSON framing: field names, ids and escapes. Content that needs heavy
// escaping (many quotes, backslashes or control characters) reaches it before
// annals.MaxEntryBytes of decoded content.
const MaxLineBytes = annals.MaxEntryBytes + 1<<20

// DecoderOptions tune a Decoder. The zero value is ready to use.
type DecoderOptions struct {
	// Now returns the time given to chats and entries that carry none. It is called once,
	// when the decoder is created, so every defaulted record of one input gets the same time.
	// Nil means time.Now.
	Now func() time.Time
}

// Line is one decoded, validated, non-blank line of the input.
type Line struct {
	// Number is the 1-based line number in the input, counting blank lines.
	Number int
	// Op is the line's operation. An entry line becomes an Append of that single entry; a
	// batching layer (Ingest) merges consecutive entries of one chat.
	Op annals.CaptureOp
}

// LineError locates an invalid line. It is the cause (Err) of the *annals.Error the decoder
// returns, so errors.As finds the line number while the message already names it.
type LineError struct {
	Line int
	// Err is the *annals.Error that describes the problem, without the line prefix.
	Err error
}

// Error returns the message prefixed with the line number.
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the problem.
func (e *LineError) Unwrap() error { return e.Err }

// Decoder reads the capture format line by line. It never holds more than one line (at most
// MaxLineBytes) in memory.
type Decoder struct {
	r   *bufio.Reader
	now time.Time
	buf []byte

	line  int   // number of the last line read
	bytes int64 // bytes consumed so far
	err   error // sticky read error
}

// NewDecoder returns a decoder reading r with default options.
func NewDecoder(r io.Reader) *Decoder { return NewDecoderOptions(r, DecoderOptions{}) }

// NewDecoderOptions returns a decoder reading r.
func NewDecoderOptions(r io.Reader, opts DecoderOptions) *Decoder {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), now: now()}
}

// Next returns the next non-blank line, or io.EOF after the last one.
//
// An invalid line gives an *annals.Error with code invalid whose message names the line and the
// field ("line 12: entry.kind: unknown entry kind ..."), wrapping a *LineError. The decoder stays
// usable after such an error: the next call reads the following line, so a caller can collect
// every problem of an input in one pass. An error of the underlying reader is returned wrapped
// (errors.Is and errors.As see it) and is sticky.
func (d *Decoder) Next() (Line, error) {
	for {
		raw, tooLong, err := d.readLine()
		if err != nil {
			return Line{}, err
		}
		if tooLong {
			return Line{}, d.lineError(annals.Errorf(annals.EINVALID,
				"line is longer than %d bytes (an entry carries at most %d bytes of content)", MaxLineBytes, annals.MaxEntryBytes))
		}
		if d.line == 1 {
			// A byte order mark is an encoding artifact of some editors, not content.
			raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		op, err := decodeLine(raw, d.now)
		if err != nil {
			return Line{}, d.lineError(err)
		}
		return Line{Number: d.line, Op: op}, nil
	}
}

// LineNumber returns the number of the last line read (0 before the first).
func (d *Decoder) LineNumber() int { return d.line }

// BytesRead returns how many bytes of the input the decoder has consumed, line endings included.
func (d *Decoder) BytesRead() int64 { return d.bytes }

// lineError puts the line number in front of err's message, keeping its code.
func (d *Decoder) lineError(err error) error {
	le := &LineError{Line: d.line, Err: err}
	return &annals.Error{Code: annals.ErrorCode(err), Message: fmt.Sprintf("line %d: %s", d.line, annals.ErrorMessage(err)), Err: le}
}

// readLine reads one line without its line ending into d.buf. A line longer than MaxLineBytes
// is consumed to its end but not kept, so a hostile input cannot make the decoder allocate
// more than one line's worth of memory.
func (d *Decoder) readLine() (line []byte, tooLong bool, err error) {
	if d.err != nil {
		return nil, false, d.err
	}
	d.buf = d.buf[:0]
	var n int64
	for {
		chunk, err := d.r.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			switch need := len(d.buf) + len(chunk); {
			case need > MaxLineBytes+2: // +2: the line ending is not counted
				tooLong = true
				d.buf = d.buf[:0]
			case need > cap(d.buf):
				// Grow by doubling, capped at the limit: append's gentler growth for large
				// slices would allocate several times the limit on the way up.
				nb := make([]byte, len(d.buf), max(need, min(2*cap(d.buf), MaxLineBytes+2)))
				copy(nb, d.buf)
				d.buf = append(nb, chunk...)
			default:
				d.buf = append(d.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			d.err = fmt.Errorf("ingest: reading line %d: %w", d.line+1, err)
			return nil, false, d.err
		}
		if n == 0 { // io.EOF with nothing left
			d.err = io.EOF
			return nil, false, io.EOF
		}
		break
	}
	d.line++
	d.bytes += n
	line = bytes.TrimSuffix(d.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !tooLong && len(line) > MaxLineBytes {
		tooLong = true
	}
	return line, tooLong, nil
}

// decodeLine decodes and validates one non-blank line.
func decodeLine(raw []byte, now time.Time) (annals.CaptureOp, error) {
	if !utf8.Valid(raw) {
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "not valid UTF-8 (first bad byte at column %d)", firstInvalidUTF8(raw)+1)
	}
	obj, err := parseLine(raw)
	if err != nil {
		return annals.CaptureOp{}, err
	}
	var typ string
	if err := obj.str("type", &typ); err != nil {
		return annals.CaptureOp{}, err
	}
	var op annals.CaptureOp
	switch typ {
	case "chat":
		op, err = decodeChat(obj, now)
	case "entry":
		op, err = decodeEntry(obj, now)
	case "run":
		op, err = decodeRun(obj)
	case "truncate":
		op, err = decodeTruncate(obj)
	case "":
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "type is required (want one of: %s)", lineTypes)
	default:
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "type: unknown line type %.40q (want one of: %s)", typ, lineTypes)
	}
	if err != nil {
		return annals.CaptureOp{}, err
	}
	// The root's validation is the single source of the semantic rules (ids, limits, enums),
	// so a line that decodes here is one every store accepts. An entry line is checked as the
	// entry itself: the append op's validation would prefix every message with "entries[0]: ",
	// which means nothing to someone fixing one line, and adds nothing else (decodeEntry has
	// checked the chat id).
	if op.Append != nil {
		err = op.Append.Entries[0].Validate()
	} else {
		err = op.Validate()
	}
	if err != nil {
		return annals.CaptureOp{}, err
	}
	return op, nil
}

const lineTypes = "chat, entry, run, truncate"

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

var (
	chatFields  = []string{"type", "id", "tenant_id", "user_id", "agent_id", "attributes", "created_at", "title", "description", "tags"}
	entryFields = []string{"type", "chat_id", "id", "kind", "run_id", "source_ids", "channel", "correlation_id", "time", "text", "reasoning", "tool", "input_tokens", "output_tokens", "metadata"}
	toolFields  = []string{"name", "call_id", "arguments", "result", "outcome"}
	runFields   = []string{"type", "chat_id", "id", "status", "model", "started_at", "ended_at", "input_tokens", "output_tokens",
		"cache_read_tokens", "cache_creation_tokens", "context_tokens", "cost_usd", "kind"}
	truncateFields = []string{"type", "chat_id", "entry_id", "source_id", "seq"}
)

func decodeChat(obj *object, now time.Time) (annals.CaptureOp, error) {
	obj.name = "chat"
	c := &annals.Chat{}
	var created *time.Time
	err := firstErr(
		obj.only(chatFields),
		obj.str("id", &c.ID),
		obj.str("tenant_id", &c.TenantID),
		obj.str("user_id", &c.UserID),
		obj.str("agent_id", &c.AgentID),
		obj.strMap("attributes", (*map[string]string)(&c.Attributes)),
		obj.time("created_at", &created),
		obj.str("title", &c.Title),
		obj.str("description", &c.Description),
		obj.strs("tags", &c.Tags),
	)
	if err != nil {
		return annals.CaptureOp{}, err
	}
	if c.TenantID == "" {
		c.TenantID = DefaultTenant
	}
	c.CreatedAt = now
	if created != nil {
		c.CreatedAt = *created
	}
	return annals.CaptureOp{Chat: c}, nil
}

func decodeEntry(obj *object, now time.Time) (annals.CaptureOp, error) {
	obj.name = "entry"
	e := &annals.Entry{}
	var (
		kind string
		at   *time.Time
		tool *object
	)
	err := firstErr(
		obj.only(entryFields),
		obj.str("chat_id", &e.ChatID),
		obj.str("id", &e.ID),
		obj.str("kind", &kind),
		obj.str("run_id", &e.RunID),
		obj.strs("source_ids", &e.SourceIDs),
		obj.str("channel", &e.Channel),
		obj.str("correlation_id", &e.CorrelationID),
		obj.time("time", &at),
		obj.str("text", &e.Text),
		obj.str("reasoning", &e.Reasoning),
		obj.object("tool", &tool),
		obj.int("input_tokens", &e.InputTokens),
		obj.int("output_tokens", &e.OutputTokens),
		obj.jsonObject("metadata", &e.Metadata),
	)
	if err != nil {
		return annals.CaptureOp{}, err
	}
	e.Kind = annals.EntryKind(kind)
	if tool != nil {
		t := &annals.ToolCall{}
		var outcome string
		err := firstErr(
			tool.only(toolFields),
			tool.str("name", &t.Name),
			tool.str("call_id", &t.CallID),
			tool.anyJSON("arguments", &t.Arguments),
			tool.str("result", &t.Result),
			tool.str("outcome", &outcome),
		)
		if err != nil {
			return annals.CaptureOp{}, err
		}
		t.Outcome = annals.Outcome(outcome)
		e.Tool = t
	}
	// The root validates an append's chat id as plain "chat_id"; naming it from the line's
	// point of view tells the user which record to fix.
	if err := annals.ValidateID("entry.chat_id", e.ChatID); err != nil {
		return annals.CaptureOp{}, err
	}
	e.Time = now
	if at != nil {
		e.Time = *at
	}
	return annals.CaptureOp{Append: &annals.AppendOp{ChatID: e.ChatID, Entries: []*annals.Entry{e}}}, nil
}

func decodeRun(obj *object) (annals.CaptureOp, error) {
	obj.name = "run"
	r := &annals.Run{}
	var (
		status, kind string
		started      *time.Time
	)
	err := firstErr(
		obj.only(runFields),
		obj.str("chat_id", &r.ChatID),
		obj.str("id", &r.ID),
		obj.str("status", &status),
		obj.str("model", &r.Model),
		obj.time("started_at", &started),
		obj.time("ended_at", &r.EndedAt),
		obj.int("input_tokens", &r.InputTokens),
		obj.int("output_tokens", &r.OutputTokens),
		obj.int("cache_read_tokens", &r.CacheReadTokens),
		obj.int("cache_creation_tokens", &r.CacheCreationTokens),
		obj.int("context_tokens", &r.ContextTokens),
		obj.float("cost_usd", &r.CostUSD),
		obj.str("kind", &kind),
	)
	if err != nil {
		return annals.CaptureOp{}, err
	}
	r.Status, r.Kind = annals.RunStatus(status), annals.RunKind(kind)
	// A run without started_at keeps a zero start: the store stamps a new run with the time it
	// records it and keeps the stored start on an update, so ingesting the same run twice, or
	// recording it as running and later as completed, never moves its start.
	if started != nil {
		r.StartedAt = *started
	}
	if r.EndedAt != nil && started != nil && r.EndedAt.Before(r.StartedAt) {
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "run.ended_at %s is before run.started_at %s",
			r.EndedAt.Format(time.RFC3339Nano), r.StartedAt.Format(time.RFC3339Nano))
	}
	return annals.CaptureOp{Run: r}, nil
}

func decodeTruncate(obj *object) (annals.CaptureOp, error) {
	obj.name = "truncate"
	t := &annals.TruncateOp{}
	err := firstErr(
		obj.only(truncateFields),
		obj.str("chat_id", &t.ChatID),
		obj.str("entry_id", &t.Point.EntryID),
		obj.str("source_id", &t.Point.SourceID),
		obj.int("seq", &t.Point.Seq),
	)
	if err != nil {
		return annals.CaptureOp{}, err
	}
	if err := annals.ValidateID("truncate.chat_id", t.ChatID); err != nil {
		return annals.CaptureOp{}, err
	}
	// Presence, not the zero value, decides which point was given, so "seq": 0 is reported as
	// a bad seq rather than as a missing point.
	var given []string
	for _, f := range []string{"entry_id", "source_id", "seq"} {
		if obj.has(f) {
			given = append(given, f)
		}
	}
	switch len(given) {
	case 0:
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "truncate: want exactly one of entry_id, source_id or seq, got none")
	case 1:
	default:
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "truncate: want exactly one of entry_id, source_id or seq, got %s", joinAnd(given))
	}
	switch given[0] {
	case "seq":
		if t.Point.Seq <= 0 {
			return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "truncate.seq: want a positive integer, got %d", t.Point.Seq)
		}
	case "entry_id":
		if err := annals.ValidateID("truncate.entry_id", t.Point.EntryID); err != nil {
			return annals.CaptureOp{}, err
		}
	case "source_id":
		if err := annals.ValidateID("truncate.source_id", t.Point.SourceID); err != nil {
			return annals.CaptureOp{}, err
		}
	}
	return annals.CaptureOp{Truncate: t}, nil
}

func joinAnd(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	s := vs[0]
	for _, v := range vs[1 : len(vs)-1] {
		s += ", " + v
	}
	return s + " and " + vs[len(vs)-1]
}

// firstErr returns the first non-nil error. The field decoders all run, but each is cheap and
// only the first problem is reported, in field-table order.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
