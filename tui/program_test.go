package tui_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/annals-dev/annals/tui"
)

// The browser under bubbletea's own program, through the library's test driver: typing shows
// results, enter opens the chat, y writes the resume command to the clipboard (OSC 52), p pins,
// q quits.
func TestTheProgramSearchesOpensCopiesAndPins(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	tm := teatest.NewTestModel(t, tui.New(f.opts(f.owner)), teatest.WithInitialTermSize(120, 30))
	var seen bytes.Buffer
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			return bytes.Contains(seen.Bytes(), []byte(what))
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	waitFor("Refactor")
	tm.Type("penguins")
	waitFor("Forty-two")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor("there")
	tm.Type("p")
	waitFor("pinned")
	tm.Type("y")
	waitFor("no tool command continues this chat")
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if !f.get("zoo").Pinned {
		t.Error("p did not pin the chat")
	}
	if s := sgr.ReplaceAllString(final.Render(), ""); !strings.Contains(s, "Count penguins") || !strings.Contains(s, "how many penguins are there") {
		t.Errorf("the final screen:\n%s", s)
	}
	_, _ = io.Copy(&seen, tm.Output())
	if bytes.Contains(seen.Bytes(), []byte("\x1b]52;")) {
		t.Error("a chat without a resume command wrote the clipboard")
	}
}

func TestTheProgramCopiesTheResumeCommandWithOSC52(t *testing.T) {
	f := newFixture(t)
	zoo(f)
	tm := teatest.NewTestModel(t, tui.New(f.opts(f.owner)), teatest.WithInitialTermSize(120, 30))
	var seen bytes.Buffer
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			return bytes.Contains(seen.Bytes(), []byte(what))
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	tm.Type("deploy")
	waitFor("1 of 1 chat matches")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor("staging")
	tm.Type("y")
	waitFor("\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("cd /home/dev/shop && claude --resume shop")))
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
