package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/view"
)

// An upgrade to migration 0009 finds entries already stored: they are added to the substring
// index on open, in batches with progress, searches answer right before and after, and writes
// made while the build is pending neither go missing from the index nor enter it twice.
func TestSubstringIndexBuildOfAnUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "annals.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)
	es := []*annals.Entry{
		{ID: "old1", Kind: annals.KindUser, Time: t0, Text: "old Zqxw one"},
		{ID: "old2", Kind: annals.KindUser, Time: t0.Add(time.Second), Text: "old zqxw two"},
	}
	// More entries after them than a search reads before it turns to the index.
	for i := 0; i < 1100; i++ {
		es = append(es, &annals.Entry{ID: fmt.Sprintf("f%d", i), Kind: annals.KindAssistant, Time: t0.Add(time.Duration(i+2) * time.Second), Text: fmt.Sprintf("filler %d", i)})
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", es); err != nil {
		t.Fatal(err)
	}
	search := func(what string, want ...string) {
		t.Helper()
		page, err := db.ViewSearch(ctx, view.Filter{Owner: annals.Owner{TenantID: "A"}, Substring: "zqxw"})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var got []string
		for _, m := range page.Messages {
			got = append(got, m.Content.Text.Value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: search = %q, want %q", what, got, want)
		}
	}
	if err := db.UndoSubstringIndexForTest(ctx); err != nil {
		t.Fatal(err)
	}
	search("before the build", "old zqxw two", "old Zqxw one")

	// While the build is pending: a truncate removes the last entry of the pending range, and
	// an append takes its pk again (SQLite reuses the highest), so the build adds it, once.
	if _, err := annals.TruncateChat(ctx, db, "c1", annals.TruncatePoint{EntryID: "f1099"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", []*annals.Entry{{ID: "late", Kind: annals.KindUser, Time: t0.Add(-time.Minute), Text: "late zqxw"}}); err != nil {
		t.Fatal(err)
	}
	var calls [][2]int
	if err := db.BuildSubstringIndexForTest(ctx, func(done, total int) { calls = append(calls, [2]int{done, total}) }, 250); err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{250, 1102}, {500, 1102}, {750, 1102}, {1000, 1102}, {1102, 1102}}; !slices.Equal(calls, want) {
		t.Errorf("progress = %v, want %v", calls, want)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("after the build: %v", err)
	}
	search("after the build", "old zqxw two", "old Zqxw one", "late zqxw")

	// The same on open, as the CLI sees it.
	if err := db.UndoSubstringIndexForTest(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	calls = nil
	if db, err = sqlite.Open(ctx, path, sqlite.Options{SubstringProgress: func(done, total int) { calls = append(calls, [2]int{done, total}) }}); err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{1102, 1102}}; !slices.Equal(calls, want) {
		t.Errorf("progress on open = %v, want %v", calls, want)
	}
	if err := db.CheckIndex(ctx); err != nil {
		t.Fatalf("after the build on open: %v", err)
	}
	search("after the build on open", "old zqxw two", "old Zqxw one", "late zqxw")
}

// A substring common in older entries only has more candidates than the search sorts: it is
// tested while walking on by time, and pages (with their cursor) come out as from the sort.
func TestSubstringCommonInOlderEntriesOnly(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)
	var es []*annals.Entry
	for i := 0; i < 4100; i++ {
		es = append(es, &annals.Entry{ID: fmt.Sprintf("o%d", i), Kind: annals.KindUser, Time: t0.Add(time.Duration(i) * time.Second), Text: fmt.Sprintf("old zqxw %d", i)})
	}
	for i := 0; i < 1100; i++ {
		es = append(es, &annals.Entry{ID: fmt.Sprintf("f%d", i), Kind: annals.KindAssistant, Time: t0.Add(time.Hour * 3).Add(time.Duration(i) * time.Second), Text: fmt.Sprintf("filler %d", i)})
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", es); err != nil {
		t.Fatal(err)
	}
	f := view.Filter{Owner: annals.Owner{TenantID: "A"}, Substring: "ZQXW", Limit: 3}
	var got []string
	for page := 0; page < 2; page++ {
		p, err := db.ViewSearch(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Messages {
			got = append(got, m.Content.Text.Value)
		}
		f.After = p.Next
	}
	want := []string{"old zqxw 4099", "old zqxw 4098", "old zqxw 4097", "old zqxw 4096", "old zqxw 4095", "old zqxw 4094"}
	if !slices.Equal(got, want) {
		t.Errorf("pages = %q, want %q", got, want)
	}
}

// A match among the first entries walked, none in the next ones, the rest only old: every step
// of the search contributes its matches, in order, once.
func TestSubstringMatchesFromEveryStep(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c1", TenantID: "A"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC)
	var es []*annals.Entry
	add := func(text string) {
		n := len(es)
		es = append(es, &annals.Entry{ID: fmt.Sprintf("e%d", n), Kind: annals.KindUser, Time: t0.Add(time.Duration(n) * time.Second), Text: text})
	}
	add("old zqxw 1")
	add("old zqxw 2")
	for i := 0; i < 2000; i++ {
		add("filler")
	}
	add("new zqxw")
	for i := 0; i < 100; i++ {
		add("filler")
	}
	if _, err := annals.AppendEntries(ctx, db, "c1", es); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 2, 3, 80} {
		page, err := db.ViewSearch(ctx, view.Filter{Owner: annals.Owner{TenantID: "A"}, Substring: "zqxw", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range page.Messages {
			got = append(got, m.Content.Text.Value)
		}
		want := []string{"new zqxw", "old zqxw 2", "old zqxw 1"}[:min(limit, 3)]
		if !slices.Equal(got, want) || page.HasMore != (limit < 3) {
			t.Errorf("limit %d: %q (more %v), want %q", limit, got, page.HasMore, want)
		}
	}
}
