package sqlite_test

import (
	"testing"

	"github.com/annals-dev/annals"

	"github.com/annals-dev/annals/storetest"
)

func TestReplicaConformance(t *testing.T) {
	storetest.RunReplica(t, func(tb testing.TB) storetest.ReplicaStore { return MustOpenDB(tb) })
}

func TestPushStateConformance(t *testing.T) {
	storetest.RunPushState(t, func(tb testing.TB) annals.PushStateStore { return MustOpenDB(tb) })
}

func TestBackfillConformance(t *testing.T) {
	storetest.RunBackfill(t, func(tb testing.TB) storetest.BackfillStore { return MustOpenDB(tb) })
}

func TestReplicaBatchConformance(t *testing.T) {
	storetest.RunReplicaBatch(t, func(tb testing.TB) storetest.ReplicaStore { return MustOpenDB(tb) })
}
