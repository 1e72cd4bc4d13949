package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/termsafe"
)

func runShow(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("show", "[flags] CHAT_ID", "Print one chat's metadata and transcript: messages, tool calls with their\narguments, results and outcomes.")
	c := readFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON: {chat, runs, entries}")
	scope := fs.String("scope", "", "scope to read the chat in (default: the widest this caller may use)")
	around := fs.Int64("around", 0, "show only a window of entries around this seq")
	window := fs.Int("context", history.DefaultContext, fmt.Sprintf("entries before and after --around (at most %d)", history.MaxContext))
	conversation := fs.Bool("conversation", false, "only user and assistant messages")
	noPager := fs.Bool("no-pager", false, "print straight to the terminal instead of through $PAGER")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("show needs exactly one chat id")
	}
	a, err := m.openQuery(ctx, c)
	if err != nil {
		return err
	}
	params := annals.GetParams{Chat: annals.ChatSelector{Scope: annals.Scope(*scope), ID: fs.Arg(0)}}
	if *conversation {
		params.Format = annals.ChatFormat(history.FormatConversation)
	}
	var chat *annals.Chat
	var entries []*annals.Entry
	if *around > 0 {
		params.AroundSeq, params.Context = *around, window
		res, err := a.svc.GetChat(a.ctx, params)
		if err != nil {
			return invalidIsUsage(err)
		}
		chat, entries = res.Chat, res.Entries
	} else {
		params.Limit = history.MaxGetLimit
		for {
			res, err := a.svc.GetChat(a.ctx, params)
			if err != nil {
				return invalidIsUsage(err)
			}
			// The next pages by the full id the first one was resolved to.
			chat, params.Chat.ID = res.Chat, res.Chat.ID
			entries = append(entries, res.Entries...)
			if !res.HasMore {
				break
			}
			params.Cursor = res.NextCursor
		}
	}
	runs, err := a.svc.FindChatRuns(a.ctx, annals.ChatSelector{Scope: annals.Scope(*scope), ID: chat.ID})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"chat": chat, "runs": runs, "entries": entries})
	}
	if !*noPager && m.IsTerminal(m.Stdout) {
		return m.paged(ctx, func(w io.Writer) error { return writeTranscript(termsafe.Writer{W: w}, chat, runs, entries) })
	}
	return writeTranscript(m.human(), chat, runs, entries)
}

// outcomeMark is how a tool outcome is marked in a transcript, readable without colour.
var outcomeMark = map[annals.Outcome]string{
	annals.OutcomeSucceeded: "✓ succeeded",
	annals.OutcomeFailed:    "✗ FAILED",
	annals.OutcomeBlocked:   "⊘ BLOCKED",
	annals.OutcomeCancelled: "⊗ cancelled",
}

func writeTranscript(w io.Writer, c *annals.Chat, runs []*annals.Run, entries []*annals.Entry) error {
	var b strings.Builder
	title := c.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "%s\n", title)
	fmt.Fprintf(&b, "  id %s · tenant %s", c.ID, c.TenantID)
	if c.UserID != "" {
		fmt.Fprintf(&b, " · user %s", c.UserID)
	}
	if c.AgentID != "" {
		fmt.Fprintf(&b, " · agent %s", c.AgentID)
	}
	fmt.Fprintf(&b, "\n  created %s · last activity %s · status %s\n", humanTime(c.CreatedAt), humanTime(c.LastActivity), orDash(string(c.Status)))
	fmt.Fprintf(&b, "  %s · %s · tokens %d in / %d out%s\n",
		plural(c.Totals.Entries, "entry", "entries"), plural(c.Totals.Runs, "run", "runs"), c.Totals.InputTokens, c.Totals.OutputTokens, costText(c.Totals.CostUSD))
	if c.Pinned {
		b.WriteString("  pinned\n")
	}
	if c.ArchivedAt != nil {
		fmt.Fprintf(&b, "  archived %s\n", humanTime(*c.ArchivedAt))
	}
	if len(c.Tags) > 0 {
		fmt.Fprintf(&b, "  tags: %s\n", strings.Join(c.Tags, ", "))
	}
	if len(c.Attributes) > 0 {
		keys := make([]string, 0, len(c.Attributes))
		for k := range c.Attributes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, c.Attributes[k])
		}
	}
	if c.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", indent(c.Description, "  "))
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "\nSummary:\n%s\n", indent(c.Summary, "  "))
	}
	b.WriteString("\n")
	for _, e := range entries {
		writeEntry(&b, e)
	}
	// The runs come after the transcript, the thing a reader opened the chat for.
	if len(runs) > 0 {
		b.WriteString("Runs:\n")
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "  run %s: %s", r.ID, r.Status)
		if r.Model != "" {
			fmt.Fprintf(&b, " · %s", r.Model)
		}
		fmt.Fprintf(&b, " · %d in%s / %d out", r.InputTokens, cacheText(r), r.OutputTokens)
		if r.ContextTokens > 0 {
			fmt.Fprintf(&b, " · context %d", r.ContextTokens)
		}
		fmt.Fprintf(&b, "%s\n", costText(r.CostUSD))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeEntry(b *strings.Builder, e *annals.Entry) {
	fmt.Fprintf(b, "── #%d %s", e.Seq, e.Kind)
	if e.Tool != nil {
		fmt.Fprintf(b, " %s", e.Tool.Name)
		if mark, ok := outcomeMark[e.Tool.Outcome]; ok {
			fmt.Fprintf(b, " %s", mark)
		}
	}
	if e.Channel != "" {
		fmt.Fprintf(b, " [%s]", e.Channel)
	}
	fmt.Fprintf(b, " · %s\n", e.Time.Local().Format("2006-01-02 15:04:05"))
	if e.Reasoning != "" {
		fmt.Fprintf(b, "  (reasoning)\n%s\n", indent(e.Reasoning, "  │ "))
	}
	if e.Text != "" {
		fmt.Fprintf(b, "%s\n", indent(e.Text, "  "))
	}
	if e.Tool != nil {
		if len(e.Tool.Arguments) > 0 {
			fmt.Fprintf(b, "  arguments:\n%s\n", indent(prettyJSON(e.Tool.Arguments), "    "))
		}
		if e.Tool.Result != "" {
			fmt.Fprintf(b, "  result:\n%s\n", indent(e.Tool.Result, "    "))
		}
	}
	b.WriteString("\n")
}

func prettyJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// costText is " · cost $0.1234", or nothing where no cost is known: most sources report none,
// and "$0.0000" on every chat would read as "free".
func costText(usd float64) string {
	if usd == 0 {
		return ""
	}
	return fmt.Sprintf(" · cost $%.4f", usd)
}

// cacheText is the part of a run's input read from and written to the prompt cache, as the web
// UI's run boundary shows it, or nothing when the source did not say.
func cacheText(r *annals.Run) string {
	if r.CacheReadTokens == 0 && r.CacheCreationTokens == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d cache read, %d cache write)", r.CacheReadTokens, r.CacheCreationTokens)
}
