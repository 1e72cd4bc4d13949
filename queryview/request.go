package queryview

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/strictjson"
	"github.com/annals-dev/annals/view"
)

// Kinds of query, in the order the reference documents them.
const (
	KindAgents       = "agents"
	KindSessions     = "sessions"
	KindTranscript   = "transcript"
	KindConversation = "conversation"
	KindSearch       = "search"
)

// Kinds lists every query kind, for GET /healthz ({"ok": true, "kinds": [...]}) and beside the
// refusal of an unknown kind, in the reference's order (sorted). It returns a new slice on every
// call, so a caller may change it freely.
func Kinds() []string {
	return []string{KindAgents, KindConversation, KindSearch, KindSessions, KindTranscript}
}

// MaxBodyBytes bounds a query body. The largest legitimate body (20 channel prefixes of 1 KiB) is
// far below it.
const MaxBodyBytes = 1 << 20

// Int is an integer parameter as the reference reads it, int(value or default): a JSON integer,
// a fraction (cut toward zero: 3.9 is 3), true or false (1 and 0) or a string holding an integer
// as Python's int() reads it (" 12 ", "+1_000"; not "3.5"). Its web UI's GET proxy passes query
// parameters on as strings, and its liveness probe sends {"kind":"agents","limit":"1"}.
type Int int64

// UnmarshalJSON reads an integer parameter as the reference does. A falsy value (null, false,
// 0, "", [], {}) is 0, not given, and takes the default; a value given that reads as 0 ("0",
// 0.5) is kept as -1, which a limit clamps to 1 as the reference's max(1, ...) does.
func (n *Int) UnmarshalJSON(b []byte) error {
	if falsy(b) {
		*n = 0
		return nil
	}
	v, ok := pyInt(b)
	if !ok {
		return &json.UnmarshalTypeError{Value: "value " + string(b), Type: reflect.TypeOf(int64(0))}
	}
	if v == 0 {
		v = -1
	}
	*n = Int(v)
	return nil
}

// Ignored is a parameter the reference accepts and never reads (the agents kind's limit): any
// JSON value.
type Ignored struct{}

// UnmarshalJSON accepts any value.
func (Ignored) UnmarshalJSON([]byte) error { return nil }

// AgentsRequest asks for the agent nouns in scope with their sessions.
type AgentsRequest struct {
	Kind  string `json:"kind,omitempty"`
	Scope string `json:"scope,omitempty"`
	// Limit is accepted, whatever its value, and ignored, as the reference does: its UI probes
	// liveness with {"kind":"agents","limit":"1"}.
	Limit *Ignored `json:"limit,omitempty"`
	// Annals holds annals's own options (opt-in; see Options).
	Annals *Options `json:"annals,omitempty"`
}

// SessionsRequest asks for sessions in scope, most recent activity first.
type SessionsRequest struct {
	Kind  string `json:"kind,omitempty"`
	Scope string `json:"scope,omitempty"`
	// Agent keeps the sessions linked to that agent noun; empty means every session.
	Agent string `json:"agent,omitempty"`
	// Limit: 0 means 500 (the reference's page); capped at 1000; below 0 means 1.
	Limit Int `json:"limit,omitempty"`
	// Annals holds annals's own options (opt-in; see Options).
	Annals *Options `json:"annals,omitempty"`
}

