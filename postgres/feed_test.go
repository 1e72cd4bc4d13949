package postgres_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals/postgres"
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
	storetest.RunFeedSwitchWaitsForWriter(t, func(tb testing.TB, afterOff func()) storetest.FeedStore {
		return MustOpen(tb, MustCreateSchema(tb), postgres.Options{PoolSize: 4, AfterFeedOff: afterOff})
	}, func(tb testing.TB, s storetest.FeedStore) bool {
		waits, err := s.(*postgres.DB).FeedSwitchWaitsForTest(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		return waits // the switch-on waits on the feed's advisory lock
	})
}
