// Package queryview is the codec of the lanius-style read-only history view: one JSON query
// object, decoded on its kind (agents, sessions, transcript, conversation, search), answered by
// the history service's view operations (view.Service, which fold the caller's scope into every
// SQL statement) and encoded as lanius answers. The HTTP server mounts it at POST /query and
// lists Kinds at GET /healthz; see docs/QUERYVIEW.md.
package queryview

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/view"
)

// View answers view queries through a view service. It holds no state besides the service, so
// one View serves any number of concurrent callers.
type View struct {
	svc   view.Service
	cache *Cache
}

// New returns a View over svc.
func New(svc view.Service) *View {
	return &View{svc: svc}
}

// NewCached returns a View over svc that keeps its answers of the kinds carrying messages in
// cache (see Cache) and gives them again, as Encoded, for the same query under the same version.
func NewCached(svc view.Service, cache *Cache) *View {
	return &View{svc: svc, cache: cache}
}

// Head starts every answer as the reference starts its own: {"ok": true, "kind": <kind>}.
type Head struct {
	OK   bool   `json:"ok"`
	Kind string `json:"kind"`
}

func head(kind string) Head { return Head{OK: true, Kind: kind} }

// AgentsAnswer lists the agent nouns in scope.
type AgentsAnswer struct {
	Head
	Agents []view.Agent `json:"agents"`
	// OrphanSessions are the sessions linked to no agent, under the reference's name; Unlinked
	// is the same list under annals's.
	OrphanSessions    []string `json:"orphan_sessions"`
	AgentsTruncated   bool     `json:"agents_truncated"`
	Unlinked          []string `json:"unlinked"`
	UnlinkedTruncated bool     `json:"unlinked_truncated"`
	// AgentsLimit and SessionsLimit are the bounds in force (sessions per agent, and unlinked).
	AgentsLimit   int          `json:"agents_limit"`
	SessionsLimit int          `json:"sessions_limit"`
	Scope         annals.Scope `json:"scope"`
}

// SessionsAnswer lists sessions in scope.
type SessionsAnswer struct {
	Head
	Sessions []view.Session `json:"sessions"`
	HasMore  bool           `json:"has_more"`
	Agent    string         `json:"agent,omitempty"`
	Limit    int            `json:"limit"`
	Scope    annals.Scope   `json:"scope"`
}

// Caps reports the content bounds in force on the messages of an answer.
type Caps struct {
	// ContentChars caps text, reasoning and tool arguments; ResultChars caps tool results.
	ContentChars int `json:"content_chars"`
	ResultChars  int `json:"result_chars"`
}

// TranscriptAnswer is one page of a session, oldest first.
type TranscriptAnswer struct {
	Head
	Session  string         `json:"session"`
	Messages []view.Message `json:"messages"`
	HasMore  bool           `json:"has_more"`
	// BeforeIDNext is the before_id of the next (older) page, set when HasMore.
	BeforeIDNext *int64 `json:"before_id_next,omitempty"`
	Limit        int    `json:"limit"`
	Caps
	Scope annals.Scope `json:"scope"`
}

// ConversationAnswer lists the events sharing a correlation id in ledger order, as the reference
// does, and the messages carrying it, oldest first.
type ConversationAnswer struct {
	Head
	Correlation string `json:"correlation"`
	// Events are the event entries with the correlation id, in capture order (an imported
	// ledger's own order), at most view.DefaultEvents; Truncated says more exist.
	Events    []Event `json:"events"`
	Truncated bool    `json:"truncated"`
	// Messages, HasMore and Cursor page every entry carrying the correlation id by time.
	Messages []view.Message `json:"messages"`
	HasMore  bool           `json:"has_more"`
	// Cursor continues after this page; null when there is nothing more.
	Cursor *string `json:"cursor"`
	Limit  int     `json:"limit"`
	Caps
	Scope annals.Scope `json:"scope"`
}

// SearchAnswer is one page of a search, newest first.
type SearchAnswer struct {
	Head
	Messages []view.Message `json:"messages"`
	HasMore  bool           `json:"has_more"`
	// Cursor continues after this page; null when there is nothing more.
	Cursor *string `json:"cursor"`
	Limit  int     `json:"limit"`
	Caps
	Scope annals.Scope `json:"scope"`
}

