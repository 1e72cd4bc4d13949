package annals

import (
	"context"
	"time"
)

// TextOp is the kind of node in a parsed text query.
type TextOp int

// Text query nodes.
const (
	// TextTerm matches a sequence of engine tokens as a phrase (one token: a word).
	TextTerm TextOp = iota
	TextAnd
	TextOr
	TextNot
)

// TextExpr is a parsed, backend-neutral text query. The query package builds it from what a
// person typed; each store compiles it to its own engine syntax, quoting every token, so user
// input never reaches an engine as syntax.
type TextExpr struct {
	Op TextOp
	// Tokens (TextTerm) are lower-cased word tokens, split the way the engines tokenize text.
	Tokens []string
	// Prefix (TextTerm) makes the last token match as a prefix.
	Prefix bool
	// Items are the operands of TextAnd and TextOr, and the single operand of TextNot.
	Items []*TextExpr
}

// Search fields: where a text query may match.
const (
	FieldTitle       = "title"
	FieldDescription = "description"
	FieldSummary     = "summary"
	FieldTags        = "tags"
	FieldBody        = "body"  // user, assistant, system and event text, and reasoning
	FieldTools       = "tools" // tool name, arguments and result
)

// SearchFields lists every search field.
var SearchFields = []string{FieldTitle, FieldDescription, FieldSummary, FieldTags, FieldBody, FieldTools}

// Search orders.
const (
	SortRelevance = "relevance"
	SortRecent    = "recent"
)

// SearchFilter is a full-text search inside an owner scope.
type SearchFilter struct {
	// Chat holds the chat-level filters and the owner; its paging fields are ignored.
	Chat ChatFilter
	// Text is the parsed query; nil means filters only.
	Text *TextExpr
	// Fields narrows where Text matches; empty means everywhere.
	Fields []string
	// Entry-level filters: an entry must have one of these kinds, one of these tool names (case
	// insensitive), and a time at or after After and strictly before Before.
	Roles  []EntryKind
	Tools  []string
	After  *time.Time
	Before *time.Time
	// Sort is SortRelevance (default) or SortRecent.
	Sort   string
	Limit  int
	Offset int
	// Snippets per chat (chat search), 0 means none; at most 3.
	Snippets int
	// OrderOnly tells a chat search that only its ranked chats and total are wanted: each hit's
	// Matches is 0 and its Snippets empty, so the store can skip reading the page's matching
	// entries. A hybrid search reads a deep lexical ranking this way to fuse its order,
	// then the details of the page it shows alone.
	OrderOnly bool
	// Highlight markers around matched terms in snippets; empty means "[" and "]".
	MarkOpen, MarkClose string
}

// Snippet is a short excerpt of a matching entry with the matched terms highlighted.
type Snippet struct {
	Seq  int64     `json:"seq"`
	Kind EntryKind `json:"kind"`
	Tool string    `json:"tool,omitempty"`
	Text string    `json:"text"`
}

// ChatHit is one chat found by a search.
type ChatHit struct {
	Chat *Chat `json:"chat"`
	// Score is the blended relevance (higher is better); comparable within one result only. The
	// history service reports it to global (admin) searches only: it derives from statistics
	// over every tenant's rows.
	Score float64 `json:"score,omitempty"`
	// Matches counts the chat's matching entries (metadata matches are not counted).
	Matches  int       `json:"matches"`
	Snippets []Snippet `json:"snippets,omitempty"`
}

// EntryHit is one entry found by an entry-level search.
type EntryHit struct {
	Entry   *Entry  `json:"entry"`
	Score   float64 `json:"score,omitempty"`
	Snippet string  `json:"snippet,omitempty"`
}

// SearchStore runs full-text searches.
type SearchStore interface {
	// SearchChats returns chats matching the filter, ranked, with snippets, and the total
	// number of matching chats. A chat matches when the query holds over the whole chat: each
	// word or phrase may match its metadata or any of its entries. A store may stop after the
	// page and return how many chats it found instead of the total, a lower bound, when it tells
	// the context's SearchReport (SetTotalAtLeast).
	// Errors: invalid (bad field, sort or filter), unavailable, internal.
	SearchChats(ctx context.Context, f SearchFilter) ([]ChatHit, int, error)

	// SearchEntries returns entries matching the filter (the whole query within one entry),
	// ranked, each with a snippet, and the total number of matching entries (or a lower bound,
	// as SearchChats may).
	// Errors: invalid, unavailable, internal.
	SearchEntries(ctx context.Context, f SearchFilter) ([]EntryHit, int, error)
}
