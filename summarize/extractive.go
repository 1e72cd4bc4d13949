package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Extractive summary limits.
const (
	// DefaultMaxChars is the hard cap of an Extractive summary. Every section is bounded on its
	// own, so a typical chat summarises in well under half of it; the cap guarantees the bound
	// whatever the transcript holds.
	DefaultMaxChars = 4000
	// NoTranscript is the summary of a chat with nothing to summarise.
	NoTranscript = "No transcript yet."

	goalChars      = 300 // the first request, condensed
	changeChars    = 200 // each later change of direction
	decisionChars  = 200 // each decision sentence
	outcomeChars   = 300 // the last assistant message, condensed
	openEndChars   = 200 // each open end
	resultChars    = 120 // the part of a failed tool's result quoted in an open end
	argChars       = 80  // a command or path quoted from tool arguments
	maxToolNames   = 8   // tool names listed; the rest are counted
	maxFiles       = 5
	maxCommands    = 3
	maxChanges     = 2
	maxDecisions   = 3
	maxOpenEnds    = 5
	recentMessages = 5 // assistant messages searched for TODO-like open ends
)

// Extractive is the offline Summarizer. It calls no model: it picks and condenses what the
// transcript itself says, in four sections.
//
//   - Goal: the first substantive user request (harness tags and code removed, first sentences
//     up to 300 bytes), then up to two later user requests that change direction, chosen by cue
//     words ("instead", "actually", "switch", ...) and by how much new vocabulary they bring.
//   - Tools used: every tool with its call count and failures ("Bash ×5 (2 failed)"), the files
//     touched (from file_path/path/... arguments and apply_patch headers, relative to the chat's
//     cwd attribute) and the most frequent commands.
//   - Decisions: up to three assistant sentences with decision cues ("root cause", "the fix is",
//     "switch to", "instead of", "I'll", "because", ...), scored by cue strength with a small
//     bonus for coming later, de-duplicated, shown in transcript order. Exploratory sentences
//     ("I'll start by running the tests") are penalised: they are plans, not decisions.
//   - Outcome / open ends: the first sentences of the last assistant message, the run status,
//     and open ends: tool failures never followed by a success of the same tool, a last user
//     message that no assistant message answered (its questions, or its first sentence), and
//     TODO/FIXME/"next step"/"remaining" mentions in the last few assistant messages (moved out
//     of the outcome, so they are listed once, where a reader looks for them).
//
// Recorded reasoning is a weak source for Decisions only: its sentences compete at half the
// score of the assistant's visible text, because reasoning often holds the "why" that the reply
// leaves out, but it is tentative (it weighs options that were then dropped). It is never used
// for the goal or the outcome. Tool results are quoted only as the first line of a failure, at
// most 120 bytes. Transcript text is collapsed onto single lines, so it cannot add Markdown
// structure (headings, lists) to the summary.
//
// Its honest limits: it only finds what is said in so many words, its cue lists are English, and
// it cannot judge importance the way a model can. It is deterministic: the same transcript always
// gives the same summary. The zero value is ready to use.
type Extractive struct {
	// MaxChars caps the summary in bytes; 0 means DefaultMaxChars. Values below 500 are raised to
	// 500, enough for the goal and the outcome.
	MaxChars int
}

var _ annals.Summarizer = Extractive{}

// Summarize returns the Markdown summary of entries (in transcript order). chat may be nil; when
// given, its cwd attribute shortens paths, its status is reported with the outcome, and its title
// or description stands in for the goal when no user request is recorded. Errors: unavailable
// only when ctx is done.
func (x Extractive) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", &annals.Error{Code: annals.EUNAVAILABLE, Message: "summarizing was cancelled", Err: fmt.Errorf("extractive summary: %w", err)}
	}
	if chat == nil {
		chat = &annals.Chat{}
	}
	es := make([]*annals.Entry, 0, len(entries))
	for _, e := range entries {
		if e != nil {
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		return NoTranscript, nil
	}

	var sections []string
	goal, goalIdx := findGoal(chat, es)
	if goal != "" {
		s := "**Goal:** " + goal
		for _, c := range directionChanges(es, goalIdx, goal) {
			s += "\n- Then: " + c
		}
		sections = append(sections, s)
	}
	if tools := toolsSection(chat, es); tools != "" {
		sections = append(sections, tools)
	}
	outcome, outcomeIdx := findOutcome(es)
	if ds := decisions(es, outcomeIdx); len(ds) > 0 {
		sections = append(sections, "**Decisions:**\n- "+strings.Join(ds, "\n- "))
	}
	if s := outcomeSection(chat, es, outcome, outcomeIdx); s != "" {
		sections = append(sections, s)
	}
	if len(sections) == 0 {
		return NoTranscript, nil
	}
	return capLines(strings.Join(sections, "\n\n"), x.maxChars()), nil
}

