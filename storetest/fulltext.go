package storetest

import (
	"testing"

	annals "github.com/annals-dev/annals"
)

func fullTextTests() []test {
	return []test{
		{"EveryEntryFieldIsSearchableRightAfterAppend", testTextEntryFields},
		{"EveryTermMustMatch", testTextAllTerms},
		{"MatchingIgnoresCase", testTextCase},
		{"SkippedRepeatsDoNotChangeTheIndex", testTextSkipped},
		{"TruncateRemovesHitsImmediately", testTextTruncate},
		{"ChatMetadataIsSearchable", testTextChatFields},
		{"UpdateReplacesChatTerms", testTextUpdate},
		{"MatchingIsOwnerScoped", testTextOwner},
		{"PunctuationAndQuotesAreLiteral", testTextLiteral},
		{"NoTermsIsInvalid", testTextNoTerms},
	}
}

func testTextEntryFields(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	reasoning := TextEntry("e2", annals.KindAssistant, "visible answer")
	reasoning.Reasoning = "betaword hidden reasoning"
	mustAppend(t, s, "c1",
		TextEntry("e1", annals.KindUser, "alphaword in the text"),
		reasoning,
		ToolEntry("e3", "gammatool", `{"path": "deltaword.txt", "n": 1}`, "the epsilonword result"),
	)
	cases := []struct{ field, term string }{
		{"text", "alphaword"},
		{"reasoning", "betaword"},
		{"tool name", "gammatool"},
		{"tool arguments", "deltaword"},
		{"tool result", "epsilonword"},
	}
	want := map[string][]annals.EntryRef{
		"alphaword": {ref("c1", 1)}, "betaword": {ref("c1", 2)},
		"gammatool": {ref("c1", 3)}, "deltaword": {ref("c1", 3)}, "epsilonword": {ref("c1", 3)},
	}
	for _, tc := range cases {
		wantRefs(t, "MatchEntries on "+tc.field+" ("+tc.term+")", mustMatchEntries(t, s, tenant("A"), tc.term), want[tc.term])
	}
}

func testTextAllTerms(t *testing.T, s Store) {
	for _, id := range []string{"c2", "c1"} {
		mustCreateChat(t, s, NewChat(id, "A"))
		mustAppend(t, s, id,
			TextEntry(id+"-1", annals.KindUser, "apple banana"),
			TextEntry(id+"-2", annals.KindUser, "apple cherry"),
			TextEntry(id+"-3", annals.KindUser, "banana split"),
		)
	}
	// Ordered by chat id, then seq.
	wantRefs(t, "MatchEntries(apple)", mustMatchEntries(t, s, tenant("A"), "apple"),
		[]annals.EntryRef{ref("c1", 1), ref("c1", 2), ref("c2", 1), ref("c2", 2)})
	wantRefs(t, "MatchEntries(apple, banana)", mustMatchEntries(t, s, tenant("A"), "apple", "banana"),
		[]annals.EntryRef{ref("c1", 1), ref("c2", 1)})
	wantRefs(t, "MatchEntries(banana, cherry)", mustMatchEntries(t, s, tenant("A"), "banana", "cherry"), nil)
	// A multi-word term is a token sequence (a phrase), not two independent words.
	wantRefs(t, "MatchEntries(\"apple banana\")", mustMatchEntries(t, s, tenant("A"), "apple banana"),
		[]annals.EntryRef{ref("c1", 1), ref("c2", 1)})
	wantRefs(t, "MatchEntries(\"banana apple\")", mustMatchEntries(t, s, tenant("A"), "banana apple"), nil)
}

func testTextCase(t *testing.T, s Store) {
	c := NewChat("c1", "A")
	c.Title = "Kestrel Report"
	mustCreateChat(t, s, c)
	mustAppend(t, s, "c1", TextEntry("e1", annals.KindUser, "The Osprey landed"))
	wantRefs(t, "MatchEntries(OSPREY)", mustMatchEntries(t, s, tenant("A"), "OSPREY"), []annals.EntryRef{ref("c1", 1)})
	wantRefs(t, "MatchEntries(osprey)", mustMatchEntries(t, s, tenant("A"), "osprey"), []annals.EntryRef{ref("c1", 1)})
	wantIDs(t, "MatchChats(kestrel)", mustMatchChats(t, s, tenant("A"), "kestrel"), []string{"c1"})
}

func testTextSkipped(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	mustAppend(t, s, "c1", TextEntry("e1", annals.KindUser, "originalword"))
	// A repeat of e1 with other text is skipped; its text must not reach the index either.
	mustAppend(t, s, "c1", TextEntry("e1", annals.KindUser, "impostorword"))
	wantRefs(t, "MatchEntries(impostorword)", mustMatchEntries(t, s, tenant("A"), "impostorword"), nil)
	wantRefs(t, "MatchEntries(originalword)", mustMatchEntries(t, s, tenant("A"), "originalword"), []annals.EntryRef{ref("c1", 1)})
}