// TranscriptRequest asks for a page of one session, paging backwards.
type TranscriptRequest struct {
	Kind    string `json:"kind,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Session string `json:"session"`
	// Limit: 0 means 80; capped at 200; below 0 means 1.
	Limit Int `json:"limit,omitempty"`
	// BeforeID is a message id (an entry seq within the session, or lanius's id of a message of
	// an imported lanius session): the page holds the messages before it. As in the reference
	// (int(before_id) unless it is null) it may be an integer, a fraction (cut toward zero), true
	// or false, or a string holding an integer; null starts at the newest message; 0, false and
	// anything below the first id give an empty page.
	BeforeID BeforeID `json:"before_id,omitempty"`
	Select   *Select  `json:"select,omitempty"`
	// Annals holds annals's own options (opt-in; see Options).
	Annals *Options `json:"annals,omitempty"`
}

// ConversationRequest asks for the messages sharing a correlation id, in every session in scope.
type ConversationRequest struct {
	Kind        string `json:"kind,omitempty"`
	Scope       string `json:"scope,omitempty"`
	Correlation string `json:"correlation"`
	// Limit: 0 means 200; capped at 1000; below 0 means 1.
	Limit Int `json:"limit,omitempty"`
	// Cursor is the cursor of the previous answer.
	Cursor string  `json:"cursor,omitempty"`
	Select *Select `json:"select,omitempty"`
	// Annals holds annals's own options (opt-in; see Options).
	Annals *Options `json:"annals,omitempty"`
}

// SearchRequest is the query DSL: filter x projection x pagination.
type SearchRequest struct {
	Kind   string  `json:"kind,omitempty"`
	Scope  string  `json:"scope,omitempty"`
	Filter *Filter `json:"filter,omitempty"`
	Select *Select `json:"select,omitempty"`
	Page   *Page   `json:"page,omitempty"`
	// Annals holds annals's own options (opt-in; see Options).
	Annals *Options `json:"annals,omitempty"`
}

// Involvement values of a search filter.
const (
	InvolvementAll   = "all"
	InvolvementAgent = "agent"
)

// Filter narrows a search. Every set field must hold.
type Filter struct {
	// Channels are channel prefixes matched on whole segments; values are literal.
	Channels []string `json:"channels,omitempty"`
	// Involvement is "all" (default) or "agent": only sessions linked to an agent.
	Involvement string `json:"involvement,omitempty"`
	// Roles are entry kinds: user, assistant, tool, system, event.
	Roles []string `json:"roles,omitempty"`
	// Text is a substring that must occur in the content, as in the reference: SQL LIKE's
	// match (ASCII letters in either case, %, _ and \ literal), looked up in a trigram index.
	Text string `json:"text,omitempty"`
	// Words is annals's own: literal words that must all occur, matched through the full-text
	// index (whole words, case- and accent-insensitive).
	Words string `json:"words,omitempty"`
	// Since and Until are RFC3339 times bounding the message time, inclusively.
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
}

// Select is the projection. Absent fields keep everything.
type Select struct {
	// ToolCalls false drops the call half of tool messages: tool name and arguments.
	ToolCalls *bool `json:"tool_calls,omitempty"`
	// Reasoning false strips recorded reasoning.
	Reasoning *bool `json:"reasoning,omitempty"`
	// ToolResults is true (keep), false (drop tool messages) or {"truncate": N}.
	ToolResults *ToolResults `json:"tool_results,omitempty"`
}

// ToolResults is the tool_results projection. Its zero value keeps results whole (up to the
// content cap).
type ToolResults struct {
	// Drop leaves tool messages out (JSON false): as in the reference, after the page is cut, so
	// a page may hold fewer messages than its limit while more follow.
	Drop bool
	// Truncate cuts results to that many characters (JSON {"truncate": N}), marking a cut one
	// with "…" and truncated_to; a negative N keeps all but the last -N characters, as the
	// reference's content[:N] does.
	Truncate *int
	// TruncatedTo is what the answer says as truncated_to: N, or the JSON true or false given
	// (the reference reads them as 1 and 0, and echoes them).
	TruncatedTo json.RawMessage
}

// MarshalJSON writes true, false or {"truncate": N}.
func (t ToolResults) MarshalJSON() ([]byte, error) {
	switch {
	case t.Drop:
		return []byte("false"), nil
	case t.Truncate != nil && t.TruncatedTo != nil:
		return json.Marshal(map[string]json.RawMessage{"truncate": t.TruncatedTo})
	case t.Truncate != nil:
		return json.Marshal(map[string]int{"truncate": *t.Truncate})
	}
	return []byte("true"), nil
}

// UnmarshalJSON reads tool_results as the reference does: false drops tool messages; an object
// whose truncate is an integer (true and false are integers to Python) truncates results to
// max(0, truncate) characters, echoing that in truncated_to (true stays true, as Python's
// max(0, True) is True; false is 0); every other value (true, a number, a string, null, an
// object without an integer truncate) keeps them whole.
func (t *ToolResults) UnmarshalJSON(b []byte) error {
	*t = ToolResults{}
	b = bytes.TrimSpace(b)
	if string(b) == "false" {
		t.Drop = true
		return nil
	}
	var obj map[string]json.RawMessage
	if !bytes.HasPrefix(b, []byte("{")) || json.Unmarshal(b, &obj) != nil {
		return nil
	}
	raw := bytes.TrimSpace(obj["truncate"])
	var n int
	var echo json.RawMessage
	switch string(raw) {
	case "true":
		n, echo = 1, json.RawMessage("true")
	default:
		v, err := strconv.ParseInt(string(raw), 10, 64)
		if string(raw) == "false" {
			v, err = 0, nil
		}
		if err != nil {
			return nil // a fraction, a string, ...: no integer, no truncation
		}
		n = int(min(max(v, 0), math.MaxInt32))
		echo = strconv.AppendInt(nil, max(v, 0), 10)
	}
	t.Truncate, t.TruncatedTo = &n, echo
	return nil
}

// Page is the pagination of a search.
type Page struct {
	// Limit: 0 means 100; capped at 500; below 0 means 1.
	Limit Int `json:"limit,omitempty"`
	// Cursor is the cursor of the previous answer.
	Cursor Cursor `json:"cursor,omitempty"`
}

// Cursor is a search cursor as a client of the reference passes it: the previous answer's
// cursor, a number or a string. A falsy one (0, "", false, null) means none, as in the
// reference.
type Cursor string

// UnmarshalJSON reads a cursor as the reference does (int(cursor) when it is truthy): a string
// as it is (an annals cursor, or a reference id as a string), a number cut toward zero to its
// decimal text, true as 1, and a falsy value as no cursor. Other values are refused.
func (c *Cursor) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case falsy(b):
		*c = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Cursor(s)
	default:
		v, ok := pyInt(b)
		if !ok {
			return &json.UnmarshalTypeError{Value: "value " + string(b), Type: reflect.TypeOf("")}
		}
		*c = Cursor(strconv.FormatInt(v, 10))
	}
	return nil
}

// BeforeID is a transcript's before_id as the reference reads it: int(before_id) unless it is
// null. It holds the id in decimal, or "" for none.
type BeforeID string

// UnmarshalJSON reads null as none and anything else as Python's int() does (an integer, a
// fraction cut toward zero, true or false, a string holding an integer); any other value, ""
// and "95750.5" among them, is refused, as the reference refuses it.
func (id *BeforeID) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*id = ""
		return nil
	}
	v, ok := pyInt(b)
	if !ok {
		return &json.UnmarshalTypeError{Value: "value " + string(b), Type: reflect.TypeOf(int64(0))}
	}
	*id = BeforeID(strconv.FormatInt(v, 10))
	return nil
}

// The nested objects decode strictly on their own, so an unknown field is named with its path
// and the fields that object takes.

// UnmarshalJSON decodes a filter strictly.
func (f *Filter) UnmarshalJSON(b []byte) error {
	type plain Filter
	return strictObject(b, (*plain)(f), "filter.", "filter")
}

// UnmarshalJSON decodes a projection strictly.
func (s *Select) UnmarshalJSON(b []byte) error {
	type plain Select
	return strictObject(b, (*plain)(s), "select.", "select")
}

// UnmarshalJSON decodes pagination strictly.
func (p *Page) UnmarshalJSON(b []byte) error {
	type plain Page
	return strictObject(b, (*plain)(p), "page.", "page")
}

// readBody reads a query's body, at most MaxBodyBytes.
func readBody(body io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, MaxBodyBytes+1))
	if err != nil {
		if ae := (*annals.Error)(nil); errors.As(err, &ae) {
			return nil, err // the transport's refusal (too deep, too large, too late), in its words
		}
		return nil, annals.Errorf(annals.EINVALID, "cannot read the request body")
	}
	if len(b) > MaxBodyBytes {
		return nil, annals.Errorf(annals.EINVALID, "the request body is larger than %d bytes", MaxBodyBytes)
	}
	return b, nil
}

// decode decodes one JSON object, a body readBody read, into the request type of its kind.
func decode(ctx context.Context, b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(err, "", "the request", nil)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, annals.Errorf(annals.EINVALID, "the request body holds more than one JSON value")
	}
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, annals.Errorf(annals.EINVALID, "the request body must be a JSON object with a kind (want one of: %s)", strings.Join(Kinds(), ", "))
	}
	var head struct {
		Kind json.RawMessage `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, jsonError(err, "", "the request", nil)
	}
	var kind string
	if len(head.Kind) > 0 {
		if err := json.Unmarshal(head.Kind, &kind); err != nil {
			return nil, &Refusal{Kinds: Kinds(), Err: annals.Errorf(annals.EINVALID, "field \"kind\" must be a string (want one of: %s)", strings.Join(Kinds(), ", "))}
		}
	}
	var req any
	switch kind {
	case KindAgents:
		req = &AgentsRequest{}
	case KindSessions:
		req = &SessionsRequest{}
	case KindTranscript:
		req = &TranscriptRequest{}
	case KindConversation:
		req = &ConversationRequest{}
	case KindSearch:
		req = &SearchRequest{}
	case "":
		// The reference lists its kinds beside this refusal too.
		return nil, &Refusal{Kinds: Kinds(), Err: annals.Errorf(annals.EINVALID, "kind is required (want one of: %s)", strings.Join(Kinds(), ", "))}
	default:
		return nil, &Refusal{Kinds: Kinds(), Err: annals.Errorf(annals.EINVALID, "unknown kind %q (want one of: %s)", kind, strings.Join(Kinds(), ", "))}
	}
	// Like the reference, a query's unknown fields (and names in another case) are ignored
	// unless annals.strict asks for them to be refused by name. Either way the text must be
	// valid UTF-8 and no field may be given twice: which of two values counts is no question a
	// query should leave to the parser.
	if strictRequested(raw) {
		if err := strictjson.CheckContext(ctx, raw, req); err != nil {
			return nil, &Refusal{Kind: kind, Err: err}
		}
	} else {
		if err := strictjson.CheckContext(ctx, raw, nil); err != nil {
			return nil, &Refusal{Kind: kind, Err: err}
		}
		raw = prune(raw, reflect.TypeOf(req))
	}
	// Fields of another kind are unknown here too: the message names the kind asked for.
	if err := strictObject(raw, req, "", "kind "+kind); err != nil {
		return nil, &Refusal{Kind: kind, Err: err}
	}
	return req, nil
}

