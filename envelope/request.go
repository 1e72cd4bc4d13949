// Package envelope is the op envelope {op, ...}: the one request shape that POST /v1/history,
// the MCP server's history meta-tool and the Go client speak. It decodes an envelope strictly,
// runs it against any annals.HistoryService (Dispatch: the op's typed call, answered in the
// envelope's shape), renders snippet marks for the caller, and turns typed parameters back into
// the envelope that means them, for clients. The typed service decides everything; the
// envelope only parses strings, names fields and renders marks.
package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/strictjson"
)

// Search modes, as the envelope names them.
const (
	ModeChats   = string(annals.SearchChatsMode)
	ModeEntries = string(annals.SearchEntriesMode)
)

// Request is the one op-discriminated request shape every transport decodes into. Each op reads
// the fields it documents and ignores the rest; the owner is never part of it.
type Request struct {
	Op    string `json:"op"`
	Scope string `json:"scope,omitempty"`

	// SessionID names the chat of a by-id op (get, rename, annotate, pin, archive, recap, resume,
	// delete) and the source chat of related.
	SessionID string `json:"session_id,omitempty"`

	// List and search filters.
	Status          string               `json:"status,omitempty"`
	From            string               `json:"from,omitempty"`
	To              string               `json:"to,omitempty"`
	Tag             string               `json:"tag,omitempty"`
	TitleContains   string               `json:"title_contains,omitempty"`
	IDPrefix        string               `json:"id_prefix,omitempty"`
	Attributes      map[string]AttrValue `json:"attributes,omitempty"`
	Agent           string               `json:"agent,omitempty"`
	PinnedOnly      bool                 `json:"pinned_only,omitempty"`
	IncludeArchived bool                 `json:"include_archived,omitempty"`
	Limit           int                  `json:"limit,omitempty"`
	Offset          int                  `json:"offset,omitempty"`
	Cursor          string               `json:"cursor,omitempty"`

	// Query is the text of search (in the search language, docs/QUERY.md) and of a free-text
	// related.
	Query string `json:"query,omitempty"`
	// In narrows search to fields: title, description, summary, tags, body, tools.
	In []string `json:"in,omitempty"`
	// Sort orders search results: relevance (default) or recent.
	Sort string `json:"sort,omitempty"`
	// Rank ranks search results: lexical, hybrid or semantic; empty: the history's default
	// (docs/QUERY.md, "Which ranking a search uses").
	Rank string `json:"rank,omitempty"`
	// Mode is chats (default: ranked chats with snippets) or entries (matching entries, for
	// jumping to the message).
	Mode string `json:"mode,omitempty"`
	// MarkOpen and MarkClose surround matched terms in snippets (default « and », which no
	// redaction placeholder holds).
	MarkOpen  string `json:"mark_open,omitempty"`
	MarkClose string `json:"mark_close,omitempty"`
	// Explain asks search to say how it ran (the answer's explain: the index used, each
	// prefix's words).
	Explain bool `json:"explain,omitempty"`

	// Get: format, paging by cursor or after_seq, or a window around_seq with context.
	Format    string `json:"format,omitempty"`
	AfterSeq  int64  `json:"after_seq,omitempty"`
	AroundSeq int64  `json:"around_seq,omitempty"`
	// Context is how many entries around_seq shows on each side (default 5, at most 100; 0 is
	// just the entry itself).
	Context *int `json:"context,omitempty"`

	// Usage: the zone days and hours are counted in (an IANA name; default UTC) and how many
	// chats each top list holds.
	Zone string `json:"zone,omitempty"`
	Top  int    `json:"top,omitempty"`

	// Curate.
	Title       *string   `json:"title,omitempty"`
	Description *string   `json:"description,omitempty"`
	Tags        *[]string `json:"tags,omitempty"`
	Pinned      *bool     `json:"pinned,omitempty"`
	Archived    *bool     `json:"archived,omitempty"`
}

// AttrValue matches one attribute: a JSON string matches exactly; {"contains": "x"} matches a
// case-sensitive substring.
type AttrValue struct {
	Value    string
	Contains bool
}

// UnmarshalJSON accepts "value" or {"contains": "value"}.
func (a *AttrValue) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = AttrValue{Value: s}
		return nil
	}
	var obj struct {
		Contains *string `json:"contains"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil || obj.Contains == nil {
		return annals.Errorf(annals.EINVALID, `an attribute filter is a string (exact match) or {"contains": "text"}`)
	}
	*a = AttrValue{Value: *obj.Contains, Contains: true}
	return nil
}

// MarshalJSON writes the form UnmarshalJSON reads.
func (a AttrValue) MarshalJSON() ([]byte, error) {
	if a.Contains {
		return json.Marshal(map[string]string{"contains": a.Value})
	}
	return json.Marshal(a.Value)
}

// DecodeRequest decodes one JSON envelope strictly: unknown fields are refused by name, wrong
// types say which field, trailing data is refused.
func DecodeRequest(r io.Reader) (*Request, error) {
	return DecodeRequestContext(context.Background(), r)
}

// DecodeRequestContext is DecodeRequest whose strict check stops (unavailable) once ctx ends:
// a request's decoding ends at the request's deadline.
func DecodeRequestContext(ctx context.Context, r io.Reader) (*Request, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, strictjson.DecodeError(err, emptyEnvelope)
	}
	// Exact names, each once, in valid UTF-8: encoding/json alone would match "OP" to op and
	// keep the last of two "scope" keys.
	if err := strictjson.CheckContext(ctx, body, &Request{}); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, sessionIDHint(body, strictjson.DecodeError(err, emptyEnvelope))
	}
	if dec.More() {
		return nil, annals.Errorf(annals.EINVALID, "the request body holds more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, annals.Errorf(annals.EINVALID, "the request body holds more than one JSON value")
	}
	return &req, nil
}

// sessionIDHint points a body that names the chat as "id" or "chat_id" (the names of the
// REST routes and of the capture format) at the envelope's "session_id".
func sessionIDHint(body []byte, err error) error {
	msg := annals.ErrorMessage(err)
	for _, name := range []string{"id", "chat_id"} {
		if msg != fmt.Sprintf("unknown field %q", name) {
			continue
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(body, &top) != nil {
			return err
		}
		if _, ok := top[name]; ok {
			return annals.Errorf(annals.EINVALID, "unknown field %q: did you mean \"session_id\"? (the envelope names the chat session_id)", name)
		}
	}
	return err
}

// emptyEnvelope is the error for a body with no JSON value.
const emptyEnvelope = "the request body is empty (want a JSON object with an op)"

func unknownOp(op string) error {
	if op == "" {
		return annals.Errorf(annals.EINVALID, "op is required (want one of: %s)", strings.Join(history.Ops, ", "))
	}
	return annals.Errorf(annals.EINVALID, "unknown op %q (want one of: %s)", op, strings.Join(history.Ops, ", "))
}
