package storecopy_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storecopy"
	"github.com/annals-dev/annals/storetest"
)

func open(t *testing.T, name string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestCopyCarriesTheGeneratedTitleAndRunKinds: a chat whose title a digest generated arrives
// with the mark (so a later digest may still replace it), one a person titled without it, and
// a recap run keeps its kind.
func TestCopyCarriesTheGeneratedTitleAndRunKinds(t *testing.T) {
	ctx := context.Background()
	src, dst := open(t, "src.db"), open(t, "dst.db")
	for _, id := range []string{"gen", "named"} {
		c := storetest.NewChat(id, "acme")
		if id == "named" {
			c.Title = "Dana's"
		}
		if _, err := annals.CreateChat(ctx, src, c); err != nil {
			t.Fatal(err)
		}
		if _, err := annals.AppendEntries(ctx, src, id, storetest.Entries(id, 2)); err != nil {
			t.Fatal(err)
		}
		got, _ := src.FindChatByID(ctx, id)
		now := storetest.BaseTime.Add(time.Hour)
		if ok, err := src.LeaseDigest(ctx, got.Ref(), "w", now, now.Add(time.Minute)); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if _, err := src.StoreDigest(ctx, got.Ref(), annals.DigestWrite{Holder: "w", Revision: 2, Summary: "s", Title: "Generated", At: now}); err != nil {
			t.Fatal(err)
		}
	}
	recap := storetest.NewRun("recap-gen-1", "gen", annals.StatusCompleted, storetest.BaseTime)
	recap.Kind, recap.InputTokens = annals.RunKindRecap, 10
	if _, err := annals.RecordRun(ctx, src, recap); err != nil {
		t.Fatal(err)
	}
	if _, err := storecopy.Copy(ctx, src, dst, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := dst.FindChatByID(ctx, "gen"); err != nil || got.Title != "Generated" || !got.TitleGenerated {
		t.Errorf("copied gen = %+v, %v; want its generated title, marked", got, err)
	}
	if got, err := dst.FindChatByID(ctx, "named"); err != nil || got.Title != "Dana's" || got.TitleGenerated {
		t.Errorf("copied named = %+v, %v; want the person's title, unmarked", got, err)
	}
	runs, err := dst.FindRuns(ctx, "gen")
	if err != nil || len(runs) != 1 || runs[0].Kind != annals.RunKindRecap {
		t.Errorf("copied runs = %+v, %v; want the recap run with its kind", runs, err)
	}
}
