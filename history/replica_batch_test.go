package history_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/pgtest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/storetest"
)

// A lane's request answers the same on a remote that applies one operation per transaction
// (SQLite) and on one that applies a run of them in one (PostgreSQL, annals.ReplicaBatchStore):
// an operation that does not chain to the one before it stops the request after the ones before
// it, which are applied and acknowledged with the head they leave; the host's resend from there
// applies the rest.
func TestReplicateRequestStopsAtTheRefusedOp(t *testing.T) {
	remotes := map[string]func(t *testing.T) annals.Store{
		"sqlite": func(t *testing.T) annals.Store { return openSQLite(t) },
		"postgres": func(t *testing.T) annals.Store {
			db, err := postgres.Open(context.Background(), pgtest.FreshSchema(t), postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return db
		},
	}
	for name, open := range remotes {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ops := hostLane(t)
			remote := open(t)
			svc := history.New(history.Config{Store: remote})
			as := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
			bad := *ops[3]
			bad.Digest = ops[2].Digest // does not chain
			res, err := svc.ApplyReplicated(as, &annals.ReplicateRequest{Ops: []*annals.ReplicationOp{ops[0], ops[1], ops[2], &bad, ops[4]}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Acked) != 3 || res.Acked[2] != ops[2].ID || res.Error == nil || res.Error.OpID != ops[3].ID || res.Error.Code != annals.ECONFLICT ||
				res.Head.Seq != ops[2].LaneSeq || res.Head.Digest != ops[2].Digest {
				t.Fatalf("result = %+v (error %+v, head %+v); want three acknowledged, a conflict at the fourth, the third's head", res, res.Error, res.Head)
			}
			if es, _ := remote.FindEntries(ctx, annals.EntryFilter{ChatID: "b1"}); len(es) != 2 {
				t.Fatalf("remote holds %d entries, want the 2 of the applied ops", len(es))
			}
			res, err = svc.ApplyReplicated(as, &annals.ReplicateRequest{Ops: ops[3:]})
			if err != nil || len(res.Acked) != 2 || res.Error != nil || res.Head.Seq != ops[4].LaneSeq {
				t.Fatalf("resend = %+v, %v; want both acknowledged", res, err)
			}
			if es, _ := remote.FindEntries(ctx, annals.EntryFilter{ChatID: "b1"}); len(es) != 4 {
				t.Fatalf("remote holds %d entries after the resend, want 4", len(es))
			}
		})
	}
}

// hostLane is the lane of a chat captured on a host with its outbox on: its creation and four
// appends of one entry.
func hostLane(t *testing.T) []*annals.ReplicationOp {
	ctx := context.Background()
	store := openSQLite(t)
	if _, err := store.(annals.HostStore).SetOutbox(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.CreateChat(ctx, store, storetest.NewChat("b1", "laptop")); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := annals.AppendEntries(ctx, store, "b1", storetest.Entries(string(rune('a'+i)), 1)); err != nil {
			t.Fatal(err)
		}
	}
	ops, err := store.(annals.Outbox).PendingOps(ctx, annals.OutboxRead{ChatID: "b1"})
	if err != nil || len(ops) != 5 {
		t.Fatalf("pending = %d, %v; want 5", len(ops), err)
	}
	return ops
}
