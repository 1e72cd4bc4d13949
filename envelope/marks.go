package envelope

import (
	"html"
	"strings"

	"github.com/annals-dev/annals"
)

// maxMarkBytes bounds a highlight marker: it is repeated around every matched term.
const maxMarkBytes = 32

// The store marks matched terms with these two private-use characters; the service then escapes
// the text between them for the format the caller's marks imply and puts the caller's marks in
// their place. Escaping after the store has put HTML marks in could not tell the marks from the
// transcript's own text, and a transcript holding <img onerror=...> would come back live.
const (
	sentinelOpen  = annals.SnippetMarkOpen
	sentinelClose = annals.SnippetMarkClose
)

// Default marks, when a search gives none: « and », as MCP uses. Not brackets: a redaction
// placeholder ("[redacted:aws_access_key]", "[private]") is written in brackets, and a snippet
// must never show one as if it were a match.
const (
	DefaultMarkOpen  = "«"
	DefaultMarkClose = "»"
)

// marks is how snippets are rendered for one search.
type marks struct {
	open, shut string
	// html is set when the marks are HTML (either of them holds a "<"): the text around them is
	// then HTML-escaped, so the snippet is safe to insert into a page as it is.
	html bool
}

func newMarks(open, shut string) marks {
	if open == "" && shut == "" {
		open, shut = DefaultMarkOpen, DefaultMarkClose
	}
	return marks{open: open, shut: shut, html: strings.Contains(open, "<") || strings.Contains(shut, "<")}
}

// render turns a snippet with sentinel marks into one with the caller's marks. A sentinel
// character that was already in the transcript becomes a mark too, which is harmless: the text
// around it is escaped all the same.
func (m marks) render(snippet string) string {
	var b strings.Builder
	for snippet != "" {
		i := strings.IndexAny(snippet, sentinelOpen+sentinelClose)
		if i < 0 {
			b.WriteString(m.text(snippet))
			break
		}
		b.WriteString(m.text(snippet[:i]))
		if strings.HasPrefix(snippet[i:], sentinelOpen) {
			b.WriteString(m.open)
			snippet = snippet[i+len(sentinelOpen):]
		} else {
			b.WriteString(m.shut)
			snippet = snippet[i+len(sentinelClose):]
		}
	}
	return b.String()
}

func (m marks) text(s string) string {
	if m.html {
		return html.EscapeString(s)
	}
	return s
}

// RenderSnippets replaces the store's sentinel marks (annals.SnippetMarkOpen/Close) in every
// snippet of a search page with open and shut ("[" and "]" when both are empty), HTML-escaping
// the text around them when either mark is HTML. It is how the envelope answers, for callers
// of SearchChats that print or send the page themselves.
func RenderSnippets(page *annals.SearchPage, open, shut string) {
	m := newMarks(open, shut)
	for i := range page.Chats {
		for j := range page.Chats[i].Snippets {
			page.Chats[i].Snippets[j].Text = m.render(page.Chats[i].Snippets[j].Text)
		}
	}
	for i := range page.Entries {
		page.Entries[i].Snippet = m.render(page.Entries[i].Snippet)
	}
}
