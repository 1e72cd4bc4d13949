package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals/storetest"
)

func TestResetLaneConformance(t *testing.T) {
	storetest.RunResetLane(t, func(tb testing.TB) storetest.RepairStore { return MustOpenDB(tb) })
}

func TestReplicaResetConformance(t *testing.T) {
	storetest.RunReplicaReset(t, func(tb testing.TB) storetest.ReplicaStore { return MustOpenDB(tb) })
}

func TestDropOpConformance(t *testing.T) {
	storetest.RunDropOp(t, func(tb testing.TB) storetest.DropStore { return MustOpenDB(tb) })
}

func TestGivenUpRunRecordedAgainConformance(t *testing.T) {
	storetest.RunGivenUpRunRecordedAgain(t, func(tb testing.TB) storetest.DropStore { return MustOpenDB(tb) })
}