// Refusal is a refused query with what the reference answers beside the message: the kind
// asked for, once it is a known one, and for an unknown kind the kinds there are. The error it
// wraps says what was wrong (annals.ErrorCode and annals.ErrorMessage read through it).
type Refusal struct {
	Kind  string
	Kinds []string
	Err   error
}

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// strictObject decodes b into v refusing unknown fields; prefix is v's path in field names and
// what names v in the message about an unknown field.
func strictObject(b []byte, v any, prefix, what string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, prefix, what, v)
	}
	return nil
}

// jsonError turns a decoding error into an invalid error naming the field and, for an unknown
// field, the fields the object takes.
func jsonError(err error, prefix, what string, v any) error {
	var ae *annals.Error
	if errors.As(err, &ae) {
		return err
	}
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return annals.Errorf(annals.EINVALID, "the request body is empty (want a JSON object with a kind: %s)", strings.Join(Kinds(), ", "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return annals.Errorf(annals.EINVALID, "%s must be %s, not JSON %s", strings.TrimSuffix(prefixOr(prefix, "the request"), "."), describe(typ.Type), typ.Value)
		}
		return annals.Errorf(annals.EINVALID, "field %q must be %s, not JSON %s", prefix+typ.Field, describe(typ.Type), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return annals.Errorf(annals.EINVALID, "unknown field %q (%s takes: %s)", prefix+name, what, strings.Join(jsonFields(v), ", "))
	}
	return strictjson.DecodeError(err, "")
}

func prefixOr(prefix, def string) string {
	if prefix == "" {
		return def
	}
	return prefix
}

// describe names a Go type the way a JSON client thinks of it.
func describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer (or a string holding one)"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(describe(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

// jsonFields lists the JSON names of a struct's fields, so messages never drift from the types.
func jsonFields(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// words splits text into literal words: runs of letters, digits and combining marks, the
// characters the full-text tokenizer keeps. Everything else separates words and is never syntax.
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
}

// storedTime is how lanius stores a time, and so what the reference compares its bounds with,
// as text: UTC to the millisecond.
const storedTime = "2006-01-02T15:04:05.000Z"

// timeBound reads a since or until bound as the reference does: it compares the text given with
// every stored time as text (created_at >= since, created_at < until), whatever the text is
// ("2026-06-01T00:00:00Z", "2026-06-13", "2026-05", "2026-06-01T00:00:00+02:00", "yesterday").
// Stored times sort as the instants they name, so the text splits them at one instant: the
// first millisecond whose stored form sorts at or after s, found by bisection over the range
// annals stores. first reports that every stored time sorts at or after s, none that none does.
// An entry's time is compared at the millisecond, as lanius stores it.
func timeBound(s string) (t time.Time, first, none bool) {
	text := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(storedTime) }
	lo, hi := annals.MinTime.UnixMilli(), annals.MaxTime.UnixMilli()-1
	switch {
	case text(lo) >= s:
		return time.Time{}, true, false
	case text(hi) < s:
		return time.Time{}, false, true
	}
	// text(lo) < s <= text(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if text(mid) >= s {
			hi = mid
		} else {
			lo = mid
		}
	}
	return time.UnixMilli(hi).UTC(), false, false
}