func (x Extractive) maxChars() int {
	switch {
	case x.MaxChars <= 0:
		return DefaultMaxChars
	case x.MaxChars < 500:
		return 500
	}
	return x.MaxChars
}

// capLines cuts s to at most n bytes at a line boundary, marking the cut. The sections are
// ordered by importance, so what is cut is the least important.
func capLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n-len("\n…")], '\n')
	if cut <= 0 {
		return clip(s, n)
	}
	return s[:cut] + "\n…"
}

// userText is the prose of a user entry, without harness tags and with code blocks marked.
func userText(e *annals.Entry) string {
	return strings.TrimSpace(cleanProse(e.Text, " [code] "))
}

// substantive reports whether a user message is a request rather than an acknowledgement
// ("ok", "yes go ahead", "thanks") or a bare command.
func substantive(text string) bool {
	ws := words(text)
	ack := true
	letters := 0
	for _, w := range ws {
		letters += utf8.RuneCountInString(w)
		switch w {
		case "ok", "okay", "yes", "yep", "yeah", "y", "no", "go", "ahead", "continue", "proceed",
			"thanks", "thank", "you", "please", "lgtm", "sure", "do", "it", "sounds", "good",
			"great", "perfect", "nice", "cool", "done", "k", "carry", "on", "keep", "going":
		default:
			ack = false
		}
	}
	if ack {
		return false
	}
	// Three words make a request; so does a short question, or a dozen letters of a script
	// written without spaces (Chinese, Japanese), where one "word" is a whole sentence.
	return len(ws) >= 3 || (len(ws) >= 2 && strings.ContainsAny(text, "?？")) || (letters >= 12 && nonSpaced(text))
}

// nonSpaced reports whether s holds letters of a script that does not separate words by spaces.
func nonSpaced(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai) {
			return true
		}
	}
	return false
}

// findGoal returns the condensed first substantive user request and its index in es, or the
// chat's own description or title (index -1) when no user entry is substantive.
func findGoal(chat *annals.Chat, es []*annals.Entry) (string, int) {
	for i, e := range es {
		if e.Kind != annals.KindUser {
			continue
		}
		if t := userText(e); substantive(t) {
			return firstSentences(t, goalChars), i
		}
	}
	for _, s := range []string{chat.Description, chat.Title} {
		if s = oneLine(s); s != "" {
			return clip(s, goalChars) + " (from the chat's metadata; no user request recorded)", -1
		}
	}
	return "", -1
}

// directionCues are words that mark a later user request as a change of course.
var directionCues = []struct {
	cue   string
	score float64
}{
	{"instead", 3}, {"actually", 2}, {"rather", 2}, {"switch", 2}, {"forget", 2}, {"stop", 2},
	{"different", 2}, {"change", 1.5}, {"new", 1}, {"now", 1}, {"also", 1}, {"next", 1},
	{"let's", 1}, {"but", 1}, {"don't", 1}, {"another", 1}, {"can you", 1}, {"could you", 1},
	{"wait", 1.5}, {"revert", 2}, {"undo", 2}, {"move on", 2},
}

