package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// POST /v1/_history answers as the loomcycle History tool's own HTTP route does, answer for
// answer, so that a client written for it (its @loomcycle/client, a LoomBoard-style UI) points at
// annals and keeps working: the tool's request fields, its answer shapes, its defaults and its
// refusals (422 {code: "tool_refused", error, tool}). It is a wire adapter over the history
// service: it decodes the tool's envelope, calls annals.HistoryService, and encodes the tool's
// answer; whose chats a call reaches, and every other decision, stays in the service.
// docs/HTTP.md lists what still differs and why.

// loomcycleTool is the tool name the reference puts in its refusals.
const loomcycleTool = "History"

// Wire defaults and caps of the tool, which a client of it relies on (it pages with the limit
// it is given back).
const (
	lcListDefault    = 50
	lcListMax        = 500
	lcRelatedDefault = 10
	lcRelatedMax     = 500
)

// lcOps is the op list the tool names when it refuses an unknown op.
const lcOps = "list, get, search, rename, annotate, pin, archive, recap, resume, related, window"

// lcRequest is the tool's input. It is decoded as the tool decodes it (encoding/json, no strict
// mode): a field the tool does not know is ignored, not refused, so a client sending a newer
// field (include_internal, quote) still works. AfterSeq and Cursor are annals's own, for a client
// that wants get to page.
type lcRequest struct {
	Op              string    `json:"op"`
	Scope           string    `json:"scope"`
	SessionID       string    `json:"session_id"`
	Status          string    `json:"status"`
	From            string    `json:"from"`
	To              string    `json:"to"`
	Tag             string    `json:"tag"`
	TitleContains   string    `json:"title_contains"`
	Match           string    `json:"match"`
	Query           string    `json:"query"`
	PinnedOnly      bool      `json:"pinned_only"`
	IncludeArchived bool      `json:"include_archived"`
	IncludeInternal bool      `json:"include_internal"`
	Limit           int       `json:"limit"`
	Offset          int       `json:"offset"`
	Format          string    `json:"format"`
	Title           *string   `json:"title"`
	Description     *string   `json:"description"`
	Tags            *[]string `json:"tags"`
	Pinned          *bool     `json:"pinned"`
	Archived        *bool     `json:"archived"`
	AfterSeq        int64     `json:"after_seq"`
	Cursor          string    `json:"cursor"`
}

// refusal is what the tool answers with 422: a message in the tool's words.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// RefusalBody is the body of a /v1/_history refusal, as the reference writes it.
type RefusalBody struct {
	Code  string `json:"code"`
	Error string `json:"error"`
	Tool  string `json:"tool"`
}

// handleLoomcycleHistory serves POST /v1/_history.
func (s *Server) handleLoomcycleHistory(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return annals.Errorf(annals.EINVALID, "empty body — expected History tool input JSON (an object with an op)")
	}
	if !json.Valid(body) {
		return annals.Errorf(annals.EINVALID, "body is not valid JSON")
	}
	out, err := s.lcDispatch(r.Context(), body)
	if err == nil {
		return writeJSON(w, http.StatusOK, out)
	}
	msg, ok := s.lcRefusal(err)
	if !ok {
		return err
	}
	return writeJSON(w, http.StatusUnprocessableEntity, RefusalBody{Code: "tool_refused", Error: msg, Tool: loomcycleTool})
}

// lcRefusal turns an error into the tool's refusal text. An internal error stays annals's 500
// (its cause logged), as the reference's own transport failures are not refusals either.
func (s *Server) lcRefusal(err error) (string, bool) {
	if rf, ok := err.(*refusal); ok {
		return rf.msg, true
	}
	switch annals.ErrorCode(err) {
	case annals.EINTERNAL, "":
		return "", false
	}
	return "history: " + annals.ErrorMessage(err), true
}

