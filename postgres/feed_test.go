package postgres_test

import (
	"testing"

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
