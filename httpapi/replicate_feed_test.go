package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/storetest"
)

// GET /v1/replicate/feed: an operator key reads its own tenant's feed — each chat whole, a
// deleted one as its tombstone, in order, paged by cursor — and never another tenant's; a
// member key is refused; a bad cursor or limit is invalid.
func TestReplicaFeedRoute(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, nil)
	team := mustKey(t, e.db, annals.Principal{TenantID: "team", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
	other := mustKey(t, e.db, annals.Principal{TenantID: "other", Role: annals.RoleOperator, Scopes: []annals.Scope{annals.ScopeTenant}})
	member := mustKey(t, e.db, annals.Principal{TenantID: "team", UserID: "ana", Role: annals.RoleMember})
	if err := e.db.EnableFeed(ctx); err != nil { // a remote that serves its feed from the start
		t.Fatal(err)
	}
	for _, c := range []*annals.Chat{storetest.NewChat("a", "team"), storetest.NewChat("b", "team"), storetest.NewChat("z", "other")} {
		if _, err := annals.CreateChat(ctx, e.db, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := annals.AppendEntries(ctx, e.db, "a", storetest.Entries("e", 2)); err != nil {
		t.Fatal(err)
	}
	if err := e.db.DeleteChat(ctx, mustRef(t, e.db, "b")); err != nil {
		t.Fatal(err)
	}
	var feed annals.ReplicaFeed
	e.must(http.StatusOK, "GET", "/v1/replicate/feed", team, "").json(t, &feed)
	if feed.TenantID != "team" || len(feed.Changes) != 2 || feed.More {
		t.Fatalf("team's feed = %+v, want a and b's tombstone", feed)
	}
	a, b := feed.Changes[0], feed.Changes[1]
	if a.ChatID != "a" || a.Chat == nil || len(a.Entries) != 2 || b.ChatID != "b" || !b.Deleted || b.Chat != nil || feed.Cursor != b.Seq {
		t.Fatalf("changes = %+v, %+v (cursor %d); want a whole with 2 entries, then b deleted", a, b, feed.Cursor)
	}
	var page annals.ReplicaFeed
	e.must(http.StatusOK, "GET", "/v1/replicate/feed?limit=1", team, "").json(t, &page)
	if len(page.Changes) != 1 || !page.More || page.Cursor != a.Seq {
		t.Fatalf("a page of one = %+v, want a and more", page)
	}
	e.must(http.StatusOK, "GET", "/v1/replicate/feed?after="+strconv.FormatInt(page.Cursor, 10), team, "").json(t, &page)
	if len(page.Changes) != 1 || page.Changes[0].ChatID != "b" {
		t.Fatalf("after the cursor = %+v, want b", page)
	}
	e.must(http.StatusOK, "GET", "/v1/replicate/feed", other, "").json(t, &page)
	if len(page.Changes) != 1 || page.Changes[0].ChatID != "z" || page.TenantID != "other" {
		t.Fatalf("the other tenant's feed = %+v, want only z", page)
	}
	e.must(http.StatusForbidden, "GET", "/v1/replicate/feed", member, "")
	e.must(http.StatusBadRequest, "GET", "/v1/replicate/feed?after=-1", team, "")
	e.must(http.StatusBadRequest, "GET", "/v1/replicate/feed?limit=100000", team, "")
	e.must(http.StatusBadRequest, "GET", "/v1/replicate/feed?cursor=1", team, "")
}
