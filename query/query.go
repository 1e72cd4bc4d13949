// Package query is annals' search language: what a person types into a search box, parsed by
// annals into a backend-neutral tree and compiled per backend (SQLite FTS5, PostgreSQL tsquery).
//
// The language has words (all must match), "exact phrases", prefix*, -exclusions, OR, AND and
// parentheses, and field filters such as role:user, tool:Bash, tag:x, attr.repository:x,
// after:2026-01-01 and in:title. docs/QUERY.md describes it for users.
//
// Nothing a user types reaches an engine as syntax: every word is split into word tokens the way
// the engine's tokenizer splits text, each token is emitted quoted, and every operator in the
// compiled string comes from the parsed tree. Parse rejects, with a message for the user, every
// query that an engine could not run, so a query that parses always compiles.
package query

import (
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Limits on one query. They bound the work a query can ask of an engine; a query beyond them is
// refused as invalid rather than cut short, so a result never silently ignores part of a query.
const (
	// MaxQueryBytes is the longest query accepted, in bytes.
	MaxQueryBytes = 4096
	// MaxTerms is the most words, phrases and filters one query may hold.
	MaxTerms = 64
	// MaxTokens is the most word tokens all terms together may hold: a quoted phrase is one term
	// but costs the engine one index lookup per token.
	MaxTokens = 256
	// MaxDepth is the deepest nesting of parentheses.
	MaxDepth = 16
)

// Query is a parsed search query.
type Query struct {
	// Text is the boolean text expression; nil when the query holds only filters.
	Text Expr
	// Filters are the field filters; a result must satisfy every one of them and Text.
	Filters Filters
	// Fields narrows where Text matches, from in: (a subset of annals.SearchFields, in that
	// order, without duplicates); empty means everywhere.
	Fields []string
}

// Filters are the field filters of a query. Within one field the values are alternatives,
// except tags: a chat carries many tags, so every tag: given must be present, the way labels
// filter on most trackers. An entry has one role and one tool, and a chat one agent, so
// requiring all of several would match nothing.
type Filters struct {
	// Roles keeps entries of one of these kinds (role:user).
	Roles []annals.EntryKind
	// Tools keeps tool entries calling one of these tools (tool:Bash), as typed.
	Tools []string
	// Agents keeps chats of one of these agents (agent:x).
	Agents []string
	// Tags keeps chats carrying every one of these tags (tag:x).
	Tags []string
	// Attrs keeps chats whose creation attribute KEY equals the value (attr.KEY:VALUE).
	Attrs map[string]string
	// After keeps what happened at or after this instant (after:); Before what happened
	// strictly before it (before:). A date alone means midnight UTC starting that day, so
	// after:2026-01-01 before:2026-02-01 is exactly January.
	After  *time.Time
	Before *time.Time
}

// IsZero reports whether no filter is set.
func (f *Filters) IsZero() bool {
	return len(f.Roles) == 0 && len(f.Tools) == 0 && len(f.Agents) == 0 && len(f.Tags) == 0 &&
		len(f.Attrs) == 0 && f.After == nil && f.Before == nil
}

// Expr is a node of a text expression: *Term, *And, *Or or *Not.
type Expr interface {
	// String renders the node in the query language, so that parsing it again gives the same
	// tree.
	String() string
	expr()
}

// Term matches its tokens next to each other, in order: a word that punctuation splits into
// several tokens ("emag.ro") matches like the phrase "emag ro".
type Term struct {
	// Tokens are lower-cased word tokens (see Tokenize); never empty in a parsed query.
	Tokens []string
	// Prefix makes the last token match any token it begins (foo* matches food).
	Prefix bool
	// Phrase records that the term was typed in quotes. It changes nothing in matching.
	Phrase bool
	// Raw is the term as typed, without its quotes, leading - or trailing *; for messages.
	Raw string
}

// And matches when every item matches. An item may be a *Not; at least one item is not.
type And struct{ Items []Expr }

// Or matches when any item matches. No item is a *Not.
type Or struct{ Items []Expr }

// Not excludes what Item matches. It only appears as an item of an *And.
type Not struct{ Item Expr }

func (*Term) expr() {}
func (*And) expr()  {}
func (*Or) expr()   {}
func (*Not) expr()  {}

// String renders the term as a word, or a quoted phrase when it has several tokens.
func (t *Term) String() string {
	s := strings.Join(t.Tokens, " ")
	if len(t.Tokens) != 1 {
		s = `"` + s + `"`
	}
	if t.Prefix {
		s += "*"
	}
	return s
}

// String renders the items separated by spaces; an Or item is put in parentheses for clarity
// although OR already binds tighter than AND.
func (a *And) String() string {
	parts := make([]string, len(a.Items))
	for i, it := range a.Items {
		parts[i] = render(it, true)
	}
	return strings.Join(parts, " ")
}

// String renders the items joined by OR.
func (o *Or) String() string {
	parts := make([]string, len(o.Items))
	for i, it := range o.Items {
		parts[i] = render(it, true)
	}
	return strings.Join(parts, " OR ")
}

// String renders the exclusion with a leading -.
func (n *Not) String() string { return "-" + render(n.Item, true) }

// render renders an item, in parentheses when it is an And or Or inside another node.
func render(e Expr, nested bool) string {
	if e == nil {
		return "()"
	}
	switch e.(type) {
	case *And, *Or:
		if nested {
			return "(" + e.String() + ")"
		}
	}
	return e.String()
}

// String renders the query in the query language, filters after the text: the canonical form
// of what was typed, which parses back to the same query.
func (q *Query) String() string {
	var parts []string
	if q.Text != nil {
		parts = append(parts, render(q.Text, false))
	}
	if len(q.Fields) > 0 {
		parts = append(parts, "in:"+strings.Join(q.Fields, ","))
	}
	f := &q.Filters
	for _, r := range f.Roles {
		parts = append(parts, "role:"+string(r))
	}
	for _, v := range f.Tools {
		parts = append(parts, "tool:"+renderValue(v))
	}
	for _, v := range f.Agents {
		parts = append(parts, "agent:"+renderValue(v))
	}
	for _, v := range f.Tags {
		parts = append(parts, "tag:"+renderValue(v))
	}
	keys := make([]string, 0, len(f.Attrs))
	for k := range f.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, "attr."+k+":"+renderValue(f.Attrs[k]))
	}
	if f.After != nil {
		parts = append(parts, "after:"+f.After.Format(time.RFC3339Nano))
	}
	if f.Before != nil {
		parts = append(parts, "before:"+f.Before.Format(time.RFC3339Nano))
	}
	return strings.Join(parts, " ")
}

// renderValue quotes a filter value unless it is one unbroken word without syntax characters.
// No value contains a double quote: the lexer ends every value at one.
func renderValue(v string) string {
	if v == "" || strings.ContainsFunc(v, func(r rune) bool {
		return isSpace(r) || r == '"' || r == '(' || r == ')'
	}) {
		return `"` + v + `"`
	}
	return v
}

// Terms returns the tokens of the terms that are not excluded, each once, in query order: the
// words a snippet should highlight.
func (q *Query) Terms() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case *Term:
			for _, t := range e.Tokens {
				if !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		case *And:
			for _, it := range e.Items {
				walk(it)
			}
		case *Or:
			for _, it := range e.Items {
				walk(it)
			}
		}
		// *Not: excluded words are never highlighted.
	}
	walk(q.Text)
	return out
}
