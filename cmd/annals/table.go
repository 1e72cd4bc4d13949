package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
)

// Without a width to fit (a pipe), titles and tags are cut at these lengths; fitting a width
// gives the title at least minTitle characters and drops the tags below minTags.
const (
	maxTitle = 48
	maxTags  = 32
	minTitle = 16
	minTags  = 8
)

// column is one column of a table: its heading, its cells (already escaped for the terminal,
// so their length is what the terminal shows) and whether it is right-aligned.
type column struct {
	head  string
	cells []string
	right bool
}

func (c *column) width() int {
	w := runeLen(c.head)
	for _, s := range c.cells {
		w = max(w, runeLen(s))
	}
	return w
}

// writeChatTable prints chats as a table; extra, when set, adds a leading SCORE column. With a
// width (> 0) the table fits it (fitChatTable); without one, ids are whole.
func writeChatTable(w io.Writer, chats []*annals.Chat, extra func(i int) string, width int) error {
	ids := make([]string, len(chats))
	for i, c := range chats {
		ids[i] = c.ID
	}
	cols := map[string]*column{}
	order := []string{"ID", "TITLE", "STATUS", "ENTRIES", "TOKENS", "LAST ACTIVITY", "TAGS"}
	if extra != nil {
		order = append([]string{"SCORE"}, order...)
	}
	for _, h := range order {
		cols[h] = &column{head: h, right: h == "SCORE" || h == "ENTRIES" || h == "TOKENS"}
	}
	for i, c := range chats {
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		if c.Pinned {
			title = "* " + title
		}
		if c.ArchivedAt != nil {
			title += " [archived]"
		}
		if extra != nil {
			cols["SCORE"].cells = append(cols["SCORE"].cells, extra(i))
		}
		cols["ID"].cells = append(cols["ID"].cells, termsafe.String(c.ID))
		cols["TITLE"].cells = append(cols["TITLE"].cells, termsafe.String(oneLine(title)))
		cols["STATUS"].cells = append(cols["STATUS"].cells, orDash(string(c.Status)))
		cols["ENTRIES"].cells = append(cols["ENTRIES"].cells, fmt.Sprint(c.Totals.Entries))
		cols["TOKENS"].cells = append(cols["TOKENS"].cells, humanCount(c.Totals.InputTokens+c.Totals.OutputTokens))
		cols["LAST ACTIVITY"].cells = append(cols["LAST ACTIVITY"].cells, humanTime(c.LastActivity))
		cols["TAGS"].cells = append(cols["TAGS"].cells, termsafe.String(oneLine(strings.Join(c.Tags, ","))))
	}
	limits := map[string]int{"TITLE": maxTitle, "TAGS": maxTags}
	if width > 0 {
		order, limits = fitChatTable(cols, order, ids, width)
	}
	shown := make([]*column, 0, len(order))
	for _, h := range order {
		c := cols[h]
		if n, ok := limits[h]; ok {
			for i := range c.cells {
				c.cells[i] = clip(c.cells[i], n)
			}
		}
		shown = append(shown, c)
	}
	return writeColumns(w, shown)
}

// fitChatTable decides what a table of width columns shows: whole ids if they fit, else each
// shortened to a prefix that names it (abbreviateIDs); the title cut to what is left, and the
// tags, then the token and entry counts and the status dropped when even that is too little. It returns the
// columns to show and the cut of each flexible one.
func fitChatTable(cols map[string]*column, order, ids []string, width int) ([]string, map[string]int) {
	total := func(order []string, limits map[string]int) int {
		n := 2 * (len(order) - 1)
		for _, h := range order {
			w := cols[h].width()
			if l, ok := limits[h]; ok {
				w = min(w, max(l, runeLen(h)))
			}
			n += w
		}
		return n
	}
	limits := map[string]int{"TITLE": maxTitle, "TAGS": maxTags}
	if total(order, limits) <= width {
		return order, limits
	}
	short := abbreviateIDs(ids)
	for i := range short {
		cols["ID"].cells[i] = termsafe.String(short[i])
	}
	title := min(cols["TITLE"].width(), maxTitle)
	for _, drop := range []string{"", "TAGS", "TOKENS", "ENTRIES", "STATUS"} {
		order = without(order, drop)
		// The room for the title: the width less the other columns and the title's gap.
		avail := width - total(without(without(order, "TITLE"), "TAGS"), nil) - 2
		if slicesHas(order, "TAGS") {
			titleW := min(title, max(avail-2-minTags, minTitle))
			if tags := min(cols["TAGS"].width(), maxTags, avail-2-titleW); tags >= minTags {
				return order, map[string]int{"TITLE": titleW, "TAGS": tags}
			}
			continue // no room for the tags
		}
		if avail >= min(title, minTitle) || drop == "STATUS" {
			return order, map[string]int{"TITLE": max(min(title, avail), minTitle)}
		}
	}
	return order, limits
}

// abbreviateIDs shortens "tool:7f3c2a10-5b1e-..." to "tool:7f3c2a10", longer where two chats
// of the page would share it; an id with a sub-agent part (a "/") stays whole, since its
// session's prefix names the session.
func abbreviateIDs(ids []string) []string {
	out := make([]string, len(ids))
	for n := 8; ; n += 4 {
		seen := map[string]int{}
		for i, id := range ids {
			out[i] = id
			if strings.Contains(id, "/") {
				continue
			}
			tool, rest, ok := strings.Cut(id, ":")
			if !ok {
				tool, rest = "", id
			} else {
				tool += ":"
			}
			if utf8.RuneCountInString(rest) > n+4 {
				out[i] = tool + string([]rune(rest)[:n])
			}
			seen[out[i]]++
		}
		unique := true
		for _, c := range seen {
			unique = unique && c == 1
		}
		if unique {
			return out
		}
	}
}

// writeColumns writes the columns separated by two spaces, without trailing spaces.
func writeColumns(w io.Writer, cols []*column) error {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = c.width()
	}
	var b strings.Builder
	row := func(cell func(c *column) string) {
		var line strings.Builder
		for i, c := range cols {
			s := cell(c)
			pad := strings.Repeat(" ", widths[i]-runeLen(s))
			if c.right {
				line.WriteString(pad + s)
			} else {
				line.WriteString(s + pad)
			}
			line.WriteString("  ")
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	row(func(c *column) string { return c.head })
	for r := range cols[0].cells {
		row(func(c *column) string { return c.cells[r] })
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func without(order []string, h string) []string {
	out := make([]string, 0, len(order))
	for _, o := range order {
		if o != h {
			out = append(out, o)
		}
	}
	return out
}

func slicesHas(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
