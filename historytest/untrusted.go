package historytest

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// testSnippetsEscapeForTheirMarks proves that a transcript's own markup never comes back live
// inside HTML marks, in chats mode and entries mode, while plain marks leave text as written.
func testSnippetsEscapeForTheirMarks(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("x", "A", "u", "", 1, "payload", `look <img src=x onerror=alert(1)> sneaky & "quoted" word`)
	ctx := as(member("A", "u", "", annals.ScopeUser))
	for _, mode := range []string{envelope.ModeChats, envelope.ModeEntries} {
		res, err := e.svc.Search(ctx, &envelope.Request{Query: "sneaky", Mode: mode, MarkOpen: "<mark>", MarkClose: "</mark>"})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		if mode == envelope.ModeChats {
			if len(res.Chats) != 1 || len(res.Chats[0].Snippets) != 1 {
				t.Fatalf("%s: hits %+v", mode, res.Chats)
			}
			text = res.Chats[0].Snippets[0].Text
		} else {
			if len(res.Entries) != 1 {
				t.Fatalf("%s: hits %+v", mode, res.Entries)
			}
			text = res.Entries[0].Snippet
		}
		if strings.Contains(text, "<img") || !strings.Contains(text, "&lt;img") {
			t.Errorf("%s: HTML-marked snippet %q carries the transcript's markup live", mode, text)
		}
		if !strings.Contains(text, "<mark>sneaky</mark>") || !strings.Contains(text, "&amp;") || !strings.Contains(text, "&#34;quoted&#34;") {
			t.Errorf("%s: HTML-marked snippet %q lacks its marks or escapes", mode, text)
		}
	}
	// A close mark alone is HTML enough to escape for.
	closeOnly, err := e.svc.Search(ctx, &envelope.Request{Query: "sneaky", MarkClose: "</mark>"})
	if err != nil {
		t.Fatal(err)
	}
	if got := closeOnly.Chats[0].Snippets[0].Text; strings.Contains(got, "<img") {
		t.Errorf("a snippet with an HTML close mark carries live markup: %q", got)
	}
	res, err := e.svc.Search(ctx, &envelope.Request{Query: "sneaky", MarkOpen: "**", MarkClose: "**"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Chats[0].Snippets[0].Text; !strings.Contains(got, "<img src=x") || !strings.Contains(got, "**sneaky**") {
		t.Errorf("plain-marked snippet %q should keep the text as written", got)
	}
}

// testTimesOutsideTheStoredRangeAreRefused proves list and search filters refuse a time that
// would wrap instead of silently matching everything.
func testFilterTimesAreBounded(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("x", "A", "u", "", 1, "a chat", "words")
	ctx := as(member("A", "u", "", annals.ScopeUser))
	_, err := e.svc.List(ctx, &envelope.Request{Op: history.OpList, From: "2300-01-01T00:00:00Z"})
	wantCode(t, "list from 2300", err, annals.EINVALID)
	_, err = e.svc.List(ctx, &envelope.Request{Op: history.OpList, To: "1500-01-01T00:00:00Z"})
	wantCode(t, "list to 1500", err, annals.EINVALID)
	_, err = e.svc.Search(ctx, &envelope.Request{Query: "words after:2300-01-01"})
	wantCode(t, "search after:2300-01-01", err, annals.EINVALID)
	// Go's zero time is refused like every other time outside the range, not read as "no bound".
	_, err = e.svc.Search(ctx, &envelope.Request{Query: "words before:0001-01-01"})
	wantCode(t, "search before:0001-01-01", err, annals.EINVALID)
	_, err = e.svc.Search(ctx, &envelope.Request{Query: "words", To: "0001-01-01T00:00:00Z"})
	wantCode(t, "search to 0001-01-01", err, annals.EINVALID)
	_, err = e.svc.Search(ctx, &envelope.Request{Query: "words", Mode: "entries", From: "0001-01-01T00:00:00Z"})
	wantCode(t, "entry search from 0001-01-01", err, annals.EINVALID)
	_, err = e.svc.List(ctx, &envelope.Request{Op: history.OpList, From: "0001-01-01T00:00:00Z"})
	wantCode(t, "list from 0001-01-01", err, annals.EINVALID)
	res, err := e.svc.List(ctx, &envelope.Request{Op: history.OpList, From: "2199-12-31T00:00:00Z"})
	if err != nil || len(res.Chats) != 0 {
		t.Errorf("list from 2199: %v, %d chats; want none (the chat is from 2026)", err, len(res.Chats))
	}
}

// testSmallerFindings covers the small lies of the hostile test: get reports the context it
// used, an around_seq at the integer limit is a window past the end (not "negative"), and the
// envelope is decoded exactly (names in their case, each once) and refuses hand-made cursors.
func testSmallerFindings(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("x", "A", "u", "", 1, "a chat", "one", "two", "three")
	e.chat("y", "A", "u", "", 2, "another chat")
	ctx := as(member("A", "u", "", annals.ScopeUser))
	got, err := e.svc.Get(ctx, &envelope.Request{SessionID: "x", AroundSeq: 2, Context: ptr(1 << 40)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Context != history.MaxContext || len(got.Entries) != 3 {
		t.Errorf("get with a huge context: effective context %d, %d entries; want %d and all 3", got.Context, len(got.Entries), history.MaxContext)
	}
	got, err = e.svc.Get(ctx, &envelope.Request{SessionID: "x", AroundSeq: 1<<63 - 1})
	if err != nil {
		t.Errorf("around_seq at the int64 limit: %v, want an empty window", err)
	} else if len(got.Entries) != 0 {
		t.Errorf("around_seq at the int64 limit: %d entries", len(got.Entries))
	}
	for _, body := range []string{
		`{"op":"list","op":"delete"}`,
		`{"OP":"list"}`,
		`{"op":"get","Session_ID":"x"}`,
	} {
		_, err := envelope.DecodeRequest(strings.NewReader(body))
		wantCode(t, "envelope "+body, err, annals.EINVALID)
	}
	page, err := e.svc.List(ctx, &envelope.Request{Op: history.OpList, Limit: 1})
	if err != nil || page.NextCursor == "" {
		t.Fatalf("list page: %v %+v", err, page)
	}
	if _, err := e.svc.List(ctx, &envelope.Request{Op: history.OpList, Cursor: page.NextCursor}); err != nil {
		t.Errorf("the issued cursor: %v", err)
	}
	for _, forged := range []string{page.NextCursor + "A", strings.TrimRight(page.NextCursor, "=") + "=", "eyJ2IjoxLCJvZmZzZXQiOjF9"} {
		if forged == page.NextCursor {
			continue
		}
		_, err := e.svc.List(ctx, &envelope.Request{Op: history.OpList, Cursor: forged})
		wantCode(t, "a hand-made cursor "+forged, err, annals.EINVALID)
	}
}
