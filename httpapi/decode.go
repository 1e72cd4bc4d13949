package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/internal/strictjson"
)

// limitedBody reads at most limit bytes of a request body and remembers whether the body was
// longer, so the error of whatever decoder read it becomes 413 rather than a JSON error.
type limitedBody struct {
	r        io.ReadCloser
	left     int64
	limit    int64
	exceeded bool
	// route is set when the limit is the route's own, not the server's --max-body.
	route bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe for one more byte: a body of exactly limit bytes is fine.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			b.exceeded = true
			return 0, tooLarge(b.limit, b.route)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }

// tooLarge is the 413 error for a body over limit bytes; route says the limit is the route's own
// (a fixed bound of its format) rather than the server's --max-body, so the message never points
// at a flag that would not help.
func tooLarge(limit int64, route bool) error {
	if route {
		return httpError(CodeTooLarge, fmt.Sprintf("the request body is larger than %d bytes, the most this route takes", limit))
	}
	return httpError(CodeTooLarge, fmt.Sprintf("the request body is larger than %d bytes (the server's --max-body)", limit))
}

// readAll reads the whole (limited) body.
func readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		var ae *annals.Error
		if errors.As(err, &ae) {
			return nil, err // too large, too deep, or past the deadline: the guard's own words
		}
		return nil, annals.Errorf(annals.EINVALID, "cannot read the request body: %v", err)
	}
	return b, nil
}

// decodeStrict decodes exactly one JSON value from r into v, refusing unknown fields (by name),
// wrong types (naming the field) and trailing data; its check stops when ctx ends.
func decodeStrict(ctx context.Context, r io.Reader, v any) error {
	body, err := readAll(r)
	if err != nil {
		return err
	}
	if err := strictjson.CheckContext(ctx, body, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return strictjson.DecodeError(err, emptyBody)
	}
	if _, err := dec.Token(); err != io.EOF {
		if isCode(err, CodeTooLarge) {
			return err
		}
		return annals.Errorf(annals.EINVALID, "the request body holds more than one JSON value")
	}
	return nil
}

// emptyBody is the error for a body with no JSON value.
const emptyBody = "the request body is empty (want a JSON object)"

// The capture routes read the records of the capture format (docs/FORMAT.md) and decode them
// with the ingest package's decoder, so a chat, an entry, a run or a truncation posted over HTTP
// is checked by exactly the rules, and described by exactly the messages, of `annals ingest`.
// A body may leave out the fields the route already implies: "type", and the "chat_id" given in
// the path.

// asLine rewrites one JSON object as one capture-format line of record type typ. chatID, when
// set, is the chat named by the path: a chat_id in the object must agree with it. A value that
// is not a JSON object is returned unchanged, so the decoder reports it in its own words.
func asLine(raw []byte, typ, chatID string) ([]byte, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return trimmed, nil
	}
	// A map keeps the last of two equal keys: a repeated field is refused before it could be.
	if err := strictjson.Check(trimmed, nil); err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &members); err != nil {
		return trimmed, nil
	}
	if t, ok := members["type"]; ok {
		var s string
		if json.Unmarshal(t, &s) != nil || s != typ {
			return nil, annals.Errorf(annals.EINVALID, "type: this route takes %s records, got %s", typ, t)
		}
	}
	members["type"] = json.RawMessage(`"` + typ + `"`)
	if chatID != "" {
		if c, ok := members["chat_id"]; ok {
			var s string
			if json.Unmarshal(c, &s) != nil || s != chatID {
				return nil, annals.Errorf(annals.EINVALID, "%s.chat_id %s differs from the chat in the path (%q); leave it out or make it match", typ, c, chatID)
			}
		}
		id, _ := json.Marshal(chatID)
		members["chat_id"] = id
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return nil, annals.Internal("rewrite record", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decodeRecord decodes one JSON object body as one capture-format record of type typ.
func decodeRecord(body []byte, typ, chatID string, now time.Time) (annals.CaptureOp, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "the request body is empty (want a JSON %s object; see docs/FORMAT.md)", typ)
	}
	if bytes.ContainsAny(bytes.TrimSpace(body), "\n") {
		// A pretty-printed object is one record; the decoder reads lines, so compact it.
		var buf bytes.Buffer
		if json.Compact(&buf, bytes.TrimSpace(body)) == nil {
			body = buf.Bytes()
		}
	}
	line, err := asLine(body, typ, chatID)
	if err != nil {
		return annals.CaptureOp{}, err
	}
	dec := ingest.NewDecoderOptions(bytes.NewReader(line), ingest.DecoderOptions{Now: func() time.Time { return now }})
	l, err := dec.Next()
	if err != nil {
		return annals.CaptureOp{}, withoutLine(err, "")
	}
	if _, err := dec.Next(); err != io.EOF {
		return annals.CaptureOp{}, annals.Errorf(annals.EINVALID, "the request body holds more than one JSON value (this route takes one %s object)", typ)
	}
	return l.Op, nil
}