// directionChanges returns up to maxChanges later user requests that change direction, in
// transcript order: substantive messages after the goal with a score (cue words, plus twice the
// share of their vocabulary not seen in the goal or earlier picks) of at least 2.
func directionChanges(es []*annals.Entry, goalIdx int, goal string) []string {
	if goalIdx < 0 {
		return nil
	}
	type cand struct {
		text  string
		score float64
		pos   int
	}
	seen := contentWords(goal)
	var cands []cand
	for i := goalIdx + 1; i < len(es); i++ {
		e := es[i]
		if e.Kind != annals.KindUser {
			continue
		}
		t := userText(e)
		if !substantive(t) {
			continue
		}
		first := firstSentences(t, changeChars)
		cw := contentWords(first)
		if len(cw) == 0 {
			continue
		}
		lower := " " + strings.Join(words(first), " ") + " "
		score := 0.0
		for _, c := range directionCues {
			if strings.Contains(lower, " "+c.cue+" ") {
				score += c.score
			}
		}
		novel := 0
		for w := range cw {
			if !seen[w] {
				novel++
			}
		}
		score += 2 * float64(novel) / float64(len(cw))
		if score >= 2 {
			cands = append(cands, cand{first, score, i})
		}
		for w := range cw {
			seen[w] = true
		}
	}
	// Highest score first, earlier first on ties; then back to transcript order.
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.pos - b.pos
	})
	cands = cands[:min(len(cands), maxChanges)]
	slices.SortFunc(cands, func(a, b cand) int { return a.pos - b.pos })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.text
	}
	return out
}

// toolStat counts the calls of one tool.
type toolStat struct {
	name                       string
	calls, failed, blocked, cx int
	first                      int
}

// counted is a string with a frequency and a first position, for "most frequent, then first".
type counted struct {
	s     string
	n     int
	first int
}

func bump(list []counted, s string, pos int) []counted {
	for i := range list {
		if list[i].s == s {
			list[i].n++
			return list
		}
	}
	return append(list, counted{s: s, n: 1, first: pos})
}

func topCounted(list []counted, k int) []string {
	slices.SortStableFunc(list, func(a, b counted) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return a.first - b.first
	})
	var out []string
	for _, c := range list[:min(k, len(list))] {
		out = append(out, c.s)
	}
	return out
}

// toolsSection renders "**Tools used:** Bash ×5 (2 failed), Read ×3" with the files and commands
// the tools touched, or "" when the chat called no tool.
func toolsSection(chat *annals.Chat, es []*annals.Entry) string {
	var stats []*toolStat
	var files, commands []counted
	cwd := strings.TrimRight(chat.Attributes["cwd"], "/")
	for i, e := range es {
		if e.Kind != annals.KindTool || e.Tool == nil {
			continue
		}
		name := oneLine(e.Tool.Name)
		if name == "" {
			name = "(unnamed)"
		}
		var st *toolStat
		for _, s := range stats {
			if s.name == name {
				st = s
			}
		}
		if st == nil {
			st = &toolStat{name: name, first: i}
			stats = append(stats, st)
		}
		st.calls++
		switch e.Tool.Outcome {
		case annals.OutcomeFailed:
			st.failed++
		case annals.OutcomeBlocked:
			st.blocked++
		case annals.OutcomeCancelled:
			st.cx++
		}
		a := parseArgs(e.Tool.Arguments)
		for _, f := range a.files {
			files = bump(files, shortPath(f, cwd), i)
		}
		if a.command != "" {
			commands = bump(commands, a.command, i)
		}
	}
	if len(stats) == 0 {
		return ""
	}
	slices.SortStableFunc(stats, func(a, b *toolStat) int {
		if a.calls != b.calls {
			return b.calls - a.calls
		}
		return a.first - b.first
	})
	var parts []string
	for _, s := range stats[:min(len(stats), maxToolNames)] {
		p := fmt.Sprintf("%s ×%d", clip(s.name, 40), s.calls)
		var bad []string
		for _, f := range []struct {
			n    int
			what string
		}{{s.failed, "failed"}, {s.blocked, "blocked"}, {s.cx, "cancelled"}} {
			if f.n > 0 {
				bad = append(bad, fmt.Sprintf("%d %s", f.n, f.what))
			}
		}
		if len(bad) > 0 {
			p += " (" + strings.Join(bad, ", ") + ")"
		}
		parts = append(parts, p)
	}
	if more := len(stats) - maxToolNames; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	out := "**Tools used:** " + strings.Join(parts, ", ")
	var touched []string
	if fs := topCounted(files, maxFiles); len(fs) > 0 {
		touched = append(touched, "Files: "+codeList(fs))
	}
	if cs := topCounted(commands, maxCommands); len(cs) > 0 {
		touched = append(touched, "Commands: "+codeList(cs))
	}
	if len(touched) > 0 {
		out += "\n" + strings.Join(touched, ". ")
	}
	return out
}

