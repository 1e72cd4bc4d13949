package storetest

import (
	"fmt"
	"testing"

	annals "github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

func snippetTests() []test {
	return []test{
		{"SnippetsAreTheSameOnEveryStore", testSnippetTexts},
	}
}

// testSnippetTexts: a search's snippet of an entry is the same text on every store, in a chat
// search and in an entry search: the same field, the same window of 16 tokens (at a sentence's
// start when that costs no term), the same ellipses and highlights, for hostile and unicode text,
// prefixes, phrases, OR, and entries with several fields. Each case is an entry of its own
// tenant's only chat, so which entry is shown is not in question.
func testSnippetTexts(t *testing.T, s Store) {
	long := "We tried many things here today and nothing else worked at all for us. The timeout came back after the retry was done and the job failed again later on in the night"
	cases := []struct {
		entry *annals.Entry
		q     string
		want  string
	}{
		{TextEntry("e", annals.KindUser, long), "timeout", "…The [timeout] came back after the retry was done and the job failed again later on…"},
		{TextEntry("e", annals.KindUser, long), "retry timeout", "…The [timeout] came back after the [retry] was done and the job failed again later on…"},
		{TextEntry("e", annals.KindUser, long), "night", "…back after the retry was done and the job failed again later on in the [night]"},
		{TextEntry("e", annals.KindUser, long), "\"the job failed\"", "…The timeout came back after the retry was done and [the job failed] again later on…"},
		{TextEntry("e", annals.KindUser, `<script>alert("x")</script> & Café naïve emag.ro [redacted:aws] ok`), "cafe", `<script>alert("x")</script> & [Café] naïve emag.ro [redacted:aws] ok`},
		{TextEntry("e", annals.KindUser, `<script>alert("x")</script> & Café naïve emag.ro [redacted:aws] ok`), "\"emag.ro\" OR naive", `<script>alert("x")</script> & Café [naïve] [emag.ro] [redacted:aws] ok`},
		{TextEntry("e", annals.KindUser, "日本語 と Ωmega İstanbul ßtraße 🙂 e\u0301cole"), "ecole OR 日本語", "[日本語] と Ωmega İstanbul ßtraße 🙂 [e\u0301cole]"},
		{TextEntry("e", annals.KindUser, "rebase and release the repo, then rerun"), "re*", "[rebase] and [release] the [repo], then [rerun]"},
		{TextEntry("e", annals.KindUser, "the test of the test harness is the test"), "\"the test\"", "[the test] of [the test] harness is [the test]"},
		{ToolEntry("e", "Bash", `{"command": "grep -r timeout ."}`, "timeout: timeout reached, timeout again"), "timeout", "[timeout]: [timeout] reached, [timeout] again"},
		{ToolEntry("e", "Bash", `{"command": "grep -r timeout ."}`, "timeout: timeout reached, timeout again"), "bash OR grep", "[Bash]"},
		{ToolEntry("e", "Bash", `{"command": "grep -r timeout ."}`, "timeout: timeout reached, timeout again"), "grep timeout", `{"command": "[grep] -r [timeout] ."}`},
	}
	for i, c := range cases {
		tn := fmt.Sprintf("S%d", i)
		mustCreateChat(t, s, NewChat("c"+tn, tn))
		mustAppend(t, s, "c"+tn, c.entry)
		pq, err := query.Parse(c.q)
		if err != nil {
			t.Fatalf("parse %q: %v", c.q, err)
		}
		f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: tenant(tn)}, Text: query.ToTextExpr(pq.Text),
			Limit: 10, Snippets: 3, MarkOpen: "[", MarkClose: "]"}
		chats, _, err := s.SearchChats(t.Context(), f)
		if err != nil {
			t.Fatalf("SearchChats(%q): %v", c.q, err)
		}
		if len(chats) != 1 || len(chats[0].Snippets) != 1 {
			t.Errorf("SearchChats(%q) = %+v, want one chat with one snippet", c.q, chats)
		} else if got := chats[0].Snippets[0].Text; got != c.want {
			t.Errorf("SearchChats(%q) snippet\n got %q\nwant %q", c.q, got, c.want)
		}
		entries, _, err := s.SearchEntries(t.Context(), f)
		if err != nil {
			t.Fatalf("SearchEntries(%q): %v", c.q, err)
		}
		if len(entries) != 1 {
			t.Errorf("SearchEntries(%q) = %+v, want one entry", c.q, entries)
		} else if got := entries[0].Snippet; got != c.want {
			t.Errorf("SearchEntries(%q) snippet\n got %q\nwant %q", c.q, got, c.want)
		}
	}
}