// withoutLine replaces the decoder's "line N: " prefix with prefix (a JSON path such as
// "entries[3]: ", or nothing for a single-object body).
func withoutLine(err error, prefix string) error {
	var le *ingest.LineError
	if !errors.As(err, &le) {
		return err
	}
	return &annals.Error{Code: annals.ErrorCode(le.Err), Message: prefix + annals.ErrorMessage(le.Err), Err: err}
}

// decodeEntries reads the body of POST /v1/sessions/{id}/entries: either one JSON object
// {"entries": [...]} or JSON Lines with one entry object per line. Every entry is decoded as an
// entry line of the capture format for chat chatID.
func decodeEntries(ctx context.Context, body []byte, chatID string, now time.Time) ([]*annals.Entry, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, annals.Errorf(annals.EINVALID, `the request body is empty (want {"entries": [...]} or JSON Lines of entry objects; see docs/FORMAT.md)`)
	}
	var (
		lines   [][]byte
		wrapped bool
	)
	var env struct {
		Entries []json.RawMessage `json:"entries"`
	}
	if isEnvelope(trimmed) {
		wrapped = true
		if err := decodeStrict(ctx, bytes.NewReader(trimmed), &env); err != nil {
			return nil, err
		}
		if env.Entries == nil {
			return nil, annals.Errorf(annals.EINVALID, `"entries" must be a list of entry objects`)
		}
		for _, e := range env.Entries {
			var buf bytes.Buffer
			if err := json.Compact(&buf, e); err != nil {
				return nil, strictjson.DecodeError(err, emptyBody)
			}
			lines = append(lines, buf.Bytes())
		}
	} else {
		lines = bytes.Split(body, []byte("\n"))
	}
	if len(lines) > annals.MaxBatchEntries {
		// Blank lines are counted too; they are rare in a request and make no difference here.
		nonBlank := 0
		for _, l := range lines {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if nonBlank > annals.MaxBatchEntries {
			return nil, annals.Errorf(annals.EINVALID, "the request carries %d entries (at most %d per request; send the rest in another)", nonBlank, annals.MaxBatchEntries)
		}
	}
	var input bytes.Buffer
	for i, l := range lines {
		if err := ctx.Err(); err != nil {
			return nil, strictjson.Stopped(ctx)
		}
		rewritten, err := asLine(l, "entry", chatID)
		if err != nil {
			return nil, annals.Errorf(annals.EINVALID, "%s%s", position(wrapped, i), annals.ErrorMessage(err))
		}
		input.Write(rewritten)
		input.WriteByte('\n')
	}
	dec := ingest.NewDecoderOptions(&input, ingest.DecoderOptions{Now: func() time.Time { return now }})
	var entries []*annals.Entry
	for {
		l, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var le *ingest.LineError
			if wrapped && errors.As(err, &le) {
				return nil, withoutLine(err, position(true, le.Line-1))
			}
			return nil, err
		}
		entries = append(entries, l.Op.Append.Entries...)
	}
	if len(entries) == 0 {
		return nil, annals.Errorf(annals.EINVALID, "the request carries no entries")
	}
	return entries, nil
}

// isEnvelope reports whether body is a JSON object with an "entries" member (an entry object
// never has one).
func isEnvelope(body []byte) bool {
	if body[0] != '{' {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) != nil {
		return false
	}
	_, ok := probe["entries"]
	return ok
}

func position(wrapped bool, i int) string {
	if wrapped {
		return fmt.Sprintf("entries[%d]: ", i)
	}
	return fmt.Sprintf("line %d: ", i+1)
}
