package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// Counting every tenant's chats (/metrics) is reached through the door, which offers it to
// admins only; the count spans every tenant, whoever holds the store.
func TestDoorOffersTheCountsToAdminsOnly(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	for i, tenant := range []string{"A", "B"} {
		if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "c" + tenant, TenantID: tenant, CreatedAt: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := annals.AppendEntries(ctx, db, "cA", []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "hi", Time: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}}); err != nil {
		t.Fatal(err)
	}
	svc := history.New(history.Config{Store: db})
	admin := &annals.Principal{TenantID: "A", Role: annals.RoleAdmin, Scopes: annals.Scopes}
	got, err := history.For(svc, admin, history.Access{}).Stats(svc).CountAll(ctx)
	if err != nil || got.Chats != 2 || got.Entries != 1 {
		t.Errorf("admin's counts = %+v, %v; want 2 chats and 1 entry over both tenants", got, err)
	}
	for _, p := range []*annals.Principal{
		{TenantID: "A", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}},
		{TenantID: "A", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes},
		nil,
	} {
		if _, err := history.For(svc, p, history.Access{}).Stats(svc).CountAll(ctx); annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("counts as %+v: %v; want forbidden", p, err)
		}
	}
}
