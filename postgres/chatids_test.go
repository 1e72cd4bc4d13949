package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// TestMatchChatIDsIsAnIndexRange proves resolving an id can be answered by a range of
// chat_id_keys's primary key (by tenant and key) or of its key index (all tenants) and each
// match's chat by its key: with sequential scans disabled, no Seq Scan is left in the plan (one
// would be if the range could not use the "C"-collated index).
func TestMatchChatIDsIsAnIndexRange(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	for _, id := range []string{"claude-code:7f3c2a10", "codex:5973b6c0", "plain"} {
		if _, err := db.Capture(ctx, []annals.CaptureOp{{Chat: storetest.NewChat(id, "A")}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		owner annals.Owner
		index string
	}{
		{annals.Owner{TenantID: "A"}, "chat_id_keys_pkey"},
		{annals.Owner{TenantID: "A", UserID: "u", AgentID: "g"}, "chat_id_keys_pkey"},
		{annals.Owner{AllTenants: true}, "chat_id_keys_by_key"},
	} {
		plan, err := db.MatchChatIDsPlanForTest(ctx, tc.owner, "feedface-0000")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, tc.index) || !strings.Contains(plan, "(key >= 'feedface-0000'::text) AND (key < 'feedface-0001'::text)") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("owner %v: plan\n%s\nwant a key range of %s and no Seq Scan", tc.owner, plan, tc.index)
		}
	}
}

// TestChatIDsWithAttributeIsAnIndexLookup proves the lookup of a resumed session's earlier id
// can be answered from the (tenant_id, key, value) index of the attributes: no Seq Scan left
// with sequential scans disabled.
func TestChatIDsWithAttributeIsAnIndexLookup(t *testing.T) {
	db := MustOpenDB(t)
	for _, o := range []annals.Owner{{TenantID: "A"}, {TenantID: "A", UserID: "u"}} {
		plan, err := db.ChatIDsWithAttributePlanForTest(context.Background(), o, "resumed_from", "feedface")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "chat_attributes_by_key_value") || !strings.Contains(plan, "Index Cond: ((tenant_id = 'A'::text") || !strings.Contains(plan, "Index Cond: (pk = m.chat_pk)") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("owner %v: plan\n%s\nwant the attribute index by tenant, key and value, and no Seq Scan", o, plan)
		}
	}
}
