package web

import (
	"fmt"
	"github.com/annals-dev/annals/internal/human"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
)

// pageNames are the pages; each is templates/<name>.html over templates/layout.html.
var pageNames = []string{"list", "chat", "login", "error", "search", "usage"}

func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

func (h *Handler) funcs() template.FuncMap {
	return template.FuncMap{
		"chatURL":   chatURL,
		"entryURL":  entryURL,
		"text":      termsafe.String,
		"tokens":    formatTokens,
		"cost":      formatCost,
		"costEst":   costWithEstimate,
		"when":      formatTime,
		"ago":       func(t time.Time) string { return ago(h.now(), t) },
		"marks":     splitMarks,
		"title":     chatTitle,
		"add":       func(a, b int64) int64 { return a + b },
		"count":     func(n any, one, many string) string { return human.Count(countOf(n), one, many) },
		"noun":      func(n any, one, many string) string { return human.Noun(countOf(n), one, many) },
		"source":    func(c *annals.Chat) string { return c.Attributes["source"] },
		"usageCost": usageCost,
		"chatCost": func(c annals.UsageChat) string {
			return usageCost(annals.UsageFigures{CostUSD: c.CostUSD, EstimatedCostUSD: c.EstimatedCostUSD})
		},
	}
}

// countOf is a template's count (an int or an int64) as an int64.
func countOf(n any) int64 {
	switch n := n.(type) {
	case int:
		return int64(n)
	case int64:
		return n
	}
	return 0 // the templates pass counts only; a test of every page renders them
}

// chatURL is a chat's page: the id is one escaped path segment, so no id can leave /chats/.
func chatURL(id string) string { return "/chats/" + url.PathEscape(id) }

// entryURL is the permalink of one entry: the page opens on the window around it, scrolled to
// it and highlighted.
func entryURL(id string, seq int64) string {
	s := strconv.FormatInt(seq, 10)
	return chatURL(id) + "?at=" + s + "#e-" + s
}

func chatTitle(c *annals.Chat) string {
	if c.Title != "" {
		return termsafe.String(c.Title)
	}
	return termsafe.String(c.ID)
}

func formatTokens(n int64) string {
	switch {
	case n >= 10_000_000:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 10_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	case n >= 1000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatInt(n, 10)
}

func formatCost(usd float64) string {
	if usd == 0 {
		return ""
	}
	if usd < 0.01 {
		return "<$0.01"
	}
	return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// ago is a short relative time: "5m ago", "3d ago", or the date for old times.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 24*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	case d < 30*24*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
	}
	return t.UTC().Format("2006-01-02")
}

// segment is a piece of a search snippet: matched (Hit) or not.
type segment struct {
	Text string
	Hit  bool
}

// splitMarks cuts a snippet at the history's match marks, so the template wraps the matched
// pieces in <mark> and escapes every piece as text.
func splitMarks(s string) []segment {
	var out []segment
	s = termsafe.String(s)
	for s != "" {
		i := strings.Index(s, annals.SnippetMarkOpen)
		if i < 0 {
			out = append(out, segment{Text: s})
			break
		}
		if i > 0 {
			out = append(out, segment{Text: s[:i]})
		}
		s = s[i+len(annals.SnippetMarkOpen):]
		j := strings.Index(s, annals.SnippetMarkClose)
		if j < 0 {
			out = append(out, segment{Text: s, Hit: true})
			break
		}
		out = append(out, segment{Text: s[:j], Hit: true})
		s = s[j+len(annals.SnippetMarkClose):]
	}
	return out
}