// lcDispatch decodes the tool's input and runs its op, in the order the tool checks things:
// the input, the op, the scope, then the op's own fields.
func (s *Server) lcDispatch(ctx context.Context, body []byte) (any, error) {
	var in lcRequest
	if !utf8.Valid(body) {
		// encoding/json would store U+FFFD in place of each bad byte: a title renamed that way
		// would not be the one the caller sent, so the input is refused instead.
		return nil, refuse("invalid input JSON: the body is not valid UTF-8; send text as UTF-8")
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, refuse("invalid input JSON: %v", err)
	}
	if in.Op == "" {
		return nil, refuse("missing required field: op")
	}
	if in.Scope == "" {
		// The tool's documented default: this caller's own chats, never the widest allowed.
		in.Scope = string(annals.ScopeSelf)
	}
	switch annals.Scope(in.Scope) {
	case annals.ScopeSelf, annals.ScopeUser, annals.ScopeTenant, annals.ScopeGlobal:
	default:
		return nil, refuse("history: unknown scope %q (want one of: self, user, tenant, global)", in.Scope)
	}
	switch in.Op {
	case "list":
		return s.lcList(ctx, &in, false)
	case "search":
		return s.lcList(ctx, &in, true)
	case "get":
		return s.lcGet(ctx, &in)
	case "rename", "annotate", "pin", "archive":
		return s.lcCurate(ctx, &in)
	case "recap":
		return s.lcRecap(ctx, &in)
	case "resume":
		return s.lcResume(ctx, &in)
	case "related":
		return s.lcRelated(ctx, &in)
	case "window":
		return nil, refuse("history: window is not available on this server (annals answers a turn's neighbours with POST /v1/history op get, around_seq and context)")
	}
	return nil, refuse("unknown op %q (want one of: %s)", in.Op, lcOps)
}

// lcQuery parses the list and search filters with the tool's texts for a bad value.
func lcQuery(in *lcRequest) (annals.ChatQuery, error) {
	q := annals.ChatQuery{Tag: in.Tag, TitleContains: in.TitleContains, PinnedOnly: in.PinnedOnly, IncludeArchived: in.IncludeArchived}
	if in.Status != "" {
		st, err := annals.ParseRunStatus(in.Status)
		if err != nil {
			return q, refuse("history: unknown status %q (want one of: running, completed, failed, cancelled)", in.Status)
		}
		q.Status = &st
	}
	for _, b := range []struct {
		name, v string
		dst     **time.Time
	}{{"from", in.From, &q.From}, {"to", in.To, &q.To}} {
		if b.v == "" {
			continue
		}
		t, err := annals.ParseTimeBound(b.name, b.v, b.name == "to")
		if err != nil {
			return q, refuse("history: %s", annals.ErrorMessage(err))
		}
		*b.dst = t
	}
	return q, nil
}

// effectiveLimit is the tool's clamp: zero or less is the default, more than max is max.
func effectiveLimit(limit, def, max int) int {
	switch {
	case limit <= 0:
		return def
	case limit > max:
		return max
	}
	return limit
}

// lcList serves list, and search, which is list with its query as a case-insensitive title
// substring (the tool's search matches titles only).
func (s *Server) lcList(ctx context.Context, in *lcRequest, search bool) (any, error) {
	q, err := lcQuery(in)
	if err != nil {
		return nil, err
	}
	if search {
		switch strings.ToLower(strings.TrimSpace(in.Match)) {
		case "", "title":
		case "content":
			return nil, refuse("history: search match \"content\" is not available on this server (annals searches what was said with POST /v1/history op search)")
		default:
			return nil, refuse("history: unknown match %q (want one of: title, content)", in.Match)
		}
		if strings.TrimSpace(in.Query) == "" {
			return nil, refuse("history: search requires a non-empty query")
		}
		q.TitleContains = in.Query
	}
	limit := effectiveLimit(in.Limit, lcListDefault, lcListMax)
	page, err := s.historyFor(ctx).FindChats(ctx, annals.ListParams{Scope: annals.Scope(in.Scope), Filter: q,
		Page: annals.PageParams{Limit: limit, Offset: max(in.Offset, 0)}})
	if err != nil {
		return nil, err
	}
	rows := make([]lcChatRow, 0, len(page.Chats))
	for _, c := range page.Chats {
		rows = append(rows, chatRow(c))
	}
	return &LoomcycleList{Scope: page.Scope, Chats: rows, Total: page.Total, Limit: limit, Offset: in.Offset}, nil
}
