package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

// Two servers sharing one database append to one chat and create another at once: the host id
// is one (the database's), the lanes are numbered without a gap or a repeat, every appended entry
// is in exactly one operation, and the digest chain holds.
func TestOutboxTwoServersOneLane(t *testing.T) {
	ctx := context.Background()
	a, b := twoServers(t)
	host, err := a.SetOutbox(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := b.SetOutbox(ctx, true); err != nil || again.ID != host.ID {
		t.Fatalf("the second server's SetOutbox = %+v, %v; want the same host id %s", again, err, host.ID)
	}
	if _, err := annals.CreateChat(ctx, a, storetest.NewChat("shared", "t1")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, s := range []annals.CaptureStore{a, b} {
		wg.Go(func() {
			if _, err := annals.CreateChat(ctx, s, storetest.NewChat("both", "t1")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	const writers, perWriter = 4, 10
	appendAll(t, []*postgres.DB{a, b}, "shared", writers, perWriter, "w")

	ops, err := a.PendingOps(ctx, annals.OutboxRead{ChatID: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1+writers*perWriter {
		t.Fatalf("lane holds %d ops, want %d", len(ops), 1+writers*perWriter)
	}
	seen := map[string]bool{}
	prev := ""
	for i, op := range ops {
		if op.LaneSeq != int64(i+1) || op.Host != host.ID || seen[op.ID] {
			t.Fatalf("op %d: lane seq %d, id %s; want %d, a fresh id under %s", i, op.LaneSeq, op.ID, i+1, host.ID)
		}
		seen[op.ID] = true
		if d := annals.LaneDigest(prev, op.ChatID, op.LaneSeq, op.Kind, op.Payload); d != op.Digest {
			t.Fatalf("op %d: digest does not chain", i+1)
		}
		prev = op.Digest
		if i > 0 {
			p, err := annals.DecodePayload(op.Payload)
			if err != nil || len(p.Append.Entries) != 1 || p.Append.Entries[0].Seq != int64(i) {
				t.Fatalf("op %d: payload %s, want one entry at seq %d", i+1, op.Payload, i)
			}
		}
	}
	if both, err := b.PendingOps(ctx, annals.OutboxRead{ChatID: "both"}); err != nil || len(both) != 1 {
		t.Fatalf("a chat created by both servers at once: %d ops, %v; want one", len(both), err)
	}
}