// timeBounds sets a filter's inclusive time bounds from the reference's since and until, and
// reports whether they leave nothing to match.
func timeBounds(since, until string, f *view.Filter) (nothing bool) {
	if since != "" {
		t, first, none := timeBound(since)
		switch {
		case none:
			return true
		case !first:
			f.Since = &t
		}
	}
	if until != "" {
		t, first, none := timeBound(until)
		switch {
		case first:
			return true
		case !none:
			t = t.Add(-time.Nanosecond)
			f.Until = &t
		}
	}
	return f.Since != nil && f.Until != nil && f.Since.After(*f.Until)
}

// Cursors are opaque to clients: base64url of "<kind letter><version>|<unix nanos>|<seq>|<chat
// id>". The kind letter keeps a search cursor from being replayed as a conversation cursor (it
// would position a different order). A cursor is only a position: the owner constraint is
// applied again on every page, so a forged cursor reaches nothing new.
const (
	cursorSearch       = "s1"
	cursorConversation = "c1"
)

func encodeCursor(tag string, p *view.Position) *string {
	if p == nil {
		return nil
	}
	s := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%s|%d|%d|%s", tag, p.Time.UnixNano(), p.Seq, p.ChatID))
	return &s
}

func decodeCursor(field, tag, s string) (*view.Position, error) {
	if s == "" {
		return nil, nil
	}
	bad := annals.Errorf(annals.EINVALID, "%s is not a cursor of this kind of query (pass back the cursor of the previous answer unchanged)", field)
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	parts := strings.SplitN(string(b), "|", 4)
	if len(parts) != 4 || parts[0] != tag || parts[3] == "" {
		return nil, bad
	}
	nanos, err1 := strconv.ParseInt(parts[1], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || seq < 1 {
		return nil, bad
	}
	pos := &view.Position{Time: time.Unix(0, nanos).UTC(), ChatID: parts[3], Seq: seq}
	// Exactly what encodeCursor writes, or nothing: a hand-edited cursor that still happens to
	// decode (a sign, leading zeros, other padding bits) is refused too.
	if *encodeCursor(tag, pos) != s {
		return nil, bad
	}
	return pos, nil
}