// code formats s as inline code, choosing a fence the text cannot close early.
func code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	if !strings.Contains(s, "``") {
		return "`` " + s + " ``"
	}
	return s
}

func codeList(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return strings.Join(out, ", ")
}

// toolArgs is what the summary uses from a tool call's arguments.
type toolArgs struct {
	files   []string
	command string
}

// parseArgs pulls file paths and a command out of a tool's JSON arguments, knowing the field
// names of the common agents: file_path (Claude Code), path/filePath/target_file (others),
// notebook_path, and command/cmd as a string or an argv array (Codex's ["bash","-lc","..."]),
// plus the file headers of an apply_patch input.
func parseArgs(raw json.RawMessage) toolArgs {
	var a toolArgs
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return a
	}
	for _, k := range []string{"file_path", "filePath", "path", "notebook_path", "target_file", "file", "filename"} {
		var s string
		if json.Unmarshal(m[k], &s) == nil && strings.TrimSpace(s) != "" {
			a.files = append(a.files, s)
		}
	}
	for _, k := range []string{"paths", "files"} {
		var ss []string
		if json.Unmarshal(m[k], &ss) == nil {
			for _, s := range ss {
				if strings.TrimSpace(s) != "" {
					a.files = append(a.files, s)
				}
			}
		}
	}
	for _, k := range []string{"input", "patch"} {
		var s string
		if json.Unmarshal(m[k], &s) == nil && strings.Contains(s, "*** ") {
			for line := range strings.SplitSeq(s, "\n") {
				for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
					if f, ok := strings.CutPrefix(strings.TrimSpace(line), p); ok && f != "" {
						a.files = append(a.files, f)
					}
				}
			}
		}
	}
	for _, k := range []string{"command", "cmd"} {
		var s string
		var argv []string
		switch {
		case json.Unmarshal(m[k], &s) == nil && strings.TrimSpace(s) != "":
		case json.Unmarshal(m[k], &argv) == nil && len(argv) > 0:
			s = strings.Join(argv, " ")
			if len(argv) >= 3 && (argv[len(argv)-2] == "-lc" || argv[len(argv)-2] == "-c") {
				s = argv[len(argv)-1] // the shell's script is the command that matters
			}
		default:
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
		a.command = clip(oneLine(line), argChars)
		break
	}
	return a
}

// shortPath makes p relative to the chat's working directory when it is inside it, and keeps
// the tail of a path too long to quote whole.
func shortPath(p, cwd string) string {
	p = oneLine(p)
	if cwd != "" {
		if rel, ok := strings.CutPrefix(p, cwd+"/"); ok && rel != "" {
			p = rel
		}
	}
	if len(p) > argChars {
		tail := p[len(p)-argChars+1:]
		if i := strings.IndexByte(tail, '/'); i >= 0 {
			tail = tail[i:]
		}
		p = "…" + tail
	}
	return p
}

// assistantProse is the prose of assistant text, code removed.
func assistantProse(s string) string {
	return cleanProse(s, " ")
}

// findOutcome returns the condensed last assistant message with any prose, and its index (-1
// when the assistant never said anything).
func findOutcome(es []*annals.Entry) (string, int) {
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		if e.Kind != annals.KindAssistant {
			continue
		}
		if s := outcomeText(assistantProse(e.Text)); s != "" {
			return s, i
		}
	}
	return "", -1
}

// outcomeText condenses the final message to its first sentences, leaving out the ones that
// name unfinished work: those are listed under open ends, where a reader looks for them. A
// message made only of such sentences is condensed as it is.
func outcomeText(prose string) string {
	var kept []string
	for _, s := range sentences(prose) {
		if !hasOpenEndCue(s) {
			kept = append(kept, s)
		}
	}
	if s := firstSentences(strings.Join(kept, "\n"), outcomeChars); s != "" {
		return s
	}
	return firstSentences(prose, outcomeChars)
}

