package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
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
		t.cache[e.Seq] = body
	}
	hit := slices.Contains(t.hits, e.Seq)
	out := make([]string, len(body))
	for j, l := range body {
		marker := "  "
		switch {
		case i == t.sel && m.focus == focusTranscript:
			marker = m.st.sel.Render("▌") + " "
		case i == t.sel:
			marker = "▌ "
		case hit && j == 0:
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
				for _, l := range wrap(safe(e.Reasoning), width-4, maxEntryLines) {
					out = append(out, m.st.dim.Render("  │ "+l))
				}
			} else {
				out = append(out, m.st.dim.Render(clip(fmt.Sprintf("  (reasoning, %d bytes: space shows it)", len(e.Reasoning)), width)))
			}
		}
		if e.Text != "" {
			for _, l := range wrap(safe(e.Text), width-2, maxEntryLines) {
				out = append(out, "  "+l)
			}
		}
		return out
	case annals.KindTool:
		return m.toolBody(e, width, when, hit, open)
	}
	head := fmt.Sprintf("%s %s %s", m.st.dim.Render(string(e.Kind)), m.st.dim.Render(fmt.Sprintf("#%d", e.Seq)), oneLine(e.Text))
	if !open {
		return []string{clip(head+hit, width)}
	}
	out := []string{clip(m.st.dim.Render(fmt.Sprintf("%s #%d · %s", e.Kind, e.Seq, when))+hit, width)}
	for _, l := range wrap(safe(e.Text), width-2, maxEntryLines) {
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
	head := fmt.Sprintf("%s %s %s %s", sign, m.st.tool.Render(oneLine(tc.Name)), mark, m.st.dim.Render(oneLine(string(tc.Arguments))))
	if !open {
		return []string{clip(head+hit, width)}
	}
	out := []string{clip(fmt.Sprintf("%s %s %s %s", sign, m.st.tool.Render(oneLine(tc.Name)), mark, m.st.dim.Render(fmt.Sprintf("#%d · %s", e.Seq, when)))+hit, width)}
	if len(tc.Arguments) > 0 {
		out = append(out, m.st.dim.Render("  arguments:"))
		for _, l := range wrap(safe(prettyJSON(tc.Arguments)), width-4, maxEntryLines) {
			out = append(out, "    "+l)
		}
	}
	if tc.Result != "" {
		out = append(out, m.st.dim.Render("  result:"))
		for _, l := range wrap(safe(tc.Result), width-4, maxEntryLines) {
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
