package tui_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// zoo stores three chats the tests search.
func zoo(f *fixture) {
	f.chat("shop", "Deploy the shop", annals.Attributes{"source": "claude-code", "repository": "github.com/acme/shop", "cwd": "/home/dev/shop", "resume_command": "claude --resume shop"},
		"user: deploy the shop please",
		"tool Bash {\"command\":\"make deploy\"} => permission denied on /srv/release",
		"assistant: The deploy failed: permission denied.",
		"user: try the staging deploy",
		"assistant: Staging deploy is green.")
	f.chat("lib", "Refactor helpers", annals.Attributes{"source": "codex", "repository": "github.com/acme/lib"},
		"user: refactor the string helpers",
		"assistant: Done, the helpers are in strutil.")
	f.chat("zoo", "Count penguins", annals.Attributes{"source": "gemini-cli"},
		"user: how many penguins are there",
		"assistant: Forty-two penguins.")
}

func TestTypingSearchesAsYouTypeAndDropsStaleSearches(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	rec := &recording{HistoryService: f.owner}
	d := newDriver(t, f.opts(rec), 120, 30)
	if s := d.screen(); !strings.Contains(s, "Deploy the shop") || !strings.Contains(s, "Refactor helpers") || !strings.Contains(s, "3 recent chats") {
		t.Fatalf("the empty query does not list the recent chats:\n%s", s)
	}
	d.typeText("deploy")
	if got := len(d.queue); got != 6 {
		t.Fatalf("typing six keys queued %d commands, want one search each", got)
	}
	d.settle()
	s := d.screen()
	if !strings.Contains(s, "Deploy the shop") || strings.Contains(s, "Refactor helpers") || !strings.Contains(s, "1 of 1 chat matches") {
		t.Fatalf("the results do not answer the query:\n%s", s)
	}
	// The five stale searches were cancelled during their debounce: only "deploy" reached the
	// service.
	if !reflectEqual(rec.searches, []string{"deploy"}) {
		t.Errorf("the service was asked %q, want only the last query", rec.searches)
	}
	for _, want := range []string{"claude-code", "github.com/acme/shop", "Deploy the shop", "59m ago"} {
		if !strings.Contains(s, want) {
			t.Errorf("the result row lacks %q:\n%s", want, s)
		}
	}
	// The snippet's match is marked (bold and underlined without colour).
	if !strings.Contains(lineWith(d.raw(), "the shop please"), "\x1b[1;4") {
		t.Errorf("the snippet has no highlighted match:\n%q", s)
	}
}

// A search in flight is cancelled by the next keystroke: its context ends, and its answer, when
// it comes, does not replace the newer one.
func TestANewKeystrokeCancelsTheSearchInFlight(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	rec := &recording{HistoryService: f.owner, block: make(chan struct{}), blockErr: make(chan error, 1)}
	d := newDriver(t, f.opts(rec), 120, 30)
	d.typeText("p")
	slow := d.queue[0]
	d.queue = nil
	answer := make(chan tea.Msg, 1)
	go func() { answer <- slow() }()
	<-rec.block // the search for "p" is running in the service
	d.typeText("enguins")
	if err := <-rec.blockErr; err == nil {
		t.Fatal("the stale search's context was not cancelled")
	}
	d.settle()
	d.deliver(<-answer) // the stale answer arrives last
	d.settle()
	s := d.screen()
	if !strings.Contains(s, "Count penguins") || !strings.Contains(s, "1 of 1 chat matches") || strings.Contains(s, "search:") {
		t.Errorf("the stale search's answer changed the screen:\n%s", s)
	}
}

func TestMovingOpeningAndExpandingAToolCall(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	d := newDriver(t, f.opts(f.owner), 120, 30)
	d.typeText("deploy")
	d.settle()
	d.keys("enter") // to the results
	if !strings.Contains(lineWith(d.raw(), "Deploy the shop"), "\x1b[7m") {
		t.Fatalf("the selected result is not in reverse video:\n%q", d.screen())
	}
	d.keys("enter") // open it
	d.settle()
	s := d.screen()
	if !strings.Contains(s, "deploy the shop please") || !strings.Contains(s, "▸ Bash") {
		t.Fatalf("the transcript is not open:\n%s", s)
	}
	if strings.Contains(s, "permission denied on /srv/release") {
		t.Fatalf("a collapsed tool call shows its result:\n%s", s)
	}
	// The matched entries are marked; n moves to the next one.
	if !strings.Contains(lineWith(s, "you #1"), "match") {
		t.Errorf("the matched entry is not marked:\n%s", s)
	}
	d.keys("n")
	if !strings.Contains(lineWith(d.screen(), "Bash"), "▌") {
		t.Errorf("n did not select the next matching entry (the tool call):\n%s", d.screen())
	}
	d.keys("space")
	s = d.screen()
	if !strings.Contains(s, "▾ Bash") || !strings.Contains(s, "permission denied on /srv/release") || !strings.Contains(s, `"command": "make deploy"`) {
		t.Errorf("space did not expand the tool call:\n%s", s)
	}
	d.keys("]")
	if !strings.Contains(lineWith(d.screen(), "you #4"), "▌") {
		t.Errorf("] did not select the next user prompt:\n%s", d.screen())
	}
	d.keys("[")
	if !strings.Contains(lineWith(d.screen(), "you #1"), "▌") {
		t.Errorf("[ did not select the previous user prompt:\n%s", d.screen())
	}
	d.keys("esc", "esc") // to the results, then close the transcript
	if strings.Contains(d.screen(), "Bash") {
		t.Errorf("esc did not close the transcript:\n%s", d.screen())
	}
}