// Query decodes one JSON query object from body strictly (unknown fields are refused by name,
// wrong types name the field, trailing data is refused) and answers it. The answer is one of
// *AgentsAnswer, *SessionsAnswer, *TranscriptAnswer, *ConversationAnswer or *SearchAnswer; a
// View with a cache (NewCached) answers the three kinds that carry messages as Encoded.
// Errors: invalid, forbidden (the caller's principal allows no such scope), not_found (a
// transcript of a missing or out-of-scope session), unavailable, internal.
func (v *View) Query(ctx context.Context, body io.Reader) (any, error) {
	b, err := readBody(body)
	if err != nil {
		return nil, err
	}
	req, err := decode(ctx, b)
	if err != nil {
		return nil, err
	}
	if v.cache == nil {
		return v.answer(ctx, req)
	}
	scope, ok := messageScope(req)
	if !ok {
		return v.answer(ctx, req)
	}
	// The version is read before the answer's reads (view.Generations). An error here leaves
	// the answer to the query's own path, which refuses the same scope the same way.
	ver, ok, err := v.svc.ViewVersion(ctx, annals.Scope(scope))
	if err != nil || !ok {
		return v.answer(ctx, req)
	}
	k := cacheKey{version: ver.Key, query: string(b)}
	if kept, ok := v.cache.get(ver.Generation, k); ok {
		return Encoded(kept), nil
	}
	out, err := v.answer(ctx, req)
	if err != nil {
		return nil, err
	}
	enc, err := out.(interface{ AppendJSON([]byte) ([]byte, error) }).AppendJSON(nil)
	if err != nil {
		return out, nil // not kept: the transport's own encoding reports it
	}
	v.cache.put(ver.Generation, k, enc)
	return Encoded(enc), nil
}

// messageScope is the scope asked for by a query of a kind that carries messages (those Cache
// keeps); ok is false for the other kinds.
func messageScope(req any) (string, bool) {
	switch r := req.(type) {
	case *TranscriptRequest:
		return r.Scope, true
	case *ConversationRequest:
		return r.Scope, true
	case *SearchRequest:
		return r.Scope, true
	}
	return "", false
}

// answer answers a decoded query.
func (v *View) answer(ctx context.Context, req any) (any, error) {
	var err error
	var out any
	var kind string
	switch r := req.(type) {
	case *AgentsRequest:
		out, err = answer(v.Agents(ctx, r))
		kind = KindAgents
	case *SessionsRequest:
		out, err = answer(v.Sessions(ctx, r))
		kind = KindSessions
	case *TranscriptRequest:
		out, err = answer(v.Transcript(ctx, r))
		kind = KindTranscript
	case *ConversationRequest:
		out, err = answer(v.Conversation(ctx, r))
		kind = KindConversation
	default:
		out, err = answer(v.Search(ctx, req.(*SearchRequest)))
		kind = KindSearch
	}
	if err != nil {
		// The reference names the kind beside the message of a refused query.
		return nil, &Refusal{Kind: kind, Err: err}
	}
	return out, nil
}