func testTextTruncate(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	mustAppend(t, s, "c1",
		TextEntry("e1", annals.KindUser, "keepword first"),
		TextEntry("e2", annals.KindAssistant, "keepword gonerword"),
		ToolEntry("e3", "gonertool", `{"a": "gonerarg"}`, "gonerword result"),
	)
	mustTruncate(t, s, "c1", annals.TruncatePoint{EntryID: "e2"})
	for _, term := range []string{"gonerword", "gonertool", "gonerarg"} {
		wantRefs(t, "MatchEntries("+term+") after truncate", mustMatchEntries(t, s, tenant("A"), term), nil)
	}
	wantRefs(t, "MatchEntries(keepword) after truncate", mustMatchEntries(t, s, tenant("A"), "keepword"), []annals.EntryRef{ref("c1", 1)})

	// The freed seq is reused by the next append; the index must point at the new entry only.
	mustAppend(t, s, "c1", TextEntry("e2", annals.KindUser, "freshword"))
	wantRefs(t, "MatchEntries(freshword) after re-append", mustMatchEntries(t, s, tenant("A"), "freshword"), []annals.EntryRef{ref("c1", 2)})
	wantRefs(t, "MatchEntries(gonerword) after re-append", mustMatchEntries(t, s, tenant("A"), "gonerword"), nil)
}

func testTextChatFields(t *testing.T, s Store) {
	c := NewChat("c1", "A")
	c.Title, c.Description, c.Tags = "kestrelword title", "ospreyword description", []string{"falconword", "q3-plan"}
	mustCreateChat(t, s, c)
	mustCreateChat(t, s, NewChat("c0", "A")) // a chat with no metadata never matches
	mustUpdate(t, s, "c1", annals.ChatUpdate{Summary: ptr("the harrierword summary")})
	for _, term := range []string{"kestrelword", "ospreyword", "falconword", "harrierword", "kestrelword title"} {
		wantIDs(t, "MatchChats("+term+")", mustMatchChats(t, s, tenant("A"), term), []string{"c1"})
	}
	wantIDs(t, "MatchChats(kestrelword, harrierword)", mustMatchChats(t, s, tenant("A"), "kestrelword", "harrierword"), []string{"c1"})
	wantIDs(t, "MatchChats(kestrelword, nosuchword)", mustMatchChats(t, s, tenant("A"), "kestrelword", "nosuchword"), nil)
}

func testTextUpdate(t *testing.T, s Store) {
	c := NewChat("c1", "A")
	c.Title, c.Tags = "oldtitleword", []string{"oldtagword"}
	mustCreateChat(t, s, c)
	mustUpdate(t, s, "c1", annals.ChatUpdate{
		Title:       ptr("newtitleword"),
		Tags:        &[]string{"newtagword"},
		Description: ptr("newdescword"),
	})
	for _, term := range []string{"oldtitleword", "oldtagword"} {
		wantIDs(t, "MatchChats("+term+") after update", mustMatchChats(t, s, tenant("A"), term), nil)
	}
	for _, term := range []string{"newtitleword", "newtagword", "newdescword"} {
		wantIDs(t, "MatchChats("+term+") after update", mustMatchChats(t, s, tenant("A"), term), []string{"c1"})
	}
	// Clearing the title removes its terms too.
	mustUpdate(t, s, "c1", annals.ChatUpdate{Title: ptr("")})
	wantIDs(t, "MatchChats(newtitleword) after clearing the title", mustMatchChats(t, s, tenant("A"), "newtitleword"), nil)
}

func testTextOwner(t *testing.T, s Store) {
	for _, c := range []*annals.Chat{
		{ID: "a1", TenantID: "A", UserID: "u1", Title: "sharedword alpha"},
		{ID: "b1", TenantID: "B", UserID: "u1", Title: "sharedword snowyowltitle"},
	} {
		mustCreateChat(t, s, c)
	}
	mustAppend(t, s, "a1", TextEntry("e1", annals.KindUser, "sharedword in A"))
	mustAppend(t, s, "b1", TextEntry("e1", annals.KindUser, "sharedword snowyowlword in B"))

	cases := []struct {
		owner   annals.Owner
		term    string
		entries []annals.EntryRef
		chats   []string
	}{
		{tenant("A"), "snowyowlword", nil, nil},
		{tenant("A"), "snowyowltitle", nil, nil},
		{tenant("B"), "snowyowlword", []annals.EntryRef{ref("b1", 1)}, nil},
		{tenant("B"), "snowyowltitle", nil, []string{"b1"}},
		{tenant("A"), "sharedword", []annals.EntryRef{ref("a1", 1)}, []string{"a1"}},
		{tenant("B"), "sharedword", []annals.EntryRef{ref("b1", 1)}, []string{"b1"}},
		{annals.Owner{TenantID: "B", UserID: "u2"}, "sharedword", nil, nil},
		{annals.Owner{UserID: "u1"}, "sharedword", nil, nil},
		{annals.Owner{}, "sharedword", nil, nil},
		{allTenants, "sharedword", []annals.EntryRef{ref("a1", 1), ref("b1", 1)}, []string{"a1", "b1"}},
	}
	for _, tc := range cases {
		wantRefs(t, "MatchEntries("+tc.term+") for "+tc.owner.String(), mustMatchEntries(t, s, tc.owner, tc.term), tc.entries)
		wantIDs(t, "MatchChats("+tc.term+") for "+tc.owner.String(), mustMatchChats(t, s, tc.owner, tc.term), tc.chats)
	}
}