func hasOpenEndCue(s string) bool {
	lower := strings.ToLower(s)
	for _, c := range openEndCues {
		if strings.Contains(lower, c) {
			return true
		}
	}
	return false
}

// decisionCues score a sentence as a decision. Strong cues name a cause or a choice; weaker ones
// mark an intention or a reason.
var decisionCues = []struct {
	cue   string
	score float64
}{
	{"root cause", 3}, {"the fix is", 3}, {"the fix was", 3}, {"the bug is", 3}, {"the bug was", 3},
	{"the problem is", 3}, {"the problem was", 3}, {"the issue is", 3}, {"the issue was", 3},
	{"caused by", 3}, {"decided", 3}, {"decision", 2}, {"going with", 3}, {"go with", 2},
	{"switch to", 3}, {"switching to", 3}, {"switched to", 3}, {"instead of", 3}, {"rather than", 3},
	{"chose", 3}, {"opted", 3}, {"i'll", 2}, {"i will", 2}, {"we'll", 2}, {"we will", 2},
	{"we should", 2}, {"let's", 1.5}, {"instead", 2}, {"because", 2}, {"so that", 1.5},
	{"the reason", 2}, {"trade-off", 2}, {"tradeoff", 2}, {"prefer", 1.5}, {"keep", 1},
	{"should", 1}, {"need to", 1}, {"approach", 1}, {"since", 1},
}

// exploratory marks a first-person sentence that announces looking rather than choosing.
var exploratory = []string{
	"let me", "i'll start", "i will start", "i'll first", "i'll check", "i'll look", "i'll take a look",
	"i'll run", "i'll read", "i'll see", "i'll search", "i'll investigate", "i'll open", "i'll explore",
	"i'll examine", "i'll review", "first, i'll", "i'll begin", "i'll try running",
}

