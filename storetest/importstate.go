package storetest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// importStateTests prove the optional annals.ImportStateStore contract (what the importers
// remember per source file) on a store that has it.
func importStateTests() []test {
	return []test{
		{"RoundTripsAndFilters", testImportStateRoundTrips},
		{"PendingTitlesAndChatBySourceID", testPendingTitlesAndChatBySourceID},
	}
}

func importState(t *testing.T, s Store) annals.ImportStateStore {
	t.Helper()
	db, ok := s.(annals.ImportStateStore)
	if !ok {
		t.Skip("the store keeps no import state")
	}
	return db
}

func testImportStateRoundTrips(t *testing.T, s Store) {
	db := importState(t, s)
	ctx := t.Context()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	src := &annals.ImportSource{
		Path: "/home/u/.claude/projects/p%_x/s.jsonl", Format: "claude-code", Size: 1234, ModTime: at,
		Hash: "abc", Offset: 1000, Line: 12, State: json.RawMessage(`{"chat":"c"}`),
		Provisional: []annals.ProvisionalEntry{{ChatID: "c", EntryID: "e9"}},
		ChatIDs:     []string{"c", "c/sidechain-1"}, Entries: 40, ImportedAt: at,
	}
	if err := db.SaveImportSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	got, err := db.FindImportSource(ctx, src.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, src) {
		t.Errorf("got %+v, want %+v", got, src)
	}
	// Saving again replaces the row and its chat list.
	src.ChatIDs, src.Provisional, src.Offset = []string{"c"}, nil, 1234
	if err := db.SaveImportSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	got, _ = db.FindImportSource(ctx, src.Path)
	if !reflect.DeepEqual(got.ChatIDs, []string{"c"}) || got.Provisional != nil || got.Offset != 1234 {
		t.Errorf("after a second save: %+v", got)
	}
	other := &annals.ImportSource{Path: "/home/u/.codex/r.jsonl", Format: "codex", ImportedAt: at, ChatIDs: []string{"x"}}
	if err := db.SaveImportSource(ctx, other); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		f    annals.ImportSourceFilter
		want int
	}{
		"all":                               {annals.ImportSourceFilter{}, 2},
		"format":                            {annals.ImportSourceFilter{Format: "codex"}, 1},
		"prefix with % and _ is literal":    {annals.ImportSourceFilter{PathPrefix: "/home/u/.claude/projects/p%_x"}, 1},
		"prefix that only LIKE would match": {annals.ImportSourceFilter{PathPrefix: "/home/u/.claude/projects/pa"}, 0},
		"chat":                              {annals.ImportSourceFilter{ChatID: "x"}, 1},
		"gone only":                         {annals.ImportSourceFilter{GoneOnly: true}, 0},
	} {
		srcs, err := db.FindImportSources(ctx, tc.f)
		if err != nil || len(srcs) != tc.want {
			t.Errorf("%s: %d sources (%v), want %d", name, len(srcs), err, tc.want)
		}
	}
	gone := at.Add(time.Hour)
	if err := db.MarkImportSourceGone(ctx, other.Path, gone); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkImportSourceGone(ctx, other.Path, gone.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ = db.FindImportSource(ctx, other.Path)
	if got.GoneAt == nil || !got.GoneAt.Equal(gone) {
		t.Errorf("gone at %v, want the first time it was found missing, %v", got.GoneAt, gone)
	}
	if err := db.MarkImportSourceGone(ctx, "/nowhere", gone); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("marking an unknown path gone: %v, want not_found", err)
	}
	if _, err := db.FindImportSource(ctx, "/nowhere"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("unknown path: %v, want not_found", err)
	}
}

func testPendingTitlesAndChatBySourceID(t *testing.T, s Store) {
	db := importState(t, s)
	ctx := t.Context()
	if _, err := db.ChatIDBySourceID(ctx, "leaf-1"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("no chat yet: %v, want not_found", err)
	}
	for _, title := range []string{"first", "second"} {
		if err := db.SavePendingTitle(ctx, annals.PendingTitle{SourceID: "leaf-1", Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := db.FindPendingTitles(ctx)
	if err != nil || len(pending) != 1 || pending[0].Title != "second" {
		t.Errorf("pending %+v (%v), want the latest title once", pending, err)
	}
	if _, err := annals.CreateChat(ctx, s, &annals.Chat{ID: "c1", TenantID: "local"}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, s, "c1", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hi", SourceIDs: []string{"leaf-1"}}}); err != nil {
		t.Fatal(err)
	}
	if id, err := db.ChatIDBySourceID(ctx, "leaf-1"); err != nil || id != "c1" {
		t.Errorf("chat by source id = %q (%v), want c1", id, err)
	}
	if err := db.DeletePendingTitle(ctx, "leaf-1"); err != nil {
		t.Fatal(err)
	}
	if pending, _ := db.FindPendingTitles(ctx); len(pending) != 0 {
		t.Errorf("pending after delete: %v", pending)
	}
}
