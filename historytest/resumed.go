package historytest

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
)

// testResumedSessionFoundByItsEarlierID proves a resumed session's chat (keyed on its own,
// newer id, with resumed_from naming the session it continued) is found by the earlier id
// when no chat has that id, and that the earlier session's own chat wins when it exists — all
// inside the caller's scope.
func testResumedSessionFoundByItsEarlierID(t *testing.T, open Opener) {
	const earlier, newer, gone = "3f1c9a2e-5b7d-4e8f-9a01-2b3c4d5e6f70", "8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f", "11112222-3333-4444-8555-666677778888"
	e := newEnv(t, open)
	ctx := context.Background()
	for id, from := range map[string]string{"claude-code:" + newer: gone, "claude-code:" + earlier: ""} {
		c := &annals.Chat{ID: id, TenantID: "A", UserID: "ua1", CreatedAt: base}
		if from != "" {
			c.Attributes = annals.Attributes{"resumed_from": from}
		}
		if _, err := annals.CreateChat(ctx, e.store, c); err != nil {
			t.Fatal(err)
		}
	}
	other := &annals.Chat{ID: "claude-code:99990000-0000-4000-8000-000000000000", TenantID: "B", UserID: "ub1", CreatedAt: base, Attributes: annals.Attributes{"resumed_from": "aaaabbbb-0000-4000-8000-000000000000"}}
	if _, err := annals.CreateChat(ctx, e.store, other); err != nil {
		t.Fatal(err)
	}
	get := func(p *annals.Principal, id string) (string, error) {
		v, err := e.svc.GetChat(as(p), annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: 1})
		if err != nil {
			return "", err
		}
		return v.Chat.ID, nil
	}
	mine := member("A", "ua1", "", annals.ScopeTenant)
	for given, want := range map[string]string{gone: "claude-code:" + newer, newer: "claude-code:" + newer, earlier: "claude-code:" + earlier} {
		if got, err := get(mine, given); err != nil || got != want {
			t.Errorf("get %q = %q, %v; want %s", given, got, err, want)
		}
	}
	if got, err := get(mine, "aaaabbbb-0000-4000-8000-000000000000"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("another tenant's resumed session by its earlier id = %q, %v; want not found", got, err)
	}
}
