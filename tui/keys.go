package tui

import "charm.land/bubbles/v2/key"

// keyMap is every key of the browser. The help screen (?) and docs/TUI.md list them all; a test
// checks that the doc names each one.
type keyMap struct {
	Search, Quit, Help, Switch, Open, Back                key.Binding
	Up, Down, PageUp, PageDown, Top, Bottom               key.Binding
	NextHit, PrevHit, NextPrompt, PrevPrompt, Expand      key.Binding
	Filter, Archived, Pin, Tag, Rename, Archive           key.Binding
	Export, CopyResume, RunResume, Web, ClearFilter, More key.Binding
	Rank                                                  key.Binding
}

func newKeyMap() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Search:      b("/", "focus the search box (type a query, docs/QUERY.md)", "/"),
		Quit:        b("q, ctrl+c", "quit (ctrl+c also from the search box)", "q", "ctrl+c"),
		Help:        b("?", "show or hide every key", "?"),
		Switch:      b("tab", "move between the search box, the results and the transcript", "tab", "shift+tab"),
		Open:        b("enter", "open the selected chat (in the transcript: expand a tool call)", "enter"),
		Back:        b("esc", "back: close the transcript, a prompt or this help", "esc"),
		Up:          b("↑, k", "previous result or entry", "up", "k"),
		Down:        b("↓, j", "next result or entry", "down", "j"),
		PageUp:      b("pgup, ctrl+u", "a page up", "pgup", "ctrl+u"),
		PageDown:    b("pgdown, ctrl+d", "a page down", "pgdown", "ctrl+d"),
		Top:         b("g, home", "first result or entry", "g", "home"),
		Bottom:      b("G, end", "last result or entry", "G", "end"),
		NextHit:     b("n", "next entry matching the query", "n"),
		PrevHit:     b("N", "previous entry matching the query", "N"),
		NextPrompt:  b("]", "next user prompt", "]"),
		PrevPrompt:  b("[", "previous user prompt", "["),
		Expand:      b("space", "expand or collapse a tool call or system entry", "space"),
		Filter:      b("f", "filters: agent: source: repo: cwd: tag: status: from: to: rank: archived", "f"),
		ClearFilter: b("F", "clear every filter (and the rank)", "F"),
		Rank:        b("R", "rank by the words, words and meaning (hybrid), or meaning (semantic)", "R"),
		Archived:    b("a", "show or hide archived chats", "a"),
		Pin:         b("p", "pin or unpin the chat", "p"),
		Tag:         b("t", "set the chat's tags (space-separated; empty clears)", "t"),
		Rename:      b("r", "rename the chat (empty clears the title)", "r"),
		Archive:     b("x", "archive or restore the chat", "x"),
		Export:      b("e", "export the chat as Markdown to a file", "e"),
		CopyResume:  b("y", "copy the command that resumes the chat (OSC 52 clipboard)", "y"),
		RunResume:   b("!", "run the resume command after confirming (leaves the browser first)", "!"),
		Web:         b("w", "open the chat in the web UI of a running server", "w"),
		More:        b("m", "load more results", "m"),
	}
}

// all lists the bindings in the order the help screen shows them.
func (k keyMap) all() []key.Binding {
	return []key.Binding{
		k.Search, k.Switch, k.Open, k.Back, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom,
		k.More, k.NextHit, k.PrevHit, k.NextPrompt, k.PrevPrompt, k.Expand, k.Filter, k.ClearFilter, k.Rank,
		k.Archived, k.Pin, k.Tag, k.Rename, k.Archive, k.Export, k.CopyResume, k.RunResume, k.Web,
		k.Help, k.Quit,
	}
}
