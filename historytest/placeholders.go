package historytest

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
)

// testPlaceholdersAreNotWords proves that the words of a redaction placeholder are not indexed
// (a search for "aws" does not find the chat whose AWS key was removed, in its text, its title
// or its tags, in chats and entries mode), that the placeholder keeps its place (a phrase does
// not match across it), that a snippet shows it whole and never marked, and that the default
// marks cannot be mistaken for its brackets.
func testPlaceholdersAreNotWords(t *testing.T, open Opener) {
	e := newEnv(t, open)
	e.chat("ph", "A", "u", "", 1, "Rotate [redacted:github_token] today",
		"deploy key [redacted:aws_access_key] done",
		"the [private] part and [redacted:my-custom-rule] here")
	e.chat("real", "A", "u", "", 2, "Cloud notes", "use the aws cli to list buckets")
	ctx := as(member("A", "u", "", annals.ScopeUser))
	search := func(q, mode string) *annals.SearchPage {
		t.Helper()
		res, err := e.svc.Search(ctx, &envelope.Request{Query: q, Mode: mode})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return res
	}
	ids := func(res *annals.SearchPage) string {
		var out []string
		for _, h := range res.Chats {
			out = append(out, h.Chat.ID)
		}
		for _, h := range res.Entries {
			out = append(out, h.Entry.ChatID)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct{ q, want string }{
		{"aws", "real"},
		{"access", ""},
		{"github", ""},
		{"redacted", ""},
		{"private", ""},
		{"custom", ""},
		{"redact*", ""},
		{`"key done"`, ""}, // the placeholder's four words still stand between them
		{"deploy done", "ph"},
		{"rotate today", "ph"},
	} {
		for _, mode := range []string{"chats", "entries"} {
			if mode == "entries" && tc.q == "rotate today" {
				continue // an entry search reads entries, not titles
			}
			if got := ids(search(tc.q, mode)); got != tc.want {
				t.Errorf("search %q (%s): %q, want %q", tc.q, mode, got, tc.want)
			}
		}
	}
	for _, mode := range []string{"chats", "entries"} {
		res := search("deploy", mode)
		var snippets []string
		for _, h := range res.Chats {
			for _, s := range h.Snippets {
				snippets = append(snippets, s.Text)
			}
		}
		for _, h := range res.Entries {
			snippets = append(snippets, h.Snippet)
		}
		want := envelope.DefaultMarkOpen + "deploy" + envelope.DefaultMarkClose + " key [redacted:aws_access_key] done"
		if len(snippets) != 1 || snippets[0] != want {
			t.Errorf("snippets (%s) %q, want [%q]: the placeholder whole, unmarked, and marks that are not its brackets", mode, snippets, want)
		}
	}
	// After the chat is gone, nothing of it is found: its index rows left with it.
	if err := e.svc.DeleteChat(as(member("A", "u", "", annals.ScopeUser)), annals.ChatSelector{ID: "ph"}); err != nil {
		t.Fatal(err)
	}
	if got := ids(search("deploy", "chats")); got != "" {
		t.Errorf("after delete: %q", got)
	}
}
