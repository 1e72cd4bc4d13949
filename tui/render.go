package tui

import (
	"fmt"
	"github.com/annals-dev/annals/internal/human"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/annals-dev/annals"
)

// styles are the browser's looks. Colours are the terminal's own ANSI palette (its theme decides
// what "yellow" is); without colour, bold, underline and reverse video carry the same meaning.
type styles struct {
	title, dim, mark, sel, bad, hit, label, user, tool lipgloss.Style
}

func newStyles(colour bool) styles {
	s := styles{
		title: lipgloss.NewStyle().Bold(true),
		dim:   lipgloss.NewStyle(),
		mark:  lipgloss.NewStyle().Bold(true).Underline(true),
		sel:   lipgloss.NewStyle().Reverse(true),
		bad:   lipgloss.NewStyle().Bold(true),
		hit:   lipgloss.NewStyle().Bold(true),
		label: lipgloss.NewStyle().Bold(true),
		user:  lipgloss.NewStyle().Bold(true),
		tool:  lipgloss.NewStyle(),
	}
	if !colour {
		s.dim = s.dim.Faint(true)
	}
	if colour {
		s.dim = s.dim.Foreground(lipgloss.BrightBlack)
		s.mark = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Yellow)
		s.bad = s.bad.Foreground(lipgloss.Red)
		s.hit = s.hit.Foreground(lipgloss.Yellow)
		s.user = s.user.Foreground(lipgloss.Cyan)
		s.tool = s.tool.Foreground(lipgloss.Magenta)
	}
	return s
}

// input is the look of a text input: the browser's own, so no colour comes in without Color,
// and a steady cursor (a blinking one would wake the program twice a second).
func (s styles) input() textinput.Styles {
	state := textinput.StyleState{Text: lipgloss.NewStyle(), Placeholder: s.dim, Suggestion: s.dim, Prompt: s.label}
	return textinput.Styles{Focused: state, Blurred: state, Cursor: textinput.CursorStyle{Shape: tea.CursorBlock}}
}

// rowLines is how many lines one result takes.
const rowLines = 3

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "annals browse"
	return v
}

// Render is the screen as text: the header, the panes (or the help), the status line.
func (m *Model) Render() string {
	lines := []string{m.header(), m.subheader()}
	body := m.bodyHeight()
	switch {
	case m.help:
		lines = append(lines, fit(m.helpLines(body), body, m.width)...)
	case m.split():
		lw := m.width * 2 / 5
		left := fit(m.resultLines(lw), body, lw)
		right := fit(m.transcriptLines(m.width-lw-1), body, m.width-lw-1)
		sep := m.st.dim.Render("│")
		for i := range left {
			lines = append(lines, left[i]+sep+right[i])
		}
	case m.focus == focusTranscript && m.tr != nil:
		lines = append(lines, fit(m.transcriptLines(m.width), body, m.width)...)
	default:
		lines = append(lines, fit(m.resultLines(m.width), body, m.width)...)
	}
	return strings.Join(append(lines, m.statusLine()), "\n")
}

// split reports whether results and transcript are side by side (a wide terminal).
func (m *Model) split() bool { return m.width >= 100 && m.tr != nil }

func (m *Model) bodyHeight() int    { return max(1, m.height-3) }
func (m *Model) resultsHeight() int { return m.bodyHeight() }

// fit makes lines exactly n lines of exactly width cells.
func fit(lines []string, n, width int) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(lines) {
			out[i] = pad(lines[i], width)
		} else {
			out[i] = strings.Repeat(" ", width)
		}
	}
	return out
}

func (m *Model) header() string {
	label := m.st.label.Render("annals ▸ ")
	if m.focus != focusSearch {
		label = m.st.dim.Render("annals ▸ ")
	}
	return label + m.input.View()
}

func (m *Model) subheader() string {
	var parts []string
	switch {
	case m.s.busy:
		parts = append(parts, "searching…")
	case m.s.query == "":
		parts = append(parts, human.Count(m.s.total, "recent chat", "recent chats"))
	default:
		of := strconv.Itoa(m.s.total)
		if m.s.atLeast {
			of = "at least " + of
		}
		n := m.s.total
		if m.s.atLeast {
			n = 2 // "at least 1": more than one may match
		}
		parts = append(parts, fmt.Sprintf("%d of %s %s", len(m.s.rows), of, human.Noun(n, "chat matches", "chats match")))
	}
	if f := m.filterSummary(); f != "" {
		parts = append(parts, "filter: "+f)
	}
	if m.s.rank != "" { // chosen by the person; "" is the history's default
		parts = append(parts, "rank: "+m.s.rank)
	}
	if m.s.partial != "" {
		parts = append(parts, "partial: "+oneLine(m.s.partial))
	}
	if m.opts.ReadOnly {
		parts = append(parts, "read-only")
	}
	return m.st.dim.Render(strings.Join(parts, " · "))
}

