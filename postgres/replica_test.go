package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

func TestReplicaConformance(t *testing.T) {
	storetest.RunReplica(t, func(tb testing.TB) storetest.ReplicaStore { return MustOpenDB(tb) })
}

// Two servers sharing one database receive the same lane's deliveries at once, each
// delivery several times: every operation is applied exactly once, in lane order.
func TestReplicaTwoServersOneLane(t *testing.T) {
	ctx := context.Background()
	a, b := twoServers(t)
	const host = "0123456789abcdef0123456789abcdef"
	ops := []*annals.ReplicaChange{{Capture: []annals.CaptureOp{{Chat: storetest.NewChat("shared", "t1")}}}}
	for i := range 6 {
		ops = append(ops, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Append: &annals.AppendOp{ChatID: "shared",
			Entries: []*annals.Entry{{ID: fmt.Sprintf("e%d", i), Kind: annals.KindUser, Text: "x"}}}}}})
	}
	prev := ""
	for i, ch := range ops {
		ch.ChatID, ch.Host, ch.TenantID, ch.LaneSeq = "shared", host, "t1", int64(i+1)
		ch.OpID = annals.OpID(host, int64(i+1))
		ch.PrevDigest, ch.Digest = prev, annals.LaneDigest(prev, "shared", ch.LaneSeq, annals.OpAppend, []byte(ch.OpID))
		prev = ch.Digest
	}
	var wg sync.WaitGroup
	var applied sync.Map
	for w := range 4 {
		s := []*postgres.DB{a, b}[w%2]
		wg.Go(func() {
			for _, ch := range ops {
				// A delivery retries while its predecessor is still in another server's hands.
				for {
					outcome, _, err := s.ApplyReplica(ctx, ch)
					if err != nil {
						t.Errorf("apply %s: %v", ch.OpID, err)
						return
					}
					if outcome == annals.ReplicaApplied {
						if _, dup := applied.LoadOrStore(ch.OpID, true); dup {
							t.Errorf("%s applied twice", ch.OpID)
						}
					}
					if outcome != annals.ReplicaMoved {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	entries, err := a.FindEntries(ctx, annals.EntryFilter{ChatID: "shared"})
	if err != nil || len(entries) != 6 {
		t.Fatalf("entries = %d, %v; want 6", len(entries), err)
	}
	for i, e := range entries {
		if e.ID != fmt.Sprintf("e%d", i) {
			t.Fatalf("entry %d is %s: lane order lost", i, e.ID)
		}
	}
	lanes, err := b.ReplicaLanes(ctx, []string{"shared"})
	if err != nil || len(lanes) != 1 || lanes[0].Seq != 7 || lanes[0].Digest != prev {
		t.Fatalf("lanes = %+v, %v; want one at seq 7 with the last digest", lanes, err)
	}
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