// answer is one kind's answer as Query returns it: a nil interface on an error, not a typed
// nil.
func answer[T any](a *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Agents answers the agents kind. Errors: forbidden, invalid (scope), unavailable, internal.
func (v *View) Agents(ctx context.Context, req *AgentsRequest) (*AgentsAnswer, error) {
	if req == nil {
		req = &AgentsRequest{}
	}
	scope, err := v.svc.ViewScope(ctx, annals.Scope(req.Scope))
	if err != nil {
		return nil, err
	}
	got, err := v.svc.ViewAgents(ctx, scope, view.AgentsFilter{MaxAgents: view.MaxAgents,
		MaxSessions: view.MaxAgentSessions, ExcludeAttribute: LedgerAttribute})
	if err != nil {
		return nil, err
	}
	// The store keeps the most recently active agents and sessions when it must cut; the answer
	// lists them as the reference does, agents by noun and sessions by id.
	for i := range got.Agents {
		slices.Sort(sessionIDs(got.Agents[i].Sessions))
	}
	slices.SortFunc(got.Agents, func(a, b view.Agent) int { return strings.Compare(a.Agent, b.Agent) })
	slices.Sort(sessionIDs(got.Unlinked))
	return &AgentsAnswer{
		Head:   head(KindAgents),
		Agents: got.Agents, AgentsTruncated: got.AgentsTruncated, OrphanSessions: got.Unlinked,
		Unlinked: got.Unlinked, UnlinkedTruncated: got.UnlinkedTruncated,
		AgentsLimit: view.MaxAgents, SessionsLimit: view.MaxAgentSessions,
		Scope: scope,
	}, nil
}

// Sessions answers the sessions kind. Errors: forbidden, invalid, unavailable, internal.
func (v *View) Sessions(ctx context.Context, req *SessionsRequest) (*SessionsAnswer, error) {
	if req == nil {
		req = &SessionsRequest{}
	}
	scope, err := v.svc.ViewScope(ctx, annals.Scope(req.Scope))
	if err != nil {
		return nil, err
	}
	limit := limitOf(req.Limit, view.DefaultSessions, view.MaxSessions)
	f := view.SessionsFilter{Limit: limit, ExcludeAttribute: LedgerAttribute}
	if req.Agent != "" {
		f.Agent = &req.Agent
	}
	got, err := v.svc.ViewSessions(ctx, scope, f)
	if err != nil {
		return nil, err
	}
	for i := range got.Sessions {
		got.Sessions[i].ID = sessionID(got.Sessions[i].ID)
	}
	return &SessionsAnswer{Head: head(KindSessions), Sessions: got.Sessions, HasMore: got.HasMore, Agent: req.Agent, Limit: limit, Scope: scope}, nil
}

// Transcript answers the transcript kind. A missing session and one outside the caller's scope
// are the same not_found: chat "<id>" not found.
// Errors: forbidden, invalid, not_found, unavailable, internal.
func (v *View) Transcript(ctx context.Context, req *TranscriptRequest) (*TranscriptAnswer, error) {
	if req == nil {
		req = &TranscriptRequest{}
	}
	scope, err := v.svc.ViewScope(ctx, annals.Scope(req.Scope))
	if err != nil {
		return nil, err
	}
	if err := annals.ValidateID("session", req.Session); err != nil {
		return nil, err
	}
	limit := limitOf(req.Limit, view.DefaultTranscript, view.MaxTranscript)
	before, err := v.beforeSeq(ctx, scope, req)
	if err != nil {
		return nil, err
	}
	sel, caps, err := selectOf(req.Select)
	if err != nil {
		return nil, err
	}
	// The page's calls are read with it (the store reads only what the page lacks), unless
	// select.tool_calls false leaves them off, as it does in the reference.
	f := view.TranscriptFilter{ChatID: req.Session, BeforeSeq: before, Select: sel, Limit: limit, Calls: wantCalls(req.Select)}
	page, err := v.svc.ViewTranscript(ctx, scope, f)
	if annals.ErrorCode(err) == annals.ENOTFOUND && !strings.HasPrefix(req.Session, laniusChatPrefix) {
		// A client of the reference knows an imported session by its own id (s-982613bf); the
		// chat's own id wins when both exist. Same scope, same opaque not_found.
		f.ChatID = laniusChatPrefix + req.Session
		page, err = v.svc.ViewTranscript(ctx, scope, f)
	}
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		// The reference answers a session it has no messages of with an empty page, not an
		// error; annals does too, and the same for a session outside the caller's scope, so
		// the answer still tells nothing about what exists elsewhere.
		page, err = &view.Page{Messages: []view.Message{}}, nil
	}
	if err != nil {
		return nil, err
	}
	out := &TranscriptAnswer{Head: head(KindTranscript), Session: req.Session, Messages: renameMessages(page.Messages), HasMore: page.HasMore, Limit: limit, Caps: caps, Scope: scope}
	if page.HasMore && len(page.Messages) > 0 {
		next := page.Messages[0].ID
		out.BeforeIDNext = &next
	}
	out.Messages = shape(out.Messages, req.Select)
	return out, nil
}

