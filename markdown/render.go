package markdown

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Render writes chat, its runs and its entries to w as a Markdown export (see the package
// documentation for the layout). Runs and entries are written in the order given; each run is
// carried exactly by a comment line, which Parse reads back, and shown in a table for people.
// The totals line shows chat.Totals, the store's counters for the whole chat, even when entries
// is only part of it.
//
// Render fails only on a nil chat, run or entry, on a value that JSON cannot encode (a time outside
// the years 0-9999, a NaN cost) and on a write error.
func Render(w io.Writer, chat *annals.Chat, runs []*annals.Run, entries []*annals.Entry) error {
	if chat == nil {
		return errors.New("markdown: render: chat is nil")
	}
	for i, e := range entries {
		if e == nil {
			return fmt.Errorf("markdown: render: entry %d is nil", i)
		}
	}
	for i, r := range runs {
		if r == nil {
			return fmt.Errorf("markdown: render: run %d is nil", i)
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := renderChat(bw, chat, runs); err != nil {
		return err
	}
	models := make(map[string]string, len(runs))
	for _, r := range runs {
		models[r.ID] = r.Model
	}
	for i, e := range entries {
		if err := renderEntry(bw, chat, e, i, models); err != nil {
			return err
		}
	}
	end, err := encodeComment(endComment{Entries: len(entries)})
	if err != nil {
		return fmt.Errorf("markdown: render end marker: %w", err)
	}
	bw.WriteString(endPrefix)
	bw.Write(end)
	bw.WriteString(markerSuffix + "\n")
	// bufio.Writer keeps the first write error and returns it from every later call, so one
	// check here covers every write above.
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("markdown: write: %w", err)
	}
	return nil
}

func renderChat(w *bufio.Writer, chat *annals.Chat, runs []*annals.Run) error {
	// The description follows the header list directly, so it must not start like a list item
	// or an indented line, which a renderer would fold into that list.
	descFenced := chat.Description != "" && !proseSafe(chat.Description, true)
	sumFenced := chat.Summary != "" && !proseSafe(chat.Summary, false)
	cc := chatComment{
		V:                 formatVersion,
		ID:                chat.ID,
		TenantID:          chat.TenantID,
		UserID:            chat.UserID,
		AgentID:           chat.AgentID,
		Attributes:        chat.Attributes,
		CreatedAt:         chat.CreatedAt,
		LastActivity:      chat.LastActivity,
		Status:            chat.Status,
		Title:             chat.Title,
		Tags:              chat.Tags,
		Pinned:            chat.Pinned,
		ArchivedAt:        chat.ArchivedAt,
		SummaryUpdatedAt:  chat.SummaryUpdatedAt,
		Totals:            chat.Totals,
		DescriptionBytes:  int64(len(chat.Description)),
		DescriptionFenced: descFenced,
		SummaryBytes:      int64(len(chat.Summary)),
		SummaryFenced:     sumFenced,
	}
	js, err := encodeComment(cc)
	if err != nil {
		return fmt.Errorf("markdown: render chat %q: %w", chat.ID, err)
	}
	w.WriteString(chatPrefix)
	w.Write(js)
	w.WriteString(markerSuffix + "\n")

	title := "Untitled chat"
	if t := strings.TrimSpace(oneLine(chat.Title)); t != "" {
		title = escapeInline(t)
	}
	w.WriteString("# " + title + "\n\n")

	renderHeader(w, chat)
	if chat.Description != "" {
		writeProse(w, chat.Description, descFenced)
	}
	if chat.Summary != "" {
		w.WriteString("## Summary\n")
		if chat.SummaryUpdatedAt != nil {
			w.WriteString("*Updated " + chat.SummaryUpdatedAt.UTC().Format(time.RFC3339) + "*\n")
		}
		w.WriteString("\n")
		writeProse(w, chat.Summary, sumFenced)
	}
	if len(runs) > 0 {
		if err := renderRuns(w, chat, runs); err != nil {
			return err
		}
	}
	w.WriteString("## Transcript\n\n")
	return nil
}

// renderHeader writes the header list under the title. Parse skips it as one block, so every
// item is one non-empty line.
func renderHeader(w *bufio.Writer, chat *annals.Chat) {
	ids := []string{"**Chat:** " + codeSpan(chat.ID), "**Tenant:** " + codeSpan(chat.TenantID)}
	if chat.UserID != "" {
		ids = append(ids, "**User:** "+codeSpan(chat.UserID))
	}
	if chat.AgentID != "" {
		ids = append(ids, "**Agent:** "+codeSpan(chat.AgentID))
	}
	writeItem(w, ids)
	var when []string
	if !chat.CreatedAt.IsZero() {
		when = append(when, "**Created:** "+chat.CreatedAt.UTC().Format(time.RFC3339))
	}
	if !chat.LastActivity.IsZero() {
		when = append(when, "**Last activity:** "+chat.LastActivity.UTC().Format(time.RFC3339))
	}
	if chat.Status != "" {
		when = append(when, "**Status:** "+statusLabel(chat.Status))
	}
	writeItem(w, when)
	var state []string
	if chat.Pinned {
		state = append(state, "**Pinned:** yes")
	}
	if chat.ArchivedAt != nil {
		state = append(state, "**Archived:** "+chat.ArchivedAt.UTC().Format(time.RFC3339))
	}
	writeItem(w, state)
	if len(chat.Tags) > 0 {
		tags := make([]string, len(chat.Tags))
		for i, t := range chat.Tags {
			tags[i] = codeSpan(t)
		}
		w.WriteString("- **Tags:** " + strings.Join(tags, ", ") + "\n")
	}
	if len(chat.Attributes) > 0 {
		keys := make([]string, 0, len(chat.Attributes))
		for k := range chat.Attributes {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		pairs := make([]string, len(keys))
		for i, k := range keys {
			pairs[i] = codeSpan(k) + " = " + codeSpan(chat.Attributes[k])
		}
		w.WriteString("- **Attributes:** " + strings.Join(pairs, ", ") + "\n")
	}
	t := chat.Totals
	w.WriteString("- **Totals:** " + plural(t.Entries, "entry", "entries") + " · " + plural(t.Runs, "run", "runs") +
		" · " + groupDigits(t.InputTokens) + " input / " + groupDigits(t.OutputTokens) + " output tokens · " +
		formatCost(t.CostUSD) + "\n\n")

}

func renderEntry(w *bufio.Writer, chat *annals.Chat, e *annals.Entry, i int, models map[string]string) error {
	textFenced := e.Text != "" && !proseSafe(e.Text, false)
	ec := entryComment{
		ID:             e.ID,
		Seq:            e.Seq,
		Kind:           e.Kind,
		RunID:          e.RunID,
		SourceIDs:      e.SourceIDs,
		Channel:        e.Channel,
		CorrelationID:  e.CorrelationID,
		Time:           e.Time,
		InputTokens:    e.InputTokens,
		OutputTokens:   e.OutputTokens,
		TextBytes:      int64(len(e.Text)),
		TextFenced:     textFenced,
		ReasoningBytes: int64(len(e.Reasoning)),
	}
	if e.ChatID != chat.ID {
		id := e.ChatID
		ec.ChatID = &id
	}
	if len(e.Metadata) > 0 {
		if utf8.Valid(e.Metadata) {
			s := string(e.Metadata)
			ec.Metadata = &s
		} else {
			ec.MetadataBase64 = e.Metadata
		}
	}
	var args []byte
	var argsIndented bool
	if e.Tool != nil {
		args, argsIndented = displayArguments(e.Tool.Arguments)
		ec.Tool = &toolComment{
			Name:              e.Tool.Name,
			CallID:            e.Tool.CallID,
			Outcome:           e.Tool.Outcome,
			ArgumentsBytes:    int64(len(args)),
			ArgumentsIndented: argsIndented,
			ResultBytes:       int64(len(e.Tool.Result)),
		}
	}
	js, err := encodeComment(ec)
	if err != nil {
		return fmt.Errorf("markdown: render entry %d (id %q): %w", i, e.ID, err)
	}
	w.WriteString(entryPrefix)
	w.Write(js)
	w.WriteString(markerSuffix + "\n")

	// Heading block: the heading and an optional metadata line, then a blank line. Parse skips
	// it as one block, so both lines are single, non-empty lines.
	w.WriteString(heading(e, i))
	w.WriteString("\n")
	if meta := metaLine(e, models); meta != "" {
		w.WriteString(meta + "\n")
	}
	w.WriteString("\n")

	if e.Reasoning != "" {
		writeFenced(w, "**Reasoning**", "text", e.Reasoning)
	}
	if e.Text != "" {
		writeProse(w, e.Text, textFenced)
	}
	if e.Tool != nil {
		if len(args) > 0 {
			info := "text"
			if json.Valid(args) {
				info = "json"
			}
			writeFenced(w, "**Arguments**", info, string(args))
		}
		if e.Tool.Result != "" {
			info := "text"
			if looksLikeJSON(e.Tool.Result) {
				info = "json"
			}
			writeFenced(w, "**Result**", info, e.Tool.Result)
		}
	}
	return nil
}

// heading is the entry's "### seq · Kind · time" line.
func heading(e *annals.Entry, i int) string {
	n := e.Seq
	if n == 0 {
		// An entry that was never stored has no seq yet; its position still helps a reader.
		n = int64(i + 1)
	}
	parts := []string{"### " + strconv.FormatInt(n, 10)}
	switch e.Kind {
	case annals.KindUser:
		parts = append(parts, "User")
	case annals.KindAssistant:
		parts = append(parts, "Assistant")
	case annals.KindTool:
		label := "Tool"
		if e.Tool != nil && e.Tool.Name != "" {
			label += " " + codeSpan(e.Tool.Name)
		}
		parts = append(parts, label)
	case annals.KindSystem, annals.KindEvent:
		label := "System"
		if e.Kind == annals.KindEvent {
			label = "Event"
		}
		if e.Channel != "" {
			label += " " + codeSpan(e.Channel)
		}
		parts = append(parts, label)
	default:
		parts = append(parts, escapeInline(oneLine(string(e.Kind))))
	}
	if e.Tool != nil && e.Tool.Outcome != "" {
		parts = append(parts, outcomeLabel(e.Tool.Outcome))
	}
	if !e.Time.IsZero() {
		parts = append(parts, e.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	return strings.Join(parts, " · ")
}

// statusLabel shows a known status as is and anything else escaped.
func statusLabel(s annals.RunStatus) string {
	if _, err := annals.ParseRunStatus(string(s)); err == nil {
		return string(s)
	}
	return escapeInline(oneLine(string(s)))
}

func outcomeLabel(o annals.Outcome) string {
	switch o {
	case annals.OutcomeSucceeded:
		return "✓ succeeded"
	case annals.OutcomeFailed:
		return "✗ failed"
	case annals.OutcomeBlocked:
		return "⊘ blocked"
	case annals.OutcomeCancelled:
		return "⊗ cancelled"
	}
	return escapeInline(oneLine(string(o)))
}

// metaLine is the italic line under an entry's heading with what a reader may want to know
// but that does not belong in the heading; "" when there is nothing to say.
func metaLine(e *annals.Entry, models map[string]string) string {
	var items []string
	if e.RunID != "" {
		item := "run " + codeSpan(e.RunID)
		if m := models[e.RunID]; m != "" {
			item += " (" + escapeInline(oneLine(m)) + ")"
		}
		items = append(items, item)
	}
	if e.Tool != nil && e.Tool.CallID != "" {
		items = append(items, "call "+codeSpan(e.Tool.CallID))
	}
	if e.Channel != "" && e.Kind != annals.KindSystem && e.Kind != annals.KindEvent {
		items = append(items, "channel "+codeSpan(e.Channel))
	}
	if e.CorrelationID != "" {
		items = append(items, "correlation "+codeSpan(e.CorrelationID))
	}
	if len(e.SourceIDs) > 0 {
		ids := make([]string, len(e.SourceIDs))
		for i, s := range e.SourceIDs {
			ids[i] = codeSpan(s)
		}
		items = append(items, "source "+strings.Join(ids, ", "))
	}
	if e.InputTokens != 0 || e.OutputTokens != 0 {
		items = append(items, groupDigits(e.InputTokens)+" in / "+groupDigits(e.OutputTokens)+" out tokens")
	}
	if len(items) == 0 {
		return ""
	}
	return "*" + strings.Join(items, " · ") + "*"
}

// displayArguments returns the tool arguments as shown, and whether they are shown indented.
// Indenting is used only when compacting the indented form gives back the original bytes, so
// Parse can always restore them exactly.
func displayArguments(args json.RawMessage) ([]byte, bool) {
	if len(args) == 0 || !json.Valid(args) {
		return args, false
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, args, "", "  "); err != nil {
		return args, false
	}
	var back bytes.Buffer
	if err := json.Compact(&back, ind.Bytes()); err != nil || !bytes.Equal(back.Bytes(), args) {
		return args, false
	}
	return ind.Bytes(), true
}

// looksLikeJSON reports whether a tool result is a JSON object or array, so that it can be
// highlighted as JSON. It only picks the fence's info string.
func looksLikeJSON(s string) bool {
	t := strings.TrimSpace(s)
	return len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t))
}

// writeProse writes Markdown content raw, or inside a ````markdown fence when proseSafe said
// raw content could disturb the rest of the document. Either way it ends with a blank line.
func writeProse(w *bufio.Writer, s string, fenced bool) {
	if fenced {
		writeFenced(w, "", "markdown", s)
		return
	}
	w.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		w.WriteString("\n")
	}
	w.WriteString("\n")
}

// writeFenced writes an optional label line, then s in a backtick fence one longer than the
// longest backtick run in s (at least three). By the CommonMark rule a closing fence must be
// at least as long as the opening one, so no line of s can close it. A newline is added before
// the closing fence only when s does not end with one; Parse applies the same rule.
func writeFenced(w *bufio.Writer, label, info, s string) {
	if label != "" {
		w.WriteString(label + "\n")
	}
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	w.WriteString(fence + info + "\n")
	w.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		w.WriteString("\n")
	}
	w.WriteString(fence + "\n\n")
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// writeItem writes one header list item joining parts with " · ", or nothing without parts.
func writeItem(w *bufio.Writer, parts []string) {
	if len(parts) > 0 {
		w.WriteString("- " + strings.Join(parts, " · ") + "\n")
	}
}

// oneLine replaces control characters (newlines included) with spaces, so a value shown in a
// heading, list item or table cell cannot end its line. The exact value is in the comment.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// inlineSpecial are the ASCII punctuation characters that can start inline Markdown or HTML,
// a table cell boundary, or (in GitHub) math; a backslash makes each one literal.
const inlineSpecial = "\\`*_[]<>&#|~$!"

// escapeInline makes s literal text inside a heading, list item or table cell.
func escapeInline(s string) string {
	if !strings.ContainsAny(s, inlineSpecial) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(inlineSpecial, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// codeSpan shows s as inline code. The delimiter is one backtick longer than any run inside,
// and a space pads content that starts or ends with a backtick or a space, because a renderer
// strips one such space from each side.
func codeSpan(s string) string {
	s = oneLine(s)
	if s == "" {
		return "` `"
	}
	d := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[0] == ' ' || s[len(s)-1] == '`' || s[len(s)-1] == ' ' {
		return d + " " + s + " " + d
	}
	return d + s + d
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return groupDigits(n) + " " + many
}

// groupDigits formats n with thousands separators, for readability.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	if len(s) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.WriteString(sign)
	lead := len(s) % 3
	if lead > 0 {
		b.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// formatCost shows costs under a dollar with four decimals, so a cheap run does not read as
// $0.00 or $0.01.
func formatCost(c float64) string {
	if c != 0 && c < 1 && c > -1 {
		return "$" + strconv.FormatFloat(c, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(c, 'f', 2, 64)
}
