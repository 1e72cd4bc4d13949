package view

import (
	"context"

	"github.com/annals-dev/annals"
)

// Store answers the read-only history view. Every method applies its filter's Owner inside
// SQL WHERE: rows outside it are never read, counted or used to fill a page.
type Store interface {
	// Agents returns the agent nouns in scope — chat agent ids and the <noun> of entry
	// channels in/agent/<noun>/... — each with its sessions, and the unlinked sessions.
	// Errors: unavailable, internal.
	ViewAgents(ctx context.Context, f AgentsFilter) (*Agents, error)

	// Sessions returns chats in scope, most recent activity first, then id.
	// Errors: invalid (negative limit, empty agent), unavailable, internal.
	ViewSessions(ctx context.Context, f SessionsFilter) (*SessionList, error)

	// Transcript returns a page of one chat's entries, oldest first within the page, the
	// page being the newest entries before BeforeSeq. Next carries the page's oldest entry.
	// Errors: invalid (negative limit or seq), not_found (no such chat, or outside Owner: the
	// same opaque NotFound), unavailable, internal.
	ViewTranscript(ctx context.Context, f TranscriptFilter) (*Page, error)

	// Conversation returns the entries in scope sharing a correlation id, ordered by time,
	// then chat id, then seq.
	// Errors: invalid (empty correlation id, negative limit), unavailable, internal.
	ViewConversation(ctx context.Context, f ConversationFilter) (*Page, error)

	// ToolCalls returns, for each given message in scope, the tool entries that directly
	// follow it in its chat (no other entry between, at most MaxCallsPerMessage), in order:
	// an assistant message's calls. Messages with none, or outside Owner, are absent.
	// Errors: invalid (too many messages), unavailable, internal.
	ViewToolCalls(ctx context.Context, f ToolCallsFilter) (map[Ref][]Call, error)

	// Events returns the event entries in scope sharing a correlation id, in capture order.
	// Errors: invalid (empty correlation id, negative limit), unavailable, internal.
	ViewEvents(ctx context.Context, f EventsFilter) (*EventPage, error)

	// Locate returns the position of the first entry (by seq) carrying the source id, nil when
	// no entry in scope does: how a client's id of the store a chat was imported from (the
	// reference's message ids) becomes a place to page from.
	// Errors: invalid (empty source id), unavailable, internal.
	ViewLocate(ctx context.Context, f LocateFilter) (*Position, error)

	// Search returns the entries in scope matching the filter, newest first (time, chat id,
	// seq, descending).
	// Errors: invalid (an empty channel or word, an unknown role, too many channels or words,
	// a substring over MaxSubstringChars, Since after Until, a negative limit), unavailable,
	// internal.
	ViewSearch(ctx context.Context, f Filter) (*Page, error)
}

// Service is the view as a caller sees it: each operation of Store on behalf of the principal
// carried by ctx, in the scope asked for ("" is the widest the caller may use). The history
// service implements it: it resolves the scope into the Owner of every filter, so whatever
// Owner a caller puts in a filter is never read. Errors are a Store's, and forbidden (a scope
// the caller may not use) or invalid (an unknown scope) before anything is read.
type Service interface {
	// ViewScope resolves the scope a query asks for into the one it reads: the scope itself, or
	// for "" the widest the caller may use. A codec calls it first, so that a scope the caller
	// may not use is refused before anything else of the query is checked.
	ViewScope(ctx context.Context, scope annals.Scope) (annals.Scope, error)
	// ViewAgents is Store.ViewAgents in scope.
	ViewAgents(ctx context.Context, scope annals.Scope, f AgentsFilter) (*Agents, error)
	// ViewSessions is Store.ViewSessions in scope.
	ViewSessions(ctx context.Context, scope annals.Scope, f SessionsFilter) (*SessionList, error)
	// ViewTranscript is Store.ViewTranscript in scope: a chat outside it is not_found, the same
	// as a missing one.
	ViewTranscript(ctx context.Context, scope annals.Scope, f TranscriptFilter) (*Page, error)
	// ViewConversation is Store.ViewConversation in scope.
	ViewConversation(ctx context.Context, scope annals.Scope, f ConversationFilter) (*Page, error)
	// ViewToolCalls is Store.ViewToolCalls in scope.
	ViewToolCalls(ctx context.Context, scope annals.Scope, f ToolCallsFilter) (map[Ref][]Call, error)
	// ViewEvents is Store.ViewEvents in scope.
	ViewEvents(ctx context.Context, scope annals.Scope, f EventsFilter) (*EventPage, error)
	// ViewLocate is Store.ViewLocate in scope.
	ViewLocate(ctx context.Context, scope annals.Scope, f LocateFilter) (*Position, error)
	// ViewSearch is Store.ViewSearch in scope.
	ViewSearch(ctx context.Context, scope annals.Scope, f Filter) (*Page, error)
	// ViewVersion is what every answer in scope depends on besides the query itself: the owner
	// and scope it reads and the store's generation (Generations). An answer made under a
	// version may be given again for the same query under an equal version, and only then. ok
	// is false when the store cannot tell its generation: nothing may be reused.
	ViewVersion(ctx context.Context, scope annals.Scope) (v Version, ok bool, err error)
}

// Version is the state an answer in scope was made under (Service.ViewVersion): Key names the
// owner and the scope read, Generation the store's committed state.
type Version struct {
	Key        string
	Generation uint64
}

// Generations is a Store that can tell whether anything was committed to it: ViewGeneration
// returns a number that is the same as at an earlier call only if nothing was committed in
// between, by this process or any other sharing the database. It is read before the reads it
// vouches for, so an answer read after a commit is never kept under the generation before it.
type Generations interface {
	ViewGeneration(ctx context.Context) (uint64, error)
}
