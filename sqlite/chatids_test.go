package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// TestMatchChatIDsIsAnIndexRange proves resolving an id is a range of chat_id_keys's primary
// key (by tenant and key) or of its key index (all tenants) and a lookup of each match's chat —
// never a scan of the chats — on a fresh database nobody ran ANALYZE on, for every owner shape.
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
		{annals.Owner{TenantID: "A"}, "USING PRIMARY KEY (tenant_id=? AND key>? AND key<?)"},
		{annals.Owner{TenantID: "A", UserID: "u", AgentID: "g"}, "USING PRIMARY KEY (tenant_id=? AND key>? AND key<?)"},
		{annals.Owner{AllTenants: true}, "USING COVERING INDEX chat_id_keys_by_key (key>? AND key<?)"},
	} {
		plan, err := db.MatchChatIDsPlanForTest(ctx, tc.owner, "feedface-0000")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "SEARCH k "+tc.index) || !strings.Contains(plan, "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)") || strings.Contains(plan, "SCAN") {
			t.Errorf("owner %v: plan %q; want a range of chat_id_keys (%s) and each chat by its key, no scan", tc.owner, plan, tc.index)
		}
	}
}

// TestChatIDsWithAttributeIsAnIndexLookup proves the lookup of a resumed session's earlier id
// starts from the (key, value) index of the attributes, never walking the tenant's chats.
func TestChatIDsWithAttributeIsAnIndexLookup(t *testing.T) {
	db := MustOpenDB(t)
	for _, o := range []annals.Owner{{TenantID: "A"}, {TenantID: "A", UserID: "u"}, {AllTenants: true}} {
		plan, err := db.ChatIDsWithAttributePlanForTest(context.Background(), o, "resumed_from", "feedface")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(plan, "SEARCH a USING COVERING INDEX chat_attributes_by_key_value (key=? AND value=?); SEARCH c USING INTEGER PRIMARY KEY (rowid=?)") || strings.Contains(plan, "SCAN") {
			t.Errorf("owner %v: plan %q; want the attribute index, then each chat by its key", o, plan)
		}
	}
}
