package annals

import (
	"context"
	"time"
)

// HistoryService is the history as a caller sees it: every operation of docs/OPERATIONS.md on
// behalf of the principal carried by ctx, with typed parameters and results, and the capture
// path as that caller. history.Service implements it over a store and httpapi.Client over HTTP;
// every transport decodes its own wire format into these calls (the op envelope is decoded in
// one place, package envelope) and decides nothing itself.
//
// Errors are *Error: not_found (no such chat in scope: missing and outside scope are the same),
// invalid (a bad parameter, named with what is allowed), forbidden (a scope the caller may not
// use, a write it may not make, a read-only history), unavailable (the store or a provider is
// down, or a provider is not configured), internal.
type HistoryService interface {
	CaptureStore

	// FindChats lists chats in scope, pinned first, then most recent activity.
	FindChats(ctx context.Context, p ListParams) (*ChatPage, error)
	// SearchChats finds chats (or entries) in scope matching a query in the search language.
	SearchChats(ctx context.Context, p SearchParams) (*SearchPage, error)
	// FindRelated ranks chats close in meaning to a chat or a text.
	FindRelated(ctx context.Context, p RelatedParams) (*RelatedPage, error)
	// GetChat returns a chat and a page or window of its transcript, or its Markdown export.
	GetChat(ctx context.Context, p GetParams) (*ChatView, error)
	// FindChatRuns returns a chat's runs, oldest first.
	FindChatRuns(ctx context.Context, c ChatSelector) ([]*Run, error)
	// RenameChat sets (or, with "", clears) a chat's title.
	RenameChat(ctx context.Context, c ChatSelector, title string) (*Chat, error)
	// AnnotateChat sets the description and/or replaces the tags (an empty list clears them).
	AnnotateChat(ctx context.Context, c ChatSelector, a Annotation) (*Chat, error)
	// PinChat pins or unpins a chat.
	PinChat(ctx context.Context, c ChatSelector, pinned bool) (*Chat, error)
	// ArchiveChat archives or restores a chat.
	ArchiveChat(ctx context.Context, c ChatSelector, archived bool) (*Chat, error)
	// RecapChat summarises a chat and stores the summary on it.
	RecapChat(ctx context.Context, c ChatSelector) (*Recap, error)
	// ResumeChat returns the coordinates to continue a chat; it starts nothing.
	ResumeChat(ctx context.Context, c ChatSelector) (*ResumeHandle, error)
	// DeleteChat removes a chat and everything it holds.
	DeleteChat(ctx context.Context, c ChatSelector) error
	// Usage sums tokens and cost in scope over a range: per day, agent, model and source tool,
	// an activity heatmap and the top chats (usage.go).
	Usage(ctx context.Context, p UsageParams) (*UsageReport, error)
}

// ChatSelector names the chat of a by-id operation and the scope to find it in ("" is the
// widest the caller may use).
type ChatSelector struct {
	Scope Scope
	ID    string
}

// ChatQuery filters chats for FindChats and SearchChats. Zero fields filter nothing.
type ChatQuery struct {
	Status *RunStatus
	// From and To bound the last activity, inclusively.
	From, To *time.Time
	// Tag keeps chats carrying exactly this tag.
	Tag           string
	TitleContains string
	// IDPrefix keeps chats whose id starts with it or holds it right after a ':'.
	IDPrefix string
	// ChatID keeps only the chat whose id is exactly this (find in one open chat): unlike
	// IDPrefix, a chat whose id merely starts with it is never kept. Applied with the owner,
	// so another tenant's chat of that id is not found.
	ChatID     string
	Attributes map[string]AttrMatch
	Agent      string
	PinnedOnly bool
	// IncludeArchived lists archived chats too.
	IncludeArchived bool
}

// PageParams pages a list: a Limit (0 is the default, capped at the maximum) and either an
// Offset or the Cursor of the previous page.
type PageParams struct {
	Limit  int
	Offset int
	Cursor string
}

// ListParams are the parameters of FindChats.
type ListParams struct {
	Scope  Scope
	Filter ChatQuery
	Page   PageParams
}

// SearchMode is what a search returns.
type SearchMode string

// Search modes.
const (
	SearchChatsMode   SearchMode = "chats"   // ranked chats with snippets
	SearchEntriesMode SearchMode = "entries" // matching entries, to jump to a message
)

// SearchParams are the parameters of SearchChats. Snippets come back with their matched terms
// between SnippetMarkOpen and SnippetMarkClose; a transport renders them (the HTTP envelope's
// mark_open and mark_close, a terminal's colour), escaping the text around them for its format.
type SearchParams struct {
	Scope Scope
	// Query is in the search language (docs/QUERY.md).
	Query string
	// In narrows the fields: title, description, summary, tags, body, tools.
	In []string
	// Sort is SortRelevance (default) or SortRecent.
	Sort   string
	Mode   SearchMode
	Filter ChatQuery
	Page   PageParams
	// Explain asks for SearchPage.Explain: how the store ran the search.
	Explain bool
	// Rank is how chats are ranked: RankLexical (the default: the full-text ranking), RankHybrid
	// (the full-text and the meaning rankings fused by reciprocal rank) or RankSemantic (by
	// meaning alone), each inside the caller's owner fold.
	Rank string
}

// Search rankings (SearchParams.Rank).
const (
	RankLexical  = "lexical"
	RankHybrid   = "hybrid"
	RankSemantic = "semantic"
)

// The marks SearchChats puts around matched terms in snippets: two private-use characters a
// transcript practically never holds, so a renderer can find them and escape everything else.
const (
	SnippetMarkOpen  = "\uE000"
	SnippetMarkClose = "\uE001"
)

