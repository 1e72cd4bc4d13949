package markdown

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// runComment is the JSON of an <!-- annals:run --> line: every field of one run, exactly. The
// table under it shows the same runs rounded for people (times to the second in UTC, cost to
// four decimals), so Parse reads the runs from these lines only.
type runComment struct {
	ID string `json:"id"`
	// ChatID is set only when the run's chat id differs from the chat's, as for entries.
	ChatID       *string          `json:"chat_id,omitempty"`
	Status       annals.RunStatus `json:"status"`
	Model        string           `json:"model,omitempty"`
	StartedAt    time.Time        `json:"started_at"`
	EndedAt      *time.Time       `json:"ended_at,omitempty"`
	InputTokens  int64            `json:"input_tokens,omitempty"`
	OutputTokens int64            `json:"output_tokens,omitempty"`
	CacheRead    int64            `json:"cache_read_tokens,omitempty"`
	CacheCreate  int64            `json:"cache_creation_tokens,omitempty"`
	Context      int64            `json:"context_tokens,omitempty"`
	CostUSD      float64          `json:"cost_usd,omitempty"`
	Kind         annals.RunKind   `json:"kind,omitempty"`
}

// runsTableHeader opens the runs table; Parse checks it to find the table's rows.
const runsTableHeader = "| Run | Status | Model | Started | Ended | Tokens | Cost |"

// renderRuns writes the runs section: one comment line per run, then the same runs as a table.
// The comments come first and as a block of their own because a line that is not a table row
// would end a GFM table. Table cells are escaped text, not code spans, because a GFM table
// splits cells on '|' even inside code spans.
func renderRuns(w *bufio.Writer, chat *annals.Chat, runs []*annals.Run) error {
	w.WriteString("## Runs\n\n")
	for i, r := range runs {
		rc := runComment{
			ID: r.ID, Status: r.Status, Model: r.Model, StartedAt: r.StartedAt, EndedAt: r.EndedAt,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD,
			CacheRead: r.CacheReadTokens, CacheCreate: r.CacheCreationTokens, Context: r.ContextTokens, Kind: r.Kind,
		}
		if r.ChatID != chat.ID {
			id := r.ChatID
			rc.ChatID = &id
		}
		js, err := encodeComment(rc)
		if err != nil {
			return fmt.Errorf("markdown: render run %d (id %q): %w", i, r.ID, err)
		}
		w.WriteString(runPrefix)
		w.Write(js)
		w.WriteString(markerSuffix + "\n")
	}
	w.WriteString("\n" + runsTableHeader + "\n|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		started, ended := "", ""
		if !r.StartedAt.IsZero() {
			started = r.StartedAt.UTC().Format(time.RFC3339)
		}
		if r.EndedAt != nil {
			ended = r.EndedAt.UTC().Format(time.RFC3339)
		}
		cells := []string{
			escapeInline(oneLine(r.ID)), statusLabel(r.Status), escapeInline(oneLine(r.Model)),
			started, ended, groupDigits(r.InputTokens) + " in / " + groupDigits(r.OutputTokens) + " out",
			formatCost(r.CostUSD),
		}
		w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	w.WriteString("\n")
	return nil
}

// runs parses the runs section from its first comment line (already read): the run comments,
// a blank line, and the table, whose rows must be as many as the comments. Counting the rows
// catches a run line deleted by hand, which would otherwise drop a run without a trace.
func (p *parser) runs(line string, chat *annals.Chat) ([]*annals.Run, error) {
	var runs []*annals.Run
	for strings.HasPrefix(line, runPrefix) {
		r, err := p.run(line, chat, len(runs))
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		var ok bool
		if line, ok = p.readLine(); !ok {
			return nil, p.invalid(nil, "document ends inside the runs section (truncated?)")
		}
	}
	if line != "" {
		return nil, p.invalid(nil, "want a blank line after the run comments, got %.60q", line)
	}
	if err := p.expectLine(runsTableHeader, "the runs table header"); err != nil {
		return nil, err
	}
	rows := -1 // the separator line is not a row
	for {
		line, ok := p.readLine()
		if !ok {
			return nil, p.invalid(nil, "document ends inside the runs table (truncated?)")
		}
		if line == "" {
			break
		}
		if !strings.HasPrefix(line, "|") {
			return nil, p.invalid(nil, "want a row of the runs table, got %.60q", line)
		}
		rows++
	}
	if rows != len(runs) {
		return nil, p.invalid(nil, "the runs table has %d rows but the document holds %d run comments (edited?)", rows, len(runs))
	}
	return runs, nil
}

// run parses one <!-- annals:run --> line.
func (p *parser) run(line string, chat *annals.Chat, i int) (*annals.Run, error) {
	var rc runComment
	if err := p.comment(line, runPrefix, fmt.Sprintf("run %d comment", i+1), &rc); err != nil {
		return nil, err
	}
	r := &annals.Run{
		ID: rc.ID, ChatID: chat.ID, Status: rc.Status, Model: rc.Model, StartedAt: rc.StartedAt, EndedAt: rc.EndedAt,
		InputTokens: rc.InputTokens, OutputTokens: rc.OutputTokens, CostUSD: rc.CostUSD,
		CacheReadTokens: rc.CacheRead, CacheCreationTokens: rc.CacheCreate, ContextTokens: rc.Context, Kind: rc.Kind,
	}
	if rc.ChatID != nil {
		r.ChatID = *rc.ChatID
	}
	return r, nil
}
