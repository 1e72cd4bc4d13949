package markdown_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/markdown"
)

// tableRuns returns runs whose every field the runs table shows only approximately: times with
// nanoseconds and offsets, costs beyond four decimals, ids and models with table syntax, a
// status the store does not know, a run of another chat.
func tableRuns(chatID string) []*annals.Run {
	plus2 := time.FixedZone("", 2*3600)
	return []*annals.Run{
		{ID: "r1", ChatID: chatID, Status: annals.StatusCompleted, Model: "claude-sonnet-4", StartedAt: t0,
			EndedAt: ptrTime(t0.Add(time.Minute)), InputTokens: 1000, OutputTokens: 200, CostUSD: 0.01},
		{ID: "r|2 --> `x`", ChatID: chatID, Status: annals.StatusFailed, Model: "gpt|4 <b>\nnext",
			StartedAt: t0.Add(2*time.Minute + 123456789).In(plus2), EndedAt: ptrTime(t0.Add(3*time.Minute + 1).In(plus2)),
			InputTokens: 1234567, OutputTokens: 7654321, CostUSD: 0.000123456789},
		{ID: "r3", ChatID: chatID, Status: annals.StatusRunning, StartedAt: t0.Add(4 * time.Minute)},
		{ID: "recap-1", ChatID: chatID, Status: annals.StatusCompleted, Model: "gpt-4o-mini", StartedAt: t0.Add(4 * time.Minute),
			InputTokens: 300, OutputTokens: 40, Kind: annals.RunKindRecap},
		{ID: "r4", ChatID: "elsewhere", Status: annals.RunStatus("odd -- status"), StartedAt: t0.Add(5 * time.Minute), CostUSD: 1234.56789},
	}
}

// runDiff describes how got differs from want, or returns "" when every field is the same,
// times to the nanosecond and offset.
func runDiff(got, want *annals.Run) string {
	if !sameTime(got.StartedAt, want.StartedAt) {
		return fmt.Sprintf("started_at %v, want %v", got.StartedAt, want.StartedAt)
	}
	if (got.EndedAt == nil) != (want.EndedAt == nil) || (got.EndedAt != nil && !sameTime(*got.EndedAt, *want.EndedAt)) {
		return "ended_at differs"
	}
	g, w := *got, *want
	g.StartedAt, w.StartedAt, g.EndedAt, w.EndedAt = time.Time{}, time.Time{}, nil, nil
	if g != w {
		return fmt.Sprintf("\n got %+v\nwant %+v", g, w)
	}
	return ""
}

func checkRuns(t *testing.T, got, want []*annals.Run) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d runs, want %d", len(got), len(want))
	}
	for i := range want {
		if d := runDiff(got[i], want[i]); d != "" {
			t.Errorf("run %d: %s", i+1, d)
		}
	}
}

func TestRenderParseRoundTripsRunsExactly(t *testing.T) {
	chat, _, entries := fullChat()
	runs := tableRuns(chat.ID)
	doc := render(t, chat, runs, entries)
	got, err := markdown.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	checkRuns(t, got.Runs, runs)
	if len(got.Entries) != len(entries) {
		t.Errorf("got %d entries, want %d", len(got.Entries), len(entries))
	}
	if again := render(t, &got.Chat, got.Runs, got.Entries); again != doc {
		t.Errorf("second render differs from the first")
	}
}

func TestRenderWritesRunCommentsBeforeTheTable(t *testing.T) {
	chat := &annals.Chat{ID: "c1", TenantID: "t1", CreatedAt: t0, LastActivity: t0}
	runs := []*annals.Run{
		{ID: "r1", ChatID: "c1", Status: annals.StatusCompleted, Model: "m", StartedAt: t0, EndedAt: ptrTime(t0.Add(time.Second)),
			InputTokens: 1200, OutputTokens: 5, CostUSD: 0.0125},
		{ID: "r2", ChatID: "c1", Status: annals.StatusRunning, StartedAt: t0.Add(1500 * time.Millisecond)},
	}
	doc := render(t, chat, runs, nil)
	want := "## Runs\n\n" +
		`<!-- annals:run {"id":"r1","status":"completed","model":"m","started_at":"2026-03-14T10:02:11Z","ended_at":"2026-03-14T10:02:12Z","input_tokens":1200,"output_tokens":5,"cost_usd":0.0125} -->` + "\n" +
		`<!-- annals:run {"id":"r2","status":"running","started_at":"2026-03-14T10:02:12.5Z"} -->` + "\n\n" +
		"| Run | Status | Model | Started | Ended | Tokens | Cost |\n|---|---|---|---|---|---|---|\n" +
		"| r1 | completed | m | 2026-03-14T10:02:11Z | 2026-03-14T10:02:12Z | 1,200 in / 5 out | $0.0125 |\n" +
		"| r2 | running |  | 2026-03-14T10:02:12Z |  | 0 in / 0 out | $0.00 |\n\n" +
		"## Transcript\n"
	if !strings.Contains(doc, want) {
		t.Errorf("runs section not as expected:\n%s\nwant:\n%s", doc, want)
	}
}