// testTextLiteral feeds terms that are query syntax in FTS5, tsquery or LIKE. Each is a
// literal: it must never error, and a term that occurs in the text as its tokens must match.
func testTextLiteral(t *testing.T, s Store) {
	c := NewChat("c1", "A")
	c.Title = `deploy emag.ro and say "hello"`
	mustCreateChat(t, s, c)
	mustAppend(t, s, "c1",
		TextEntry("e1", annals.KindUser, "deploy to emag.ro today"),
		TextEntry("e2", annals.KindUser, `then say "hello" now`),
	)
	matching := map[string][]annals.EntryRef{
		"emag.ro":      {ref("c1", 1)},
		`"hello"`:      {ref("c1", 2)},
		`say "hello`:   {ref("c1", 2)},
		`say "hello" `: {ref("c1", 2)},
	}
	for term, want := range matching {
		wantRefs(t, "MatchEntries("+term+")", mustMatchEntries(t, s, tenant("A"), term), want)
		wantIDs(t, "MatchChats("+term+")", mustMatchChats(t, s, tenant("A"), term), []string{"c1"})
	}
	hostile := []string{
		`a"b`, `"unbalanced`, "NOT", "AND", "OR", "NEAR", "emag*", "title:foo", "{title}:x",
		"(paren", "NEAR(a b)", "^start", "a-b", "-deploy", "+deploy", `back\slash`, "it's",
		"'; DROP TABLE chats; --", "a & b | !c", "x <-> y", "50%_off", "ünïcödé",
	}
	for _, term := range hostile {
		if _, err := s.MatchEntries(t.Context(), annals.TextMatch{Owner: tenant("A"), Terms: []string{term}}); err != nil {
			t.Errorf("MatchEntries(%q): %v, want no error (terms are literal)", term, err)
		}
		if _, err := s.MatchChats(t.Context(), annals.TextMatch{Owner: tenant("A"), Terms: []string{term}}); err != nil {
			t.Errorf("MatchChats(%q): %v, want no error (terms are literal)", term, err)
		}
	}
	// A term with no word characters at all has nothing to match. Whether a store answers that
	// with no hits or with invalid is its choice; an engine syntax error (internal) is not.
	for _, term := range []string{"%", `"`, `""`, "***", "()", "-", ""} {
		for _, call := range []struct {
			name string
			fn   func() error
		}{
			{"MatchEntries", func() error {
				_, err := s.MatchEntries(t.Context(), annals.TextMatch{Owner: tenant("A"), Terms: []string{term}})
				return err
			}},
			{"MatchChats", func() error {
				_, err := s.MatchChats(t.Context(), annals.TextMatch{Owner: tenant("A"), Terms: []string{term}})
				return err
			}},
		} {
			if err := call.fn(); err != nil && annals.ErrorCode(err) != annals.EINVALID {
				t.Errorf("%s(%q): %v (code %q), want no error or invalid", call.name, term, err, annals.ErrorCode(err))
			}
		}
	}
	// "-deploy" is a word, not an exclusion: it must not return every entry without "deploy".
	if refs := mustMatchEntries(t, s, tenant("A"), "-deploy"); len(refs) == 1 && refs[0] == ref("c1", 2) {
		t.Errorf("MatchEntries(-deploy) = %v: the term was treated as an exclusion", refs)
	}
	wantTranscript(t, mustEntries(t, s, "c1"), "e1", "e2")
}

func testTextNoTerms(t *testing.T, s Store) {
	mustCreateChat(t, s, NewChat("c1", "A"))
	_, err := s.MatchEntries(t.Context(), annals.TextMatch{Owner: tenant("A")})
	wantCode(t, "MatchEntries without terms", err, annals.EINVALID)
	_, err = s.MatchChats(t.Context(), annals.TextMatch{Owner: tenant("A")})
	wantCode(t, "MatchChats without terms", err, annals.EINVALID)
}