// Conversation answers the conversation kind. Errors: forbidden, invalid, unavailable, internal.
func (v *View) Conversation(ctx context.Context, req *ConversationRequest) (*ConversationAnswer, error) {
	if req == nil {
		req = &ConversationRequest{}
	}
	scope, err := v.svc.ViewScope(ctx, annals.Scope(req.Scope))
	if err != nil {
		return nil, err
	}
	if err := annals.ValidateID("correlation", req.Correlation); err != nil {
		return nil, err
	}
	limit := limitOf(req.Limit, view.DefaultConversation, view.MaxConversation)
	after, err := decodeCursor("cursor", cursorConversation, req.Cursor)
	if err != nil {
		return nil, err
	}
	sel, caps, err := selectOf(req.Select)
	if err != nil {
		return nil, err
	}
	evs, err := v.svc.ViewEvents(ctx, scope, view.EventsFilter{CorrelationID: req.Correlation})
	if err != nil {
		return nil, err
	}
	events := make([]Event, len(evs.Events))
	for i, ev := range evs.Events {
		events[i] = eventOf(ev)
	}
	page, err := v.svc.ViewConversation(ctx, scope, view.ConversationFilter{CorrelationID: req.Correlation, After: after, Select: sel, Limit: limit, ExcludeAttribute: LedgerAttribute})
	if err != nil {
		return nil, err
	}
	if err := v.attachCalls(ctx, scope, page.Messages, req.Select); err != nil {
		return nil, err
	}
	return &ConversationAnswer{Head: head(KindConversation), Correlation: req.Correlation, Events: events, Truncated: evs.HasMore,
		Messages: shape(renameMessages(page.Messages), req.Select), HasMore: page.HasMore,
		Cursor: encodeCursor(cursorConversation, page.Next), Limit: limit, Caps: caps, Scope: scope}, nil
}

// Search answers the search kind. Errors: forbidden, invalid, unavailable, internal.
func (v *View) Search(ctx context.Context, req *SearchRequest) (*SearchAnswer, error) {
	if req == nil {
		req = &SearchRequest{}
	}
	scope, err := v.svc.ViewScope(ctx, annals.Scope(req.Scope))
	if err != nil {
		return nil, err
	}
	f := view.Filter{ExcludeAttribute: LedgerAttribute}
	nothing := false
	if err := filterOf(req.Filter, &f); errors.Is(err, errNothing) {
		nothing = true
	} else if err != nil {
		return nil, err
	}
	var page Page
	if req.Page != nil {
		page = *req.Page
	}
	f.Limit = limitOf(page.Limit, view.DefaultSearch, view.MaxSearch)
	var caps Caps
	if f.Select, caps, err = selectOf(req.Select); err != nil {
		return nil, err
	}
	empty := &SearchAnswer{Head: head(KindSearch), Messages: []view.Message{}, Limit: f.Limit, Caps: caps, Scope: scope}
	if nothing {
		return empty, nil
	}
	if id, ok := referenceID(string(page.Cursor)); ok {
		// A reference cursor is a message id, the page the messages before it. Nothing comes
		// before the first id; an id annals knows from an import is where the page starts.
		if id <= 1 {
			return empty, nil
		}
		if f.After, err = v.svc.ViewLocate(ctx, scope, view.LocateFilter{SourceID: laniusMessageSource(id)}); err != nil {
			return nil, err
		}
	} else if f.After, err = decodeCursor("page.cursor", cursorSearch, string(page.Cursor)); err != nil {
		return nil, err
	}
	got, err := v.svc.ViewSearch(ctx, scope, f)
	if err != nil {
		return nil, err
	}
	if err := v.attachCalls(ctx, scope, got.Messages, req.Select); err != nil {
		return nil, err
	}
	return &SearchAnswer{Head: head(KindSearch), Messages: shape(renameMessages(got.Messages), req.Select), HasMore: got.HasMore, Cursor: encodeCursor(cursorSearch, got.Next),
		Limit: f.Limit, Caps: caps, Scope: scope}, nil
}

// limitOf applies a limit's default and cap. Like the reference (max(1, min(limit or default,
// max))), a negative limit is clamped to 1 rather than refused.
func limitOf(n Int, def, max int) int {
	if n < 0 {
		return 1
	}
	if n > Int(max) {
		return max
	}
	return annals.EffectiveLimit(int(n), def, max)
}