func (m *Model) filterSummary() string {
	f := oneLine(m.s.filterText)
	if m.s.filter.IncludeArchived && !strings.Contains(f, "archived") {
		f = strings.TrimSpace(f + " archived")
	}
	return f
}

func (m *Model) statusLine() string { return clip(m.statusText(), m.width) }

func (m *Model) statusText() string {
	if m.promptKind == promptRun && m.confirm != nil {
		return m.st.bad.Render("run "+clip(oneLine(m.confirm.ShellLine()), m.width-25)) + " now? y/N"
	}
	if m.promptKind != promptNone {
		return m.prompt.View()
	}
	if m.status != "" {
		if m.statusBad {
			return m.st.bad.Render(clip(m.status, m.width))
		}
		return clip(m.status, m.width)
	}
	return m.st.dim.Render("? keys · / search · enter open · tab pane · p pin · t tag · r rename · x archive · q quit")
}

// resultLines draws the results pane: three lines a chat (title and last activity; agent,
// source tool and repository; the snippet), the selected one in reverse video.
func (m *Model) resultLines(width int) []string {
	if len(m.s.rows) == 0 {
		if m.s.busy {
			return nil
		}
		return []string{m.st.dim.Render("  nothing found: try fewer words, a prefix*, or F to clear filters")}
	}
	visible := max(1, m.resultsHeight()/rowLines)
	if m.s.sel < m.s.top {
		m.s.top = m.s.sel
	}
	if m.s.sel >= m.s.top+visible {
		m.s.top = m.s.sel - visible + 1
	}
	var out []string
	for i := m.s.top; i < len(m.s.rows) && i < m.s.top+visible; i++ {
		r := m.s.rows[i]
		c := r.chat
		when := ago(c.LastActivity, m.opts.Now())
		flags := ""
		if c.Pinned {
			flags += "[pinned] "
		}
		if c.ArchivedAt != nil {
			flags += "[archived] "
		}
		title := flags + oneLine(orText(c.Title, c.ID))
		first := pad(" "+title, width-len(when)-1) + " " + when
		if i == m.s.sel && m.focus != focusSearch {
			first = m.st.sel.Render(pad(first, width))
		} else if i == m.s.sel {
			first = m.st.title.Render(first)
		}
		meta := []string{orText(c.AgentID, "-"), orText(c.Attributes["source"], "-"), orText(c.Attributes["repository"], c.Attributes["cwd"])}
		second := m.st.dim.Render("   " + oneLine(strings.Join(meta, " · ")))
		third := "   "
		if r.snippet != "" {
			third += highlight(r.snippet, func(s string) string { return m.st.mark.Render(s) })
		} else if len(c.Tags) > 0 {
			third += m.st.dim.Render("tags: " + oneLine(strings.Join(c.Tags, " ")))
		}
		out = append(out, first, clip(second, width), clip(third, width))
	}
	return out
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// ago is a short age: 5m, 3h, 2d, else the date.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}

// helpLines lists every key, in as many columns as the height needs.
func (m *Model) helpLines(height int) []string {
	keys := m.keys.all()
	rows := max(1, height-2)
	cols := (len(keys) + rows - 1) / rows
	rows = (len(keys) + cols - 1) / cols
	colWidth := m.width / cols
	out := []string{m.st.title.Render("Keys") + m.st.dim.Render("  (? or esc closes; the search box takes docs/QUERY.md; f filters by "+filterKeys+")")}
	for r := 0; r < rows; r++ {
		var line strings.Builder
		for c := 0; c < cols; c++ {
			if i := c*rows + r; i < len(keys) {
				h := keys[i].Help()
				line.WriteString(pad(fmt.Sprintf("  %-15s %s", h.Key, h.Desc), colWidth))
			}
		}
		out = append(out, line.String())
	}
	return out
}

// chatMeta is the transcript pane's heading: title, then who, where and what state.
func (m *Model) chatMeta(c *annals.Chat, width int) []string {
	var state []string
	state = append(state, c.ID, orText(c.AgentID, "-"), orText(c.Attributes["source"], "-"))
	if r := orText(c.Attributes["repository"], c.Attributes["cwd"]); r != "" {
		state = append(state, r)
	}
	state = append(state, human.Count(c.Totals.Entries, "entry", "entries"))
	if c.Pinned {
		state = append(state, "pinned")
	}
	if c.ArchivedAt != nil {
		state = append(state, "archived")
	}
	if len(c.Tags) > 0 {
		state = append(state, "tags: "+strings.Join(c.Tags, " "))
	}
	return []string{
		clip(m.st.title.Render(oneLine(orText(c.Title, "(untitled)"))), width),
		clip(m.st.dim.Render(oneLine(strings.Join(state, " · "))), width),
	}
}
