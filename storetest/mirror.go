package storetest

import (
	"context"
	"testing"

	annals "github.com/annals-dev/annals"
)

// MirrorStore is what the mirror suite tests.
type MirrorStore interface {
	Store
	annals.MirrorStore
}

// RunMirror runs the mirror (annals.MirrorStore): a page of a feed writes each chat whole, with
// its human layer, entries and runs; a later page replaces a chat's copy and a tombstone
// removes it; the cursor is kept; a mirror refuses every other write, a page of another remote
// or tenant, and a database with chats of its own refuses to become a mirror. open returns a
// fresh, empty store.
func RunMirror(t *testing.T, open func(tb testing.TB) MirrorStore) {
	t.Helper()
	ctx := context.Background()
	src := open(t)
	mustCreateChat(t, src, NewChat("a", "team"))
	mustAppend(t, src, "a", Entries("e", 3)...)
	mustRecordRun(t, src, NewRun("r1", "a", annals.StatusCompleted, BaseTime))
	title := "the title"
	mustUpdate(t, src, "a", annals.ChatUpdate{Title: &title, Pinned: ptr(true)})
	mustCreateChat(t, src, NewChat("b", "team"))
	whole := func(id string, seq int64) *annals.FeedChat {
		return &annals.FeedChat{Seq: seq, ChatID: id, Chat: mustChat(t, src, id), Entries: mustEntries(t, src, id), Runs: mustRuns(t, src, id)}
	}
	m := open(t)
	state := &annals.MirrorState{Remote: "https://remote.example", TenantID: "team", Cursor: 2}
	if err := m.ApplyMirror(ctx, state, []*annals.FeedChat{whole("a", 1), whole("b", 2)}); err != nil {
		t.Fatal(err)
	}
	got := mustChat(t, m, "a")
	wantSameChat(t, "the mirror's copy of a", got, mustChat(t, src, "a"))
	wantSameEntries(t, "the mirror's entries of a", mustEntries(t, m, "a"), mustEntries(t, src, "a"))
	if runs := mustRuns(t, m, "a"); len(runs) != 1 || runs[0].ID != "r1" {
		t.Fatalf("the mirror's runs of a = %v, want r1", runs)
	}
	st, err := m.MirrorState(ctx)
	if err != nil || st == nil || st.Cursor != 2 || st.Remote != state.Remote || st.TenantID != "team" {
		t.Fatalf("mirror state = %+v, %v; want the remote, team, cursor 2", st, err)
	}

	// A later page: a grown and renamed, b deleted.
	mustAppend(t, src, "a", Entries("more", 2)...)
	title = "renamed on the remote"
	mustUpdate(t, src, "a", annals.ChatUpdate{Title: &title})
	state.Cursor = 4
	if err := m.ApplyMirror(ctx, state, []*annals.FeedChat{whole("a", 3), {Seq: 4, ChatID: "b", Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	wantSameChat(t, "the mirror's copy of a after the second page", mustChat(t, m, "a"), mustChat(t, src, "a"))
	if n := len(mustEntries(t, m, "a")); n != 5 {
		t.Fatalf("the mirror holds %d entries of a, want 5", n)
	}
	if _, err := m.FindChatByID(ctx, "b"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("b after its tombstone: %v, want not_found", err)
	}

	// Read-only for everyone else.
	_, err = m.Capture(ctx, []annals.CaptureOp{{Chat: NewChat("mine", "team")}})
	wantCode(t, "a capture into a mirror", err, annals.EFORBIDDEN)
	_, err = m.UpdateChat(ctx, refOf(t, m, "a"), annals.ChatUpdate{Title: &title})
	wantCode(t, "a rename in a mirror", err, annals.EFORBIDDEN)
	wantCode(t, "a delete in a mirror", m.DeleteChat(ctx, refOf(t, m, "a")), annals.EFORBIDDEN)
	other := &annals.MirrorState{Remote: "https://other.example", TenantID: "team", Cursor: 1}
	wantCode(t, "a page of another remote", m.ApplyMirror(ctx, other, nil), annals.ECONFLICT)
	wantCode(t, "a page of another tenant", m.ApplyMirror(ctx, &annals.MirrorState{Remote: state.Remote, TenantID: "x"}, nil), annals.ECONFLICT)
	wantCode(t, "a database with chats of its own", src.ApplyMirror(ctx, state, nil), annals.ECONFLICT)
}
