package sqlite_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
)

// TestCaptureEachAppliesListsTogetherAllOrNothing: CaptureEach applies each list as Capture
// would, with a result per list (an entry already stored is skipped in its own list's count),
// and a failing list leaves nothing of any list behind.
func TestCaptureEachAppliesListsTogetherAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	entry := func(id string) *annals.Entry {
		return &annals.Entry{ID: id, Kind: annals.KindUser, Text: "otters " + id}
	}
	lists := [][]annals.CaptureOp{
		{{Chat: &annals.Chat{ID: "a", TenantID: "t"}}, {Append: &annals.AppendOp{ChatID: "a", Entries: []*annals.Entry{entry("1"), entry("2")}}}},
		{{Chat: &annals.Chat{ID: "b", TenantID: "t"}}, {Append: &annals.AppendOp{ChatID: "b", Entries: []*annals.Entry{entry("1")}}}},
		{{Append: &annals.AppendOp{ChatID: "a", Entries: []*annals.Entry{entry("2"), entry("3")}}}},
	}
	res, err := db.CaptureEach(ctx, lists)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].ChatsCreated != 1 || res[0].EntriesAppended != 2 || res[1].EntriesAppended != 1 ||
		res[2].ChatsCreated != 0 || res[2].EntriesAppended != 1 || res[2].EntriesSkipped != 1 {
		t.Fatalf("results %+v %+v %+v", res[0], res[1], res[2])
	}
	if es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: "a"}); err != nil || len(es) != 3 {
		t.Fatalf("chat a: %d entries (%v), want 3", len(es), err)
	}

	_, err = db.CaptureEach(ctx, [][]annals.CaptureOp{
		{{Chat: &annals.Chat{ID: "c", TenantID: "t"}}, {Append: &annals.AppendOp{ChatID: "c", Entries: []*annals.Entry{entry("1")}}}},
		{{Append: &annals.AppendOp{ChatID: "missing", Entries: []*annals.Entry{entry("1")}}}},
	})
	if annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("a list writing to no chat: %v, want not found", err)
	}
	if _, err := db.FindChatByID(ctx, "c"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the first list of a failed CaptureEach was kept: %v", err)
	}
	if refs, err := db.MatchEntries(ctx, annals.TextMatch{Owner: annals.Owner{TenantID: "t"}, Terms: []string{"otters"}}); err != nil || len(refs) != 4 {
		t.Errorf("entries indexed after CaptureEach: %d (%v), want the 4 of a and b", len(refs), err)
	}
}

// TestCaptureEachSavingStoresTheStatesInTheSameTransaction: CaptureEachSaving saves the import
// states it is given for the lists' results in the lists' own transaction. A failure after the
// data was written and before the commit (here the second state, which has no format) leaves
// neither the data nor any state; a success leaves both, the states made from the results.
func TestCaptureEachSavingStoresTheStatesInTheSameTransaction(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	lists := [][]annals.CaptureOp{
		{{Chat: &annals.Chat{ID: "a", TenantID: "t"}}, {Append: &annals.AppendOp{ChatID: "a", Entries: []*annals.Entry{{ID: "1", Kind: annals.KindUser, Text: "otters"}}}}},
		{{Chat: &annals.Chat{ID: "b", TenantID: "t"}}, {Append: &annals.AppendOp{ChatID: "b", Entries: []*annals.Entry{{ID: "1", Kind: annals.KindUser, Text: "beavers"}}}}},
	}
	states := func(format string) func([]*annals.CaptureResult) []*annals.ImportSource {
		return func(res []*annals.CaptureResult) []*annals.ImportSource {
			return []*annals.ImportSource{
				{Path: "/src/a.jsonl", Format: "claude-code", Entries: int64(res[0].EntriesAppended), ChatIDs: []string{"a"}},
				{Path: "/src/b.jsonl", Format: format, Entries: int64(res[1].EntriesAppended), ChatIDs: []string{"b"}},
				nil, // a list whose source saves no state
			}
		}
	}
	if _, err := db.CaptureEachSaving(ctx, lists, states("")); annals.ErrorCode(err) != annals.EINVALID {
		t.Fatalf("a state that cannot be saved after the data: %v, want invalid", err)
	}
	for _, id := range []string{"a", "b"} {
		if _, err := db.FindChatByID(ctx, id); annals.ErrorCode(err) != annals.ENOTFOUND {
			t.Errorf("chat %s of the failed transaction was kept: %v", id, err)
		}
	}
	if srcs, err := db.FindImportSources(ctx, annals.ImportSourceFilter{}); err != nil || len(srcs) != 0 {
		t.Errorf("import states of the failed transaction: %d (%v), want none", len(srcs), err)
	}

	res, err := db.CaptureEachSaving(ctx, lists, states("claude-code"))
	if err != nil || len(res) != 2 {
		t.Fatalf("CaptureEachSaving: %v", err)
	}
	for _, id := range []string{"a", "b"} {
		if c, err := db.FindChatByID(ctx, id); err != nil || c.Totals.Entries != 1 {
			t.Errorf("chat %s: %+v, %v; want it with its entry", id, c, err)
		}
		src, err := db.FindImportSource(ctx, "/src/"+id+".jsonl")
		if err != nil || src.Entries != 1 || len(src.ChatIDs) != 1 || src.ChatIDs[0] != id {
			t.Errorf("import state of %s: %+v, %v; want 1 entry and chat %s", id, src, err, id)
		}
	}
}