// RelatedParams are the parameters of FindRelated: exactly one of ChatID or Query.
type RelatedParams struct {
	Scope           Scope
	ChatID          string
	Query           string
	Limit           int
	IncludeArchived bool
}

// ChatFormat is how GetChat returns a transcript.
type ChatFormat string

// Get formats.
const (
	FormatJSON         ChatFormat = "json"         // the entries as they are
	FormatMarkdown     ChatFormat = "markdown"     // the whole chat as a portable Markdown export
	FormatConversation ChatFormat = "conversation" // user and assistant messages only
)

// GetParams are the parameters of GetChat: a page (Limit, and AfterSeq or Cursor), or a window
// of Context entries on each side of AroundSeq (Context nil is the default).
type GetParams struct {
	Chat      ChatSelector
	Format    ChatFormat
	Limit     int
	AfterSeq  int64
	Cursor    string
	AroundSeq int64
	Context   *int
	// Runs asks for ChatView.Runs: the runs the answer's entries belong to, read by id (a page
	// of a chat with thousands of runs reads only its own; FindChatRuns reads them all).
	Runs bool
}

// Annotation is what AnnotateChat sets: a nil field is left as it is.
type Annotation struct {
	Description *string
	Tags        *[]string
}

// ChatPage is the answer of FindChats: a page of chats and how to get the next.
type ChatPage struct {
	Chats []*Chat `json:"chats"`
	// Total counts every match, ignoring paging.
	Total int `json:"total"`
	// Limit is the effective limit after the default and the cap were applied.
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
	// NextCursor, when set, fetches the next page.
	NextCursor string `json:"next_cursor,omitempty"`
	Scope      string `json:"scope"`
	// Unreadable names chats of this page that could not be read (a value an older version
	// stored, a hand-edited database): they are left out, the rest of the page is served, and
	// the cause is logged.
	Unreadable []string `json:"unreadable,omitempty"`
}

// SearchPage is the answer of SearchChats. Chats is set in chats mode, Entries in entries mode.
type SearchPage struct {
	Chats   []ChatHit  `json:"chats,omitempty"`
	Entries []EntryHit `json:"entries,omitempty"`
	// Total counts every match in scope, ignoring paging, unless TotalIsLowerBound.
	Total int `json:"total"`
	// TotalIsLowerBound is true when the search stopped after its page instead of counting
	// every match (a field filter or an entry search over many matches, docs/QUERY.md): at
	// least Total match, and NextCursor is set whenever the page is full.
	TotalIsLowerBound bool `json:"total_is_lower_bound,omitempty"`
	// Limit is the effective limit.
	Limit      int    `json:"limit"`
	Offset     int    `json:"offset"`
	NextCursor string `json:"next_cursor,omitempty"`
	Scope      string `json:"scope"`
	Mode       string `json:"mode"`
	// Query is the query as annals understood it, in the search language.
	Query string `json:"query"`
	// Unreadable names chats of this page that could not be read; see ChatPage.
	Unreadable []string `json:"unreadable,omitempty"`
	// Partial is true when the search did less than the query asks so as to stay within its
	// bounds (a prefix standing for more words than a search expands): the page is the best
	// found, PartialReason says what was left out, and the total counts what was searched.
	Partial       bool   `json:"partial,omitempty"`
	PartialReason string `json:"partial_reason,omitempty"`
	// Explain is how the search ran, when SearchParams.Explain asked for it.
	Explain *SearchExplain `json:"explain,omitempty"`
}

// RelatedChat is one related chat with its cosine similarity to the source.
type RelatedChat struct {
	Chat  *Chat   `json:"chat"`
	Score float32 `json:"score"`
}

// RelatedPage is the answer of FindRelated.
type RelatedPage struct {
	Results []RelatedChat `json:"results"`
	// Candidates is how many in-scope vectors were ranked (at most CandidateCap).
	Candidates   int    `json:"candidates"`
	CandidateCap int    `json:"candidate_cap"`
	Limit        int    `json:"limit"`
	Model        string `json:"model"`
}

// ChatView is the answer of GetChat.
type ChatView struct {
	Chat   *Chat  `json:"chat"`
	Format string `json:"format"`
	// Entries is the page (json and conversation formats).
	Entries []*Entry `json:"entries,omitempty"`
	// Limit is the effective page size.
	Limit int `json:"limit,omitempty"`
	// Context is the effective number of entries on each side of around_seq (a window answer).
	Context    int    `json:"context,omitempty"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor,omitempty"`
	// Markdown is the whole chat rendered as a portable Markdown export (markdown format).
	Markdown string `json:"markdown,omitempty"`
	// Runs, with GetParams.Runs, are the runs the entries belong to, oldest first, each with
	// its estimated cost as FindChatRuns gives it. A transport that does not carry the ask
	// answers none: a caller falls back to FindChatRuns.
	Runs []*Run `json:"runs,omitempty"`
}

// Recap is the answer of RecapChat: the chat with its new summary.
type Recap struct {
	Chat    *Chat  `json:"chat"`
	Summary string `json:"summary"`
}

// ResumeHandle is a continuation handle: the coordinates to continue a chat with the agent
// runtime's own run trigger.
type ResumeHandle struct {
	SessionID    string    `json:"session_id"`
	Agent        string    `json:"agent"`
	TenantID     string    `json:"tenant_id"`
	UserID       string    `json:"user_id"`
	Status       RunStatus `json:"status"`
	LastActivity string    `json:"last_activity"`
	Hint         string    `json:"hint"`
	// Command is the source tool's own command to continue an imported chat (its
	// resume_command attribute, such as "claude --resume <id>"), and Cwd the folder to run it
	// in (its cwd attribute); empty when the chat has none.
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}
