package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
)

// TestManualRecapCountsAsTheDigest: a recap made by hand (annals recap, the recap op) is
// recorded as the chat's digest, so the worker's next pass leaves the chat alone; eight new
// entries make it due again.
func TestManualRecapCountsAsTheDigest(t *testing.T) {
	f := newDigestFixture(t)
	f.chat(t, "c", "", 2, digestT0.Add(-time.Hour))
	caller := annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "T", UserID: "u", Role: annals.RoleMember, Scopes: annals.Scopes})
	if _, err := f.svc.RecapChat(caller, annals.ChatSelector{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	if n := f.sum.count("c"); n != 1 {
		t.Fatalf("%d summarizer calls after the recap; want 1", n)
	}
	if p := f.pass(t); p.Digested != 0 || p.Checked != 0 {
		t.Fatalf("pass after a recap = %+v; want nothing to check", p)
	}
	if n := f.sum.count("c"); n != 1 {
		t.Fatalf("the worker summarised the recapped chat again (%d calls)", n)
	}
	f.add(t, "c", "more", 8, digestT0)
	if p := f.pass(t); p.Digested != 1 {
		t.Fatalf("after 8 new entries: %+v; want it digested", p)
	}
}
