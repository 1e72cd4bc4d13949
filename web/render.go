package web

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
)

// What the chat view shows of an entry. Every string here is text: the templates escape it,
// and no field is ever put in an attribute other than the fixed class names chosen below.

// Cut lengths: a longer tool result or system text shows its head, with the rest behind
// "show all".
const (
	cutChars = 2000
	cutLines = 30
	// keyArgChars bounds the argument shown on a tool call's one line.
	keyArgChars = 120
)

type item struct {
	Seq   int64
	RunID string
	Kind  string // one of the entry kinds: the item's class
	Time  time.Time
	Text  cutText
	// Reasoning is shown folded.
	Reasoning string
	Tool      *toolItem
	// Run, when set, is a run boundary drawn above the entry.
	Run    *annals.Run
	Tokens int64
	// Group, when set, makes the item a group of consecutive tool calls (toolgroup.go).
	Group *toolGroup
	// timing is a tool call's start and result times.
	timing callTiming
}

// cutText is a text with, when it is long, its head.
type cutText struct {
	Full string
	Head string // "" when Full is short enough to show whole
	// Lines counts Full's lines.
	Lines int
}

type toolItem struct {
	Name    string
	Key     string // the argument that matters, on one line
	Outcome string // one of the outcomes ("" when unknown): the line's class
	Args    string // the arguments, indented
	Result  cutText
	Diff    []diffLine
	// Took is how long the call ran, from its result's recorded time ("" unknown).
	Took string
}

// items turns a page of entries into what the view shows; prevRun is the run of the entry just
// above the page, so a boundary is drawn only where the run changes.
func items(entries []*annals.Entry, runs map[string]*annals.Run, prevRun string) []item {
	out := make([]item, 0, len(entries))
	for _, e := range entries {
		it := item{Seq: e.Seq, RunID: e.RunID, Kind: kindClass(e.Kind), Time: e.Time, Text: cut(e.Text),
			Reasoning: termsafe.String(e.Reasoning), Tokens: e.InputTokens + e.OutputTokens}
		if e.RunID != "" && e.RunID != prevRun {
			if run := runs[e.RunID]; run != nil {
				it.Run = run
			}
		}
		if e.RunID != "" {
			prevRun = e.RunID
		}
		if e.Tool != nil {
			it.Tool = toolView(e.Tool)
			it.timing = timing(e)
			if !it.timing.end.IsZero() {
				it.Tool.Took = formatDuration(it.timing.end.Sub(it.timing.start))
			}
		}
		out = append(out, it)
	}
	return groupTools(out)
}

// kindClass is the entry's kind as a class name: only the known kinds, never the stored text.
func kindClass(k annals.EntryKind) string {
	switch k {
	case annals.KindUser, annals.KindAssistant, annals.KindTool, annals.KindSystem:
		return string(k)
	}
	return "event"
}

func outcomeClass(o annals.Outcome) string {
	switch o {
	case annals.OutcomeSucceeded, annals.OutcomeFailed, annals.OutcomeBlocked, annals.OutcomeCancelled:
		return string(o)
	}
	return ""
}

func cut(s string) cutText {
	s = termsafe.String(s)
	t := cutText{Full: s, Lines: strings.Count(s, "\n") + 1}
	if s == "" {
		t.Lines = 0
		return t
	}
	head := s
	if i := nthIndex(head, '\n', cutLines); i >= 0 {
		head = head[:i]
	}
	if len(head) > cutChars {
		n := cutChars
		for n > 0 && !utf8.RuneStart(head[n]) {
			n--
		}
		head = head[:n]
	}
	if len(head) < len(s) {
		t.Head = head
	}
	return t
}

// nthIndex is the index of the n-th occurrence of c in s, or -1.
func nthIndex(s string, c byte, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n--
			if n == 0 {
				return i
			}
		}
	}
	return -1
}

func toolView(t *annals.ToolCall) *toolItem {
	ti := &toolItem{Name: termsafe.String(t.Name), Outcome: outcomeClass(t.Outcome), Result: cut(t.Result)}
	var args map[string]any
	if len(t.Arguments) > 0 {
		var buf bytes.Buffer
		if json.Indent(&buf, t.Arguments, "", "  ") == nil {
			ti.Args = termsafe.String(buf.String())
		} else {
			ti.Args = termsafe.String(string(t.Arguments))
		}
		_ = json.Unmarshal(t.Arguments, &args)
	}
	ti.Key = keyArgument(args)
	ti.Diff = editDiff(t.Name, args)
	return ti
}

// keyArguments are the argument names that say what a call did, most telling first.
var keyArguments = []string{"command", "cmd", "file_path", "filePath", "path", "pattern", "query", "url", "description", "prompt", "name"}

// keyArgument is the argument that matters, on one line, cut short.
func keyArgument(args map[string]any) string {
	for _, k := range keyArguments {
		s, ok := args[k].(string)
		if !ok || s == "" {
			continue
		}
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i] + " …"
		}
		if r := []rune(s); len(r) > keyArgChars {
			s = string(r[:keyArgChars]) + "…"
		}
		return termsafe.String(s)
	}
	return ""
}
