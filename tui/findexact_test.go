package tui_test

import (
	"strings"
	"testing"
)

// TestFindInAChatKeepsToThatChat: the matches marked in an open chat are that chat's only. Chat
// abcdef's id starts with abc's, and its third entry matches where abc's third does not: a
// search narrowed by id prefix would mark abc's third entry too.
func TestFindInAChatKeepsToThatChat(t *testing.T) {
	f := newFixture(t)
	f.chat("abc", "Short chat", nil,
		"user: the needle is here",
		"assistant: noted",
		"user: nothing to see")
	f.chat("abcdef", "Longer chat", nil,
		"user: plain words",
		"assistant: still plain",
		"user: another needle, the longer chat's",
		"assistant: needle again")
	d := newDriver(t, f.opts(f.owner), 120, 30)
	d.typeText("needle")
	d.settle()
	d.keys("enter") // to the results
	for i := 0; i < 2 && !strings.Contains(lineWith(d.raw(), "Short chat"), "\x1b[7m"); i++ {
		d.keys("down")
	}
	if !strings.Contains(lineWith(d.raw(), "Short chat"), "\x1b[7m") {
		t.Fatalf("chat abc is not selectable in the results:\n%s", d.screen())
	}
	d.keys("enter") // open abc
	d.settle()
	s := d.screen()
	if !strings.Contains(s, "the needle is here") || !strings.Contains(s, "nothing to see") {
		t.Fatalf("chat abc is not open:\n%s", s)
	}
	if !strings.Contains(lineWith(s, "you #1"), "match") {
		t.Errorf("abc's matching entry is not marked:\n%s", s)
	}
	if strings.Contains(lineWith(s, "you #3"), "match") || strings.Contains(lineWith(s, "#4"), "match") {
		t.Errorf("abcdef's matches are marked in abc:\n%s", s)
	}
	d.keys("n")
	if s := d.screen(); !strings.Contains(s, "no more matching entries this way") || !strings.Contains(lineWith(s, "you #1"), "▌") {
		t.Errorf("n moved to another chat's match:\n%s", s)
	}
}