// decisions returns up to maxDecisions decision sentences, in transcript order. Sentences from
// the message used as the outcome are skipped when they are part of the outcome text already.
func decisions(es []*annals.Entry, outcomeIdx int) []string {
	type cand struct {
		text  string
		score float64
		pos   int
		words map[string]bool
	}
	var outcomeWords map[string]bool
	if outcomeIdx >= 0 {
		outcomeWords = contentWords(outcomeText(assistantProse(es[outcomeIdx].Text)))
	}
	var cands []cand
	n := float64(len(es))
	pos := 0
	for i, e := range es {
		if e.Kind != annals.KindAssistant {
			continue
		}
		for _, src := range []struct {
			text   string
			weight float64
		}{{e.Text, 1}, {e.Reasoning, 0.5}} {
			for _, s := range sentences(assistantProse(src.text)) {
				pos++
				s = oneLine(s)
				if isQuestion(s) || len(words(s)) < 5 && !nonSpaced(s) {
					continue
				}
				lower := " " + strings.ReplaceAll(strings.ToLower(s), "’", "'") + " "
				cue := 0.0
				for _, c := range decisionCues {
					if strings.Contains(lower, c.cue) {
						cue += c.score
					}
				}
				if cue == 0 {
					continue
				}
				for _, x := range exploratory {
					if strings.Contains(lower, x) {
						cue -= 2
						break
					}
				}
				cue = min(cue, 6)
				score := cue*src.weight + 0.5*float64(i)/n
				if score < 1.5 {
					continue
				}
				cw := contentWords(s)
				if outcomeWords != nil && i == outcomeIdx && overlap(cw, outcomeWords) > 0.5 {
					continue
				}
				cands = append(cands, cand{clip(s, decisionChars), score, pos, cw})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.pos - b.pos
	})
	var picked []cand
	for _, c := range cands {
		dup := false
		for _, p := range picked {
			if overlap(c.words, p.words) >= 0.6 {
				dup = true
				break
			}
		}
		if !dup {
			picked = append(picked, c)
		}
		if len(picked) == maxDecisions {
			break
		}
	}
	slices.SortFunc(picked, func(a, b cand) int { return a.pos - b.pos })
	out := make([]string, len(picked))
	for i, p := range picked {
		out[i] = p.text
	}
	return out
}

// openEndCues mark a sentence that leaves work for later.
var openEndCues = []string{
	"todo", "fixme", "next step", "remaining", "still need", "still needs", "left to do",
	"not yet", "follow-up", "follow up", "haven't", "have not", "pending", "unresolved",
}

// outcomeSection renders the outcome with the status and the open ends.
func outcomeSection(chat *annals.Chat, es []*annals.Entry, outcome string, outcomeIdx int) string {
	var b strings.Builder
	b.WriteString("**Outcome")
	if chat.Status != "" {
		b.WriteString(" (" + string(chat.Status) + ")")
	}
	b.WriteString(":** ")
	if outcome != "" {
		b.WriteString(outcome)
	} else {
		b.WriteString("no assistant reply recorded.")
	}
	opens := openEnds(es, outcomeIdx, outcome)
	if len(opens) > 0 {
		b.WriteString("\n**Open ends:**\n- " + strings.Join(opens, "\n- "))
	}
	return b.String()
}

// openEnds lists failures left standing, an unanswered last user message, and TODO-like
// mentions in the last few assistant messages.
func openEnds(es []*annals.Entry, outcomeIdx int, outcome string) []string {
	var out []string
	// A tool whose latest failure was never followed by a success of the same tool is still
	// broken; a failure that a later success of the same tool superseded is history.
	type failure struct {
		e   *annals.Entry
		pos int
	}
	var pending []failure
	for i, e := range es {
		if e.Kind != annals.KindTool || e.Tool == nil {
			continue
		}
		name := e.Tool.Name
		pending = slices.DeleteFunc(pending, func(f failure) bool { return f.e.Tool.Name == name })
		if e.Tool.Outcome == annals.OutcomeFailed || e.Tool.Outcome == annals.OutcomeBlocked {
			pending = append(pending, failure{e, i})
		}
	}
	// The most recent failures are the ones that matter now; they are listed in transcript order.
	for _, f := range pending[max(0, len(pending)-3):] {
		s := fmt.Sprintf("%s %s", clip(oneLine(f.e.Tool.Name), 40), f.e.Tool.Outcome)
		if a := parseArgs(f.e.Tool.Arguments); a.command != "" {
			s += ": " + code(a.command)
		} else if len(a.files) > 0 {
			s += ": " + code(clip(oneLine(a.files[0]), argChars))
		}
		if line := firstLine(f.e.Tool.Result); line != "" {
			s += " — " + clip(line, resultChars)
		}
		out = append(out, s)
	}

	// The last user message, if nothing the assistant said came after it, is waiting for an
	// answer: quote its questions, or its first sentence.
	lastUser := -1
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Kind == annals.KindUser && userText(es[i]) != "" {
			lastUser = i
			break
		}
	}
	if lastUser > outcomeIdx {
		t := userText(es[lastUser])
		var qs []string
		for _, s := range sentences(t) {
			if isQuestion(s) {
				qs = append(qs, clip(oneLine(s), openEndChars))
			}
		}
		if len(qs) > 0 {
			for _, q := range qs[:min(len(qs), 2)] {
				out = append(out, "Unanswered question: "+q)
			}
		} else {
			out = append(out, "Awaiting a reply to: "+firstSentences(t, openEndChars))
		}
	}

	// TODO-like mentions in the last few assistant messages; older ones were likely handled.
	seen := 0
	var todos []string
	for i := len(es) - 1; i >= 0 && seen < recentMessages && len(todos) < 2; i-- {
		e := es[i]
		if e.Kind != annals.KindAssistant || strings.TrimSpace(e.Text) == "" {
			continue
		}
		seen++
		for _, s := range sentences(assistantProse(e.Text)) {
			if !hasOpenEndCue(s) {
				continue
			}
			t := clip(oneLine(s), openEndChars)
			// A TODO already quoted in the outcome is not worth repeating.
			if !slices.Contains(todos, t) && !strings.Contains(outcome, oneLine(s)) {
				todos = append(todos, t)
			}
			if len(todos) == 2 {
				break
			}
		}
	}
	out = append(out, todos...)
	return out[:min(len(out), maxOpenEnds)]
}

// firstLine is the first non-blank line of s, whitespace collapsed.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if l := oneLine(line); l != "" {
			return l
		}
	}
	return ""
}
