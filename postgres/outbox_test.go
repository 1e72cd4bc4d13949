package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

func TestOutboxConformance(t *testing.T) {
	storetest.RunOutbox(t, func(tb testing.TB) storetest.OutboxStore { return MustOpenDB(tb) })
}

// A database whose host id was created in another database, cluster or schema (a dump restored
// elsewhere) is reported, its changes are queued under no host id, and a new id names them.
func TestOutboxRestoredElsewhereDetected(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	host, err := db.SetOutbox(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(host.Origin.Location, "pg:") || host.Origin.Machine != "" {
		t.Fatalf("origin = %+v, want a pg: location and no machine", host.Origin)
	}
	if _, err := annals.CreateChat(ctx, db, storetest.NewChat("c", "t1")); err != nil {
		t.Fatal(err)
	}
	db.SetLocationForTest("pg:1/2/restored")
	check, err := db.CheckHost(ctx)
	if err != nil || !check.Moved || !strings.Contains(check.Reason, "pg:1/2/restored") {
		t.Fatalf("CheckHost = %+v, %v; want moved, naming the new place", check, err)
	}
	if _, err := annals.AppendEntries(ctx, db, "c", storetest.Entries("c", 1)); err != nil {
		t.Fatal(err)
	}
	ops, err := db.PendingOps(ctx, annals.OutboxRead{ChatID: "c"})
	if err != nil || len(ops) != 2 || ops[0].Host != host.ID || ops[1].Host != "" {
		t.Fatalf("ops = %v, %v; want the first under %s and the second under none", ops, err, host.ID)
	}
	renewed, err := db.NewHostID(ctx)
	if err != nil || renewed.ID == host.ID || renewed.Origin.Location != "pg:1/2/restored" {
		t.Fatalf("NewHostID = %+v, %v", renewed, err)
	}
	ops, _ = db.PendingOps(ctx, annals.OutboxRead{ChatID: "c"})
	if ops[0].Host != host.ID || ops[1].Host != renewed.ID {
		t.Fatalf("after NewHostID, hosts = %q, %q", ops[0].Host, ops[1].Host)
	}
}
