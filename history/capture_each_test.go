package history_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/redact"
)

// TestLocalCaptureEachRedactsEveryList: the local capture path's CaptureEach (annals import
// writing several sources in one transaction) redacts every list before the store sees it,
// as Capture does, and answers a result per list.
func TestLocalCaptureEachRedactsEveryList(t *testing.T) {
	red, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	store := openSQLite(t)
	svc := history.New(history.Config{Store: store, Redactor: red})
	each, ok := svc.LocalCapture().(annals.CaptureEachStore)
	if !ok {
		t.Fatal("the local capture path cannot write lists together")
	}
	const secret = "AKIAIOSFODNN7EXAMPLE"
	now := time.Now().UTC()
	list := func(id string) []annals.CaptureOp {
		return []annals.CaptureOp{
			{Chat: &annals.Chat{ID: id, TenantID: "local", Title: "key " + secret, CreatedAt: now}},
			{Append: &annals.AppendOp{ChatID: id, Entries: []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "my key is " + secret, Time: now}}}},
		}
	}
	res, err := each.CaptureEach(context.Background(), [][]annals.CaptureOp{list("a"), list("b")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].EntriesAppended != 1 || res[1].ChatsCreated != 1 {
		t.Fatalf("results %+v", res)
	}
	for _, id := range []string{"a", "b"} {
		c, err := store.FindChatByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		es, err := store.FindEntries(context.Background(), annals.EntryFilter{ChatID: id})
		if err != nil || len(es) != 1 {
			t.Fatalf("chat %s: %d entries (%v)", id, len(es), err)
		}
		if strings.Contains(c.Title, secret) || strings.Contains(es[0].Text, secret) {
			t.Errorf("chat %s stored the key: title %q, entry %q", id, c.Title, es[0].Text)
		}
	}
}

// noCaptureEach is a store that cannot apply several lists in one transaction (as PostgreSQL's).
type noCaptureEach struct{ history.Store }

// TestLocalCaptureEachRefusesAStoreThatCannot: over a store without CaptureEach, the local
// capture path says it cannot write lists together and refuses them before writing anything —
// writing them one by one would leave the first lists applied when a later one fails, which a
// caller of an all-or-nothing CaptureEach takes for none applied and writes again.
func TestLocalCaptureEachRefusesAStoreThatCannot(t *testing.T) {
	store := openSQLite(t)
	svc := history.New(history.Config{Store: noCaptureEach{store}})
	local := svc.LocalCapture()
	if c, ok := local.(interface{ CanCaptureEach() bool }); !ok || c.CanCaptureEach() {
		t.Fatal("the local capture path over a store without CaptureEach says it can write lists together")
	}
	now := time.Now().UTC()
	lists := [][]annals.CaptureOp{
		{{Chat: &annals.Chat{ID: "a", TenantID: "local", CreatedAt: now}}},
		{{Chat: &annals.Chat{ID: "b", TenantID: "local", CreatedAt: now}}},
	}
	_, err := local.(annals.CaptureEachStore).CaptureEach(context.Background(), lists)
	if annals.ErrorCode(err) != annals.ENOTIMPLEMENTED {
		t.Fatalf("CaptureEach over a store without it: %v, want not_implemented", err)
	}
	if c, err := store.FindChatByID(context.Background(), "a"); err == nil {
		t.Errorf("the refused lists wrote chat %s", c.ID)
	}
}

// TestLocalCaptureEachSavingRedactsAndSavesTheState: the local capture path's
// CaptureEachSaving (annals import saving sources' import state with their data) redacts every
// list and saves the states in the same transaction; over a store that cannot, it says so and
// refuses before writing anything.
func TestLocalCaptureEachSavingRedactsAndSavesTheState(t *testing.T) {
	red, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	store := openSQLite(t)
	local := history.New(history.Config{Store: store, Redactor: red}).LocalCapture()
	saving, ok := local.(annals.ImportCaptureStore)
	if c, can := local.(interface{ CanCaptureEachSaving() bool }); !ok || !can || !c.CanCaptureEachSaving() {
		t.Fatal("the local capture path over SQLite cannot save import state with its captures")
	}
	const secret = "AKIAIOSFODNN7EXAMPLE"
	now := time.Now().UTC()
	lists := [][]annals.CaptureOp{{
		{Chat: &annals.Chat{ID: "a", TenantID: "local", CreatedAt: now}},
		{Append: &annals.AppendOp{ChatID: "a", Entries: []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "my key is " + secret, Time: now}}}},
	}}
	states := func(res []*annals.CaptureResult) []*annals.ImportSource {
		return []*annals.ImportSource{{Path: "/src/a.jsonl", Format: "claude-code", Entries: int64(res[0].EntriesAppended), ChatIDs: []string{"a"}}}
	}
	if _, err := saving.CaptureEachSaving(context.Background(), lists, states); err != nil {
		t.Fatal(err)
	}
	es, err := store.FindEntries(context.Background(), annals.EntryFilter{ChatID: "a"})
	if err != nil || len(es) != 1 || strings.Contains(es[0].Text, secret) {
		t.Errorf("stored entries %v (%v); want one, redacted", es, err)
	}
	if src, err := store.(annals.ImportStateStore).FindImportSource(context.Background(), "/src/a.jsonl"); err != nil || src.Entries != 1 {
		t.Errorf("import state %+v (%v); want the source with its entry", src, err)
	}

	other := openSQLite(t)
	cannot := history.New(history.Config{Store: noCaptureEach{other}}).LocalCapture()
	if c := cannot.(interface{ CanCaptureEachSaving() bool }); c.CanCaptureEachSaving() {
		t.Fatal("the local capture path over a store without it says it can save import state with its captures")
	}
	if _, err := cannot.(annals.ImportCaptureStore).CaptureEachSaving(context.Background(), lists, states); annals.ErrorCode(err) != annals.ENOTIMPLEMENTED {
		t.Fatalf("CaptureEachSaving over a store without it: %v, want not_implemented", err)
	}
	if c, err := other.FindChatByID(context.Background(), "a"); err == nil {
		t.Errorf("the refused lists wrote chat %s", c.ID)
	}
}