// selectOf turns the projection into the store's, with the caps it implies. Dropping tool rows
// is not the store's: the answer drops them after the page is cut (dropToolRows), as the
// reference does.
func selectOf(s *Select) (view.Select, Caps, error) {
	caps := Caps{ContentChars: view.MaxContentChars, ResultChars: view.MaxContentChars}
	var sel view.Select
	if s == nil {
		return sel, caps, nil
	}
	sel.OmitReasoning = s.Reasoning != nil && !*s.Reasoning
	if tr := s.ToolResults; tr != nil && tr.Truncate != nil {
		n := min(max(*tr.Truncate, 0), view.MaxContentChars)
		sel.ResultChars = &n
		caps.ResultChars = n
	}
	return sel, caps, nil
}

// shape applies what the answer does to a page after the store cut it, as the reference does
// after its LIMIT: truncated_to echoes the truncate given (true stays true), and tool_results
// false drops the tool rows whose content is an object (a tool row stored as plain text is no
// object to the reference, and stays), so a page may hold fewer messages than its limit while
// more follow.
func shape(ms []view.Message, s *Select) []view.Message {
	if s == nil || s.ToolResults == nil {
		return ms
	}
	tr := s.ToolResults
	out := ms[:0]
	for _, m := range ms {
		if m.Role == annals.KindTool && tr.Drop && (len(m.Content.Stored) == 0 || m.Content.Stored[0] == '{') {
			continue
		}
		if t := m.Content.Tool; t != nil && tr.Truncate != nil && t.Result.Truncated {
			t.TruncatedTo = tr.TruncatedTo
		}
		out = append(out, m)
	}
	return out
}

// searchRoles are the roles a search filters on: the reference's three. annals's system and
// event entries are found by searching without a role filter.
var searchRoles = []annals.EntryKind{annals.KindUser, annals.KindAssistant, annals.KindTool}

// roleNames lists the roles a search filters on.
func roleNames() string {
	names := make([]string, len(searchRoles))
	for i, k := range searchRoles {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// filterOf validates a search filter into the store's.
func filterOf(in *Filter, f *view.Filter) error {
	if in == nil {
		return nil
	}
	if len(in.Channels) > view.MaxChannels {
		return annals.Errorf(annals.EINVALID, "filter.channels has %d prefixes (at most %d allowed)", len(in.Channels), view.MaxChannels)
	}
	for i, c := range in.Channels {
		// Taken as given, as the reference takes it: a trailing "/" is part of the prefix, and
		// "" finds the channels that start with "/" (none, usually).
		if len(c) > annals.MaxChannelBytes {
			return annals.Errorf(annals.EINVALID, "filter.channels[%d] is %d bytes long (at most %d allowed)", i, len(c), annals.MaxChannelBytes)
		}
		f.Channels = append(f.Channels, c)
	}
	switch in.Involvement {
	case "", InvolvementAll:
	case InvolvementAgent:
		// As in the reference: the message's own channel (its event's type) is in/agent/...
		f.AgentChannelOnly = true
	default:
		return annals.Errorf(annals.EINVALID, "unknown filter.involvement %q (want agent or all)", in.Involvement)
	}
	for _, r := range in.Roles {
		k, err := annals.ParseEntryKind(r)
		if err != nil || !slices.Contains(searchRoles, k) {
			return annals.Errorf(annals.EINVALID, "unknown role %q in filter.roles (want any of: %s)", r, roleNames())
		}
		f.Roles = append(f.Roles, k)
	}
	// Any non-empty text is a substring, blanks included, as the reference's LIKE takes it; the
	// store refuses one it cannot search for (too long, a NUL).
	f.Substring = in.Text
	if strings.TrimSpace(in.Words) != "" {
		ws := words(in.Words)
		if len(ws) == 0 {
			return annals.Errorf(annals.EINVALID, "filter.words %q has no words to search for (letters or digits)", in.Words)
		}
		if len(ws) > view.MaxWords {
			return annals.Errorf(annals.EINVALID, "filter.words has %d words (at most %d allowed)", len(ws), view.MaxWords)
		}
		f.Words = ws
	}
	if timeBounds(in.Since, in.Until, f) {
		// Bounds that hold no stored time, read as the reference reads them (since after
		// until, "...:00Z" to "...:00Z", a since past every time), match nothing, as they do in
		// the reference: an empty page, not an error.
		return errNothing
	}
	return nil
}

// errNothing is filterOf's answer for a filter that matches no message.
var errNothing = errors.New("the filter matches nothing")
