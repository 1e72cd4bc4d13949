package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/storetest"
)

func TestFeed(t *testing.T) {
	storetest.RunFeed(t, func(tb testing.TB) storetest.FeedStore { return MustOpenDB(tb) })
}

func TestFeedSwitchedOn(t *testing.T) {
	storetest.RunFeedSwitchedOn(t, func(tb testing.TB) storetest.FeedStore { return MustOpenDB(tb) })
}

func TestMirror(t *testing.T) {
	storetest.RunMirror(t, func(tb testing.TB) storetest.MirrorStore { return MustOpenDB(tb) })
}

func TestFeedSwitchWaitsForWriter(t *testing.T) {
	var waitsBefore int64
	storetest.RunFeedSwitchWaitsForWriter(t, func(tb testing.TB, afterOff func()) storetest.FeedStore {
		db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "annals.db"), sqlite.Options{AfterFeedOff: afterOff})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		waitsBefore = db.WriterWaitsForTest()
		return db
	}, func(_ testing.TB, s storetest.FeedStore) bool {
		return s.(*sqlite.DB).WriterWaitsForTest() > waitsBefore // the switch-on waits for the one writer
	})
}
