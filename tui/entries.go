package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// outcomeMark is how a tool call's outcome reads, with or without colour.
var outcomeMark = map[annals.Outcome]string{
	annals.OutcomeSucceeded: "✓",
	annals.OutcomeFailed:    "✗ failed",
	annals.OutcomeBlocked:   "⊘ blocked",
	annals.OutcomeCancelled: "⊗ cancelled",
}

// transcriptLines draws the transcript pane: the chat's heading, then entries from the top one
// shown, scrolled so the selected entry is in view.
func (m *Model) transcriptLines(width int) []string {
	t := m.tr
	if t == nil {
		return nil
	}
	out := m.chatMeta(t.chat, width)
	room := m.bodyHeight() - len(out)
	if len(t.entries) == 0 {
		if t.loading {
			return append(out, m.st.dim.Render("loading…"))
		}
		return append(out, m.st.dim.Render("no entries"))
	}
	t.sel = max(0, min(t.sel, len(t.entries)-1))
	if t.sel < t.top {
		t.top = t.sel
	}
	// Scroll down until the selected entry ends inside the pane (or starts at its top).
	for t.top < t.sel && m.linesBetween(t.top, t.sel, width) > room {
		t.top++
	}
	var lines []string
	if t.top == 0 && t.moreBefore() {
		lines = append(lines, m.st.dim.Render("  ↑ earlier entries load as you move up"))
	}
	for i := t.top; i < len(t.entries) && len(lines) < room; i++ {
		lines = append(lines, m.entryLines(i, width)...)
	}
	return append(out, lines...)
}

// linesBetween counts the lines of entries from..to inclusive.
func (m *Model) linesBetween(from, to, width int) int {
	n := 0
	for i := from; i <= to; i++ {
		n += len(m.entryLines(i, width))
	}
	return n
}

// entryLines draws one entry: a marker column (the selection, a matched entry), its header and
// body. Tool calls, system notes and events are one line until expanded.
func (m *Model) entryLines(i, width int) []string {
	t := m.tr
	e := t.entries[i]
	body, ok := t.cache[e.Seq]
	if !ok || len(t.cache) == 0 {
		body = m.entryBody(e, width-2)
		if r := t.runAt(i); r != nil {
			body = append([]string{m.runLine(r, width-2)}, body...)
		}
		t.cache[e.Seq] = body
	}
	hit := slices.Contains(t.hits, e.Seq)
	head := 0 // the entry's own first line, below its run's
	if t.runAt(i) != nil {
		head = 1
	}
	out := make([]string, len(body))
	for j, l := range body {
		marker := "  "
		switch {
		case i == t.sel && m.focus == focusTranscript:
			marker = m.st.sel.Render("▌") + " "
		case i == t.sel:
			marker = "▌ "
		case hit && j == head:
			marker = m.st.hit.Render("◆") + " "
		}
		out[j] = marker + l
	}
	return out
}

// entryBody lays out an entry's text in width cells.
func (m *Model) entryBody(e *annals.Entry, width int) []string {
	when := e.Time.Local().Format("2006-01-02 15:04")
	open := m.tr.expanded[e.Seq]
	hit := ""
	if slices.Contains(m.tr.hits, e.Seq) {
		hit = m.st.hit.Render(" · match")
	}
	switch e.Kind {
	case annals.KindUser, annals.KindAssistant:
		who := m.st.user.Render("you")
		if e.Kind == annals.KindAssistant {
			who = m.st.label.Render("assistant")
		}
		out := []string{clip(fmt.Sprintf("%s %s%s", who, m.st.dim.Render(fmt.Sprintf("#%d · %s", e.Seq, when)), hit), width)}
		if e.Reasoning != "" {
			if open {
				for _, l := range m.marked(e.Reasoning, width-4, m.st.dim.Render) {
					out = append(out, m.st.dim.Render("  │ ")+l)
				}
			} else {
				out = append(out, m.st.dim.Render(clip(fmt.Sprintf("  (reasoning, %d bytes: space shows it)", len(e.Reasoning)), width)))
			}
		}
		if e.Text != "" {
			for _, l := range m.marked(e.Text, width-2, nil) {
				out = append(out, "  "+l)
			}
		}
		return out
	case annals.KindTool:
		return m.toolBody(e, width, when, hit, open)
	}
	head := fmt.Sprintf("%s %s %s", m.st.dim.Render(string(e.Kind)), m.st.dim.Render(fmt.Sprintf("#%d", e.Seq)), m.markedLine(e.Text, nil))
	if !open {
		return []string{clip(head+hit, width)}
	}
	out := []string{clip(m.st.dim.Render(fmt.Sprintf("%s #%d · %s", e.Kind, e.Seq, when))+hit, width)}
	for _, l := range m.marked(e.Text, width-2, nil) {
		out = append(out, "  "+l)
	}
	return out
}