func TestCurationKeysStoreWhatTheySay(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	d := newDriver(t, f.opts(f.owner), 120, 30)
	d.typeText("deploy")
	d.settle()
	d.keys("enter")

	d.keys("p")
	d.settle()
	if !f.get("shop").Pinned || !strings.Contains(d.screen(), "pinned “Deploy the shop”") || !strings.Contains(d.screen(), "[pinned]") {
		t.Errorf("p did not pin the chat:\n%s", d.screen())
	}
	d.keys("t")
	d.send(keyMsg("ctrl+u")) // clear the prompt
	d.typeText("ops urgent")
	d.keys("enter")
	d.settle()
	if got := f.get("shop").Tags; !reflectEqual(got, []string{"ops", "urgent"}) {
		t.Errorf("t stored tags %q", got)
	}
	d.keys("r")
	d.send(keyMsg("ctrl+u"))
	d.typeText("Shop deploy, fixed")
	d.keys("enter")
	d.settle()
	if got := f.get("shop").Title; got != "Shop deploy, fixed" || !strings.Contains(d.screen(), "Shop deploy, fixed") {
		t.Errorf("r stored title %q:\n%s", got, d.screen())
	}
	d.keys("x")
	d.settle()
	if f.get("shop").ArchivedAt == nil || !strings.Contains(d.screen(), "archived") {
		t.Errorf("x did not archive the chat:\n%s", d.screen())
	}
	d.keys("x")
	d.settle()
	if f.get("shop").ArchivedAt != nil || !strings.Contains(d.screen(), "restored") {
		t.Errorf("x again did not restore the chat:\n%s", d.screen())
	}

	d.keys("e")
	d.keys("enter") // the proposed name: shop.md
	d.settle()
	path := filepath.Join(d.m.Dir(), "shop.md")
	md, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(md), "permission denied on /srv/release") {
		t.Errorf("e did not export the chat to %s: %v\n%s", path, err, md)
	}
	d.keys("e", "enter") // again: the file exists
	d.settle()
	if !strings.Contains(d.screen(), "exists") {
		t.Errorf("a second export did not refuse to overwrite:\n%s", d.screen())
	}

	d.keys("y")
	d.settle()
	want := "cd /home/dev/shop && claude --resume shop"
	if len(d.out) != 1 || reflect.ValueOf(d.out[0]).String() != want || !strings.Contains(d.screen(), "copied: "+want) {
		t.Errorf("y did not copy the resume command: %#v\n%s", d.out, d.screen())
	}
	d.keys("!")
	d.settle()
	if !strings.Contains(d.screen(), "run "+want+" now? y/N") {
		t.Fatalf("! does not ask before running:\n%s", d.screen())
	}
	d.keys("n")
	if d.quit() || d.m.Result().Resume != nil {
		t.Fatal("n ran the command")
	}
	d.keys("!")
	d.settle()
	d.keys("y")
	d.settle()
	if !d.quit() || d.m.Result().Resume == nil || d.m.Result().Resume.ShellLine() != want {
		t.Errorf("y after ! did not leave to run the command: %+v", d.m.Result())
	}
}

// A read-only history refuses every curation; the refusal is the status line.
func TestARefusalIsShownInTheStatusLine(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	ro := history.For(f.svc, history.LocalOwner(), history.Access{Local: true, ReadOnly: true})
	o := f.opts(ro)
	o.ReadOnly = true
	d := newDriver(t, o, 120, 30)
	d.keys("tab", "p")
	d.settle()
	s := d.screen()
	last := lines(s)[len(lines(s))-1]
	if !strings.Contains(last, "pin: ") || !strings.Contains(last, "read-only") {
		t.Errorf("the refusal is not in the status line: %q", last)
	}
	if f.get("shop").Pinned {
		t.Error("a read-only history pinned the chat")
	}
	if !strings.Contains(s, "read-only") {
		t.Errorf("the header does not say read-only:\n%s", s)
	}
}

func TestAResizeReflows(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	d := newDriver(t, f.opts(f.owner), 140, 40)
	d.typeText("deploy")
	d.settle()
	d.keys("enter", "enter")
	d.settle()
	check := func(w, h int, split bool) {
		t.Helper()
		s := d.screen()
		ls := lines(s)
		if len(ls) != h {
			t.Errorf("%dx%d: the screen has %d lines", w, h, len(ls))
		}
		for i, l := range ls {
			if got := visibleWidth(l); got > w {
				t.Errorf("%dx%d: line %d is %d cells wide: %q", w, h, i, got, l)
			}
		}
		if got := strings.Contains(s, "Deploy the shop   ") && strings.Contains(s, "│"); got != split {
			t.Errorf("%dx%d: side by side = %v, want %v:\n%s", w, h, got, split, s)
		}
	}
	check(140, 40, true)
	d.send(tea.WindowSizeMsg{Width: 60, Height: 15})
	check(60, 15, false)
	if !strings.Contains(d.screen(), "deploy the shop please") {
		t.Errorf("the narrow screen does not show the open transcript:\n%s", d.screen())
	}
	d.send(tea.WindowSizeMsg{Width: 100, Height: 20})
	check(100, 20, true)
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// visibleWidth is a line's width in cells, without its styles (every character here is one
// cell wide).
func visibleWidth(s string) int { return len([]rune(sgr.ReplaceAllString(s, ""))) }

func reflectEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
