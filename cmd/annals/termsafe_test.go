package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

const hostileChat = `{"type":"chat","id":"evil","title":"pwned \u001b[2J\u001b]52;c;aGVsbG8=\u0007 title","tags":["ops"]}
{"type":"entry","chat_id":"evil","id":"e1","kind":"user","text":"run \u001b]8;;http://evil.example\u001b\\click\u001b]8;;\u001b\\ needle now \r overwritten"}
`

// TestTranscriptEscapesNeverReachTheTerminal renders a chat whose title and text carry
// escape sequences (clear screen, OSC 52 clipboard write, OSC 8 link, carriage return) with
// every human command: none of the raw control bytes reaches standard output.
func TestTranscriptEscapesNeverReachTheTerminal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(hostileChat, "ingest", "-")
	for _, args := range [][]string{
		{"list"},
		{"show", "evil"},
		{"search", "needle"},
		{"search", "--entries", "needle"},
		{"tag", "evil", "ok"},
		{"rename", "evil", "still \x1b[2J bad"},
	} {
		out := tm.mustRun("", args...)
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("annals %s printed raw control bytes: %q", strings.Join(args, " "), out)
		}
		if args[0] == "show" && !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("annals show hides the escape instead of showing it: %q", out)
		}
	}
}

// TestSearchColoursOnlyATerminalAndHonoursNoColor proves the highlight is the CLI's own colour
// code on a terminal, brackets elsewhere, and plain with NO_COLOR or TERM=dumb.
func TestSearchColoursOnlyATerminalAndHonoursNoColor(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(hostileChat, "ingest", "-")
	run := func(env map[string]string) string {
		var out, errOut bytes.Buffer
		m := NewMain()
		m.Stdin = strings.NewReader("")
		m.Stdout, m.Stderr = &out, &errOut
		m.Getenv = func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return tm.env[k]
		}
		m.HomeDir = func() (string, error) { return tm.home, nil }
		m.IsTerminal = func(io.Writer) bool { return true }
		if err := m.Run(context.Background(), []string{"search", "needle"}); err != nil {
			t.Fatalf("search: %v: %s", err, errOut.String())
		}
		m.Close()
		return out.String()
	}
	if out := run(nil); !strings.Contains(out, ansiMarkOpen+"needle"+ansiMarkClose) || strings.Contains(out, "\x1b]8") {
		t.Errorf("terminal search: %q, want the CLI's highlight and no transcript escapes", out)
	}
	for _, env := range []map[string]string{{"NO_COLOR": "1"}, {"TERM": "dumb"}} {
		if out := run(env); strings.Contains(out, "\x1b") || !strings.Contains(out, "«needle»") {
			t.Errorf("search with %v: %q, want no colour and bracketed marks", env, out)
		}
	}
}