// toolBody is a tool call: one line (name, outcome, arguments) until expanded, then its
// arguments and result.
func (m *Model) toolBody(e *annals.Entry, width int, when, hit string, open bool) []string {
	tc := e.Tool
	if tc == nil {
		tc = &annals.ToolCall{}
	}
	sign := "▸"
	if open {
		sign = "▾"
	}
	mark := outcomeMark[tc.Outcome]
	if tc.Outcome != "" && tc.Outcome != annals.OutcomeSucceeded {
		mark = m.st.bad.Render(mark)
	}
	head := fmt.Sprintf("%s %s %s %s", sign, m.st.tool.Render(oneLine(tc.Name)), mark, m.markedLine(string(tc.Arguments), m.st.dim.Render))
	if !open {
		return []string{clip(head+hit, width)}
	}
	out := []string{clip(fmt.Sprintf("%s %s %s %s", sign, m.st.tool.Render(oneLine(tc.Name)), mark, m.st.dim.Render(fmt.Sprintf("#%d · %s", e.Seq, when)))+hit, width)}
	if len(tc.Arguments) > 0 {
		out = append(out, m.st.dim.Render("  arguments:"))
		for _, l := range m.marked(prettyJSON(tc.Arguments), width-4, nil) {
			out = append(out, "    "+l)
		}
	}
	if tc.Result != "" {
		out = append(out, m.st.dim.Render("  result:"))
		for _, l := range m.marked(tc.Result, width-4, nil) {
			out = append(out, "    "+l)
		}
	}
	return out
}

// prettyJSON indents arguments that are small enough to show whole.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) > maxShownBytes {
		return string(raw)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return strings.TrimSpace(buf.String())
}

// marked lays out an entry's text (made safe) in lines of width cells, the words the open
// chat's query matched highlighted and the rest styled by plain (nil: as it is).
func (m *Model) marked(text string, width int, plain func(...string) string) []string {
	s := safe(text)
	return wrapMarked(s, width, maxEntryLines, m.marking(s, plain))
}

// markedLine is text (made safe) on one line, highlighted as marked highlights it.
func (m *Model) markedLine(text string, plain func(...string) string) string {
	s := oneLine(text)
	return m.marking(s, plain).style(s, 0, len(s))
}

// marking finds the open chat's query's words in the safe text s, by the index's own token
// rules (query.Spans), so what is highlighted is what the search matched.
func (m *Model) marking(s string, plain func(...string) string) marking {
	mk := marking{mark: func(t string) string { return m.st.mark.Render(t) }}
	if plain != nil {
		mk.plain = func(t string) string { return plain(t) }
	}
	if m.tr != nil {
		mk.marks = m.tr.terms.Ranges(s, query.Fold)
	}
	return mk
}

// runLine is a run's boundary, as the web UI's: its id, model and status, tokens in (with the
// part read from and written to the prompt cache, where the source says) and out, the context's
// size at its last model call and its recorded cost.
func (m *Model) runLine(r *annals.Run, width int) string {
	parts := []string{"run " + oneLine(r.ID)}
	if r.Model != "" {
		parts = append(parts, oneLine(r.Model))
	}
	parts = append(parts, string(r.Status))
	if r.InputTokens > 0 || r.OutputTokens > 0 {
		in := shortCount(r.InputTokens) + " in"
		if r.CacheReadTokens > 0 || r.CacheCreationTokens > 0 {
			in += fmt.Sprintf(" (%s cache read, %s cache write)", shortCount(r.CacheReadTokens), shortCount(r.CacheCreationTokens))
		}
		parts = append(parts, in+" / "+shortCount(r.OutputTokens)+" out")
	}
	if r.ContextTokens > 0 {
		parts = append(parts, "context "+shortCount(r.ContextTokens))
	}
	if r.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", r.CostUSD))
	}
	return clip(m.st.dim.Render("── "+strings.Join(parts, " · ")), width)
}

// shortCount is a token count in at most four digits and a unit (950, 12.3k, 1.2M).
func shortCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}
