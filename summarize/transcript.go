package summarize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Rendering limits for the transcript sent to a model, in estimated tokens (EstimateTokens). A
// transcript is mostly tool output, and a model needs its gist, not its bulk: tool results and
// arguments are cut to these budgets before chunking, so they never crowd out the conversation.
const (
	renderTextTokens      = 1000 // a user, assistant or system message
	renderReasoningTokens = 150  // recorded reasoning
	renderArgsTokens      = 80   // a tool call's arguments
	renderResultTokens    = 160  // a tool call's result
	renderEventTokens     = 80   // an event's text
)

// transcriptTag delimits untrusted transcript text in a prompt. Text inside the transcript that
// would close the tag is defused (see defuse), so the data cannot end its own quotation.
const transcriptTag = "transcript"

// defuse breaks any closing delimiter tag inside untrusted text.
func defuse(s string) string {
	for _, tag := range []string{transcriptTag, "notes"} {
		s = strings.ReplaceAll(s, "</"+tag, "</ "+tag)
	}
	return s
}

// renderEntry renders one entry as a compact, role-tagged block: "[12] user: ...",
// "[13] tool Bash (failed): {args}\n    result: ...". Long text keeps its head and tail (an
// error usually sits at the end of a tool's output), with the cut marked.
func renderEntry(i int, e *annals.Entry) string {
	seq := e.Seq
	if seq == 0 {
		seq = int64(i + 1)
	}
	var b strings.Builder
	b.WriteString("[" + strconv.FormatInt(seq, 10) + "] ")
	switch e.Kind {
	case annals.KindUser:
		b.WriteString("user: " + squeezeTokens(e.Text, renderTextTokens))
	case annals.KindAssistant:
		b.WriteString("assistant: " + squeezeTokens(e.Text, renderTextTokens))
		if r := strings.TrimSpace(e.Reasoning); r != "" {
			b.WriteString("\n    (reasoning) " + squeezeTokens(oneLine(r), renderReasoningTokens))
		}
	case annals.KindTool:
		name, outcome := "(unnamed)", ""
		var args, result string
		if e.Tool != nil {
			name = oneLine(e.Tool.Name)
			outcome = string(e.Tool.Outcome)
			args = compactJSON(e.Tool.Arguments)
			result = e.Tool.Result
		}
		b.WriteString("tool " + name)
		if outcome != "" {
			b.WriteString(" (" + outcome + ")")
		}
		if args != "" {
			b.WriteString(": " + squeezeTokens(args, renderArgsTokens))
		}
		if strings.TrimSpace(result) != "" {
			b.WriteString("\n    result: " + squeezeTokens(strings.TrimSpace(result), renderResultTokens))
		}
	case annals.KindSystem:
		b.WriteString("system: " + squeezeTokens(e.Text, renderTextTokens))
	default:
		b.WriteString("event")
		if e.Channel != "" {
			b.WriteString(" " + e.Channel)
		}
		b.WriteString(": " + squeezeTokens(e.Text, renderEventTokens))
	}
	return defuse(b.String())
}

// compactJSON renders tool arguments on one line; invalid JSON is shown as text.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return oneLine(string(raw))
}

// squeeze trims s and, when it is longer than n bytes, keeps its head (two thirds) and tail (one
// third) around a marker that says how much was left out.
func squeeze(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return fmt.Sprintf("%s […%d bytes omitted…] %s", s[:head], t-head, s[t:])
}

// renderHeader renders the chat's human metadata, which helps a model name things; it is as
// untrusted as the transcript and quoted with it.
func renderHeader(chat *annals.Chat) string {
	if chat == nil {
		return ""
	}
	var lines []string
	if chat.Title != "" {
		lines = append(lines, "Title: "+clip(oneLine(chat.Title), 300))
	}
	if chat.Description != "" {
		lines = append(lines, "Description: "+clip(oneLine(chat.Description), 1000))
	}
	if len(chat.Tags) > 0 {
		lines = append(lines, "Tags: "+clip(oneLine(strings.Join(chat.Tags, ", ")), 300))
	}
	for _, k := range []string{"source", "repository", "git_branch"} {
		if v := chat.Attributes[k]; v != "" {
			lines = append(lines, k+": "+clip(oneLine(v), 200))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return defuse(strings.Join(lines, "\n"))
}

// chunkBlocks groups rendered blocks into chunks of at most budget estimated tokens, never
// splitting a block unless it alone exceeds the budget (then it is squeezed to fit). When there
// would be more than maxChunks chunks, the middle of the transcript is dropped, keeping the first
// chunk (the goal) and the last maxChunks-1 (where things stand), with a marker saying how many
// entries were left out: the cost of a recap stays bounded however long the chat.
func chunkBlocks(blocks []string, budget, maxChunks int) []string {
	type chunk struct {
		blocks []string
		size   int
	}
	var chunks []chunk
	var cur chunk
	for _, b := range blocks {
		t := EstimateTokens(b)
		if t > budget {
			b = squeezeTokens(b, budget-32)
			t = EstimateTokens(b)
		}
		if cur.size > 0 && cur.size+t > budget {
			chunks = append(chunks, cur)
			cur = chunk{}
		}
		cur.blocks = append(cur.blocks, b)
		cur.size += t
	}
	if cur.size > 0 {
		chunks = append(chunks, cur)
	}
	if len(chunks) > maxChunks {
		omitted := 0
		for _, c := range chunks[1 : len(chunks)-(maxChunks-1)] {
			omitted += len(c.blocks)
		}
		kept := append([]chunk{chunks[0]}, chunks[len(chunks)-(maxChunks-1):]...)
		marker := fmt.Sprintf("[…%d entries omitted to bound the cost of this recap…]", omitted)
		kept[1].blocks = append([]string{marker}, kept[1].blocks...)
		chunks = kept
	}
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = strings.Join(c.blocks, "\n")
	}
	return out
}
