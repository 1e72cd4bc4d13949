package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestPhraseJudgedSetsAreBuiltFromTheTargetsText: every target chat gives a phrase whose rarer
// word is in the band and one of two common words, each two words next to each other in its
// text and found by searching for it; the sets are the same when built again.
func TestPhraseJudgedSetsAreBuiltFromTheTargetsText(t *testing.T) {
	ctx, store, tg := qualityTestTarget(t)
	names := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range names {
		id := fmt.Sprintf("c%d", i)
		at := base.Add(time.Duration(i) * time.Hour)
		if _, err := annals.CreateChat(ctx, store, &annals.Chat{ID: id, TenantID: "t", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		var es []*annals.Entry
		for j, text := range []string{"run the test again", "needs " + name, "run the test again", "needs " + name + "!", "Co2 x"} {
			es = append(es, &annals.Entry{ID: fmt.Sprint(j), Kind: annals.KindUser, Text: text, Time: at.Add(time.Duration(j) * time.Second)})
		}
		if _, err := annals.AppendEntries(ctx, store, id, es); err != nil {
			t.Fatal(err)
		}
	}
	set, err := phraseJudgedSet(tg)
	if err != nil {
		t.Fatal(err)
	}
	var band, common int
	for _, j := range set {
		switch j.set {
		case phraseSetBand:
			band++
		case phraseSetCommon:
			common++
		}
		res, err := tg.svc.SearchChats(tg.ctx, annals.SearchParams{Scope: annals.ScopeGlobal, Query: j.query, Page: annals.PageParams{Limit: 20}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res.Chats, func(h annals.ChatHit) bool { return h.Chat.ID == j.target }) {
			t.Errorf("%v: the target does not match its phrase", j)
		}
	}
	if band != len(names) || common != len(names) {
		t.Errorf("%d band and %d common-word phrases, want %d of each: %v", band, common, len(names), set)
	}
	// The first target (the newest chat): its phrases all occur twice, so the first by the phrase.
	want := []judged{{query: `"needs juliet"`, target: "c9", set: phraseSetBand}, {query: `"run the"`, target: "c9", set: phraseSetCommon}}
	if len(set) < 2 || !slices.Equal(set[:2], want) {
		t.Errorf("first target's phrases %v, want %v", set[:min(2, len(set))], want)
	}
	again, err := phraseJudgedSet(tg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(set, again) {
		t.Errorf("built again: %v, want %v", again, set)
	}
}

// qualityTestTarget is an empty SQLite store in the test's directory and the bench's target
// over it, closed when the test ends.
func qualityTestTarget(t *testing.T) (context.Context, annals.Store, *target) {
	t.Helper()
	ctx := context.Background()
	store, err := openSQLite(ctx, filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := newTarget(ctx, "sqlite", store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.close() })
	return ctx, store, tg
}