// runLines matches the run comment lines and the blank line after them, which is what an
// export written before runs were carried exactly lacks.
var runLines = regexp.MustCompile(`(?m)(^<!-- annals:run .*\n)+\n`)

// An export written before the run comments (its runs table alone) still parses, entries and
// chat exactly, and without runs: its table is rounded, so Parse does not guess from it.
func TestParseReadsExportsWithoutRunComments(t *testing.T) {
	chat, runs, entries := fullChat()
	doc := render(t, chat, runs, entries)
	old := runLines.ReplaceAllString(doc, "")
	if old == doc || !strings.Contains(old, "## Runs\n\n| Run | Status |") {
		t.Fatalf("could not make the old layout:\n%s", old)
	}
	got, err := markdown.Parse(strings.NewReader(old))
	if err != nil {
		t.Fatalf("Parse of the old layout: %v", err)
	}
	if got.Runs != nil {
		t.Errorf("runs = %v, want none", got.Runs)
	}
	if g, w := mustJSON(t, got.Chat), mustJSON(t, chat); g != w {
		t.Errorf("chat:\n got %s\nwant %s", g, w)
	}
	if len(got.Entries) != len(entries) {
		t.Errorf("got %d entries, want %d", len(got.Entries), len(entries))
	}
}

func TestParseRefusesBrokenRunsSections(t *testing.T) {
	chat := &annals.Chat{ID: "c", TenantID: "t"}
	runs := tableRuns("c")[:2]
	entries := []*annals.Entry{{ID: "e", Seq: 1, Kind: annals.KindUser, Text: "hello"}}
	doc := render(t, chat, runs, entries)
	lines := strings.SplitAfter(doc, "\n")
	find := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("no line starts with %q:\n%s", prefix, doc)
		return -1
	}
	without := func(i int) string { return strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "") }
	run1, row1 := find("<!-- annals:run "), find("| r1 |")
	end := find("<!-- annals:end ")
	runsSection := strings.Join(lines[find("## Runs"):find("## Transcript")], "")
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"run comment deleted", without(run1), "has 2 rows but the document holds 1 run comments"},
		{"table row deleted", without(row1), "has 1 rows but the document holds 2 run comments"},
		{"bad run json", strings.Replace(doc, `{"id":"r1",`, `{"id":"r1",,`, 1), "bad run 1 comment JSON"},
		{"unknown run field", strings.Replace(doc, `{"id":"r1",`, `{"id":"r1","extra":1,`, 1), "unknown field"},
		{"no blank line before the table", strings.Replace(doc, " -->\n\n| Run |", " -->\n| Run |", 1), "want a blank line after the run comments"},
		{"no table", strings.Replace(doc, "| Run | Status |", "| Runs | Status |", 1), "runs table header"},
		{"run after an entry", strings.Join(lines[:end], "") + lines[run1] + strings.Join(lines[end:], ""), "want an entry or the end marker"},
		{"second runs section", strings.Replace(doc, "## Transcript\n", runsSection+"## Transcript\n", 1), "a second runs section"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := markdown.Parse(strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("Parse succeeded, want an error containing %q:\n%s", tc.want, tc.doc)
			}
			if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line ") {
				t.Errorf("error = %q (%s), want code invalid, a line and %q", err, annals.ErrorCode(err), tc.want)
			}
		})
	}
}

// The run comment, like the others, cannot end early whatever its strings hold.
func TestRunCommentCannotEndItsComment(t *testing.T) {
	nasty := "x --> y -- z --!> <!-- w --- <\u2028>"
	runs := []*annals.Run{{ID: nasty, ChatID: nasty, Status: annals.RunStatus(nasty), Model: nasty, InputTokens: -3, CostUSD: -1e-7}}
	doc := render(t, &annals.Chat{ID: "c", TenantID: "t"}, runs, nil)
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "<!-- annals:run ") {
			continue
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->")
		if len(inner) != len(line)-len("<!---->") || strings.Contains(inner, "--") || strings.ContainsAny(inner, "<>") {
			t.Errorf("run line can end early or nest: %s", line)
		}
	}
	got, err := markdown.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	checkRuns(t, got.Runs, runs)
}
