package storetest

import (
	"slices"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// DigestStore is what the digest suite tests: a store with the digest state.
type DigestStore interface {
	Store
	annals.DigestStore
}

// RunDigest runs the digest state suite (annals.DigestStore): which chats are listed (changed
// since their digest), the lease (atomic, exclusive, expiring), the revision guard, the title
// rules (a person's title is never replaced, a generated one is marked and may be), failures
// that leave the summary alone, and the scheduled run's time. open returns a fresh, empty store.
func RunDigest(t *testing.T, open func(tb testing.TB) DigestStore) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s DigestStore)
	}{
		{"ListsChangedChatsOnly", digestListsChanged},
		{"LeaseIsExclusiveUntilItExpires", digestLease},
		{"StaleRevisionIsNotStored", digestStaleRevision},
		{"RewindAndAsManyNewEntriesIsStale", digestRewindRevision},
		{"HumanTitleIsNeverReplaced", digestTitles},
		{"FailureLeavesSummaryAndCountsRetry", digestFailure},
		{"ScheduleRunIsKept", digestSchedule},
		{"RecapMarksDigested", digestMarked},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// digestChat creates a chat with n entries (ids prefix-1..n).
func digestChat(t *testing.T, s DigestStore, id string, n int) *annals.Chat {
	t.Helper()
	c := NewChat(id, "acme")
	c.CreatedAt = BaseTime // the activity is the entries' (a second apart from BaseTime)
	mustCreateChat(t, s, c)
	if n > 0 {
		mustAppend(t, s, id, Entries(id, n)...)
	}
	return mustChat(t, s, id)
}

func digestStates(t *testing.T, s DigestStore, f annals.DigestStateFilter) []annals.DigestState {
	t.Helper()
	sts, err := s.FindDigestStates(t.Context(), f)
	if err != nil {
		t.Fatalf("FindDigestStates: %v", err)
	}
	return sts
}

func digestIDs(sts []annals.DigestState) []string {
	ids := make([]string, len(sts))
	for i, st := range sts {
		ids[i] = st.Chat.ID
	}
	return ids
}

func mustLease(t *testing.T, s DigestStore, c *annals.Chat, holder string, now time.Time) {
	t.Helper()
	ok, err := s.LeaseDigest(t.Context(), c.Ref(), holder, now, now.Add(time.Minute))
	if err != nil || !ok {
		t.Fatalf("LeaseDigest(%s, %s) = %v, %v; want taken", c.ID, holder, ok, err)
	}
}

func mustStoreDigest(t *testing.T, s DigestStore, c *annals.Chat, w annals.DigestWrite) *annals.Chat {
	t.Helper()
	got, err := s.StoreDigest(t.Context(), c.Ref(), w)
	if err != nil {
		t.Fatalf("StoreDigest(%s): %v", c.ID, err)
	}
	return got
}

func digestListsChanged(t *testing.T, s DigestStore) {
	digestChat(t, s, "empty", 0)
	a := digestChat(t, s, "a", 3)
	b := digestChat(t, s, "b", 2)
	sts := digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	if ids := digestIDs(sts); !slices.Equal(ids, []string{"a", "b"}) && !slices.Equal(ids, []string{"b", "a"}) {
		t.Fatalf("listed %v; want a and b (a chat without entries is never listed)", ids)
	}
	for _, st := range sts {
		if st.DigestedRevision != -1 || st.DigestedAt != nil || st.Failures != 0 || st.LeaseHolder != "" {
			t.Errorf("%s: a chat never digested has state %+v", st.Chat.ID, st)
		}
	}
	now := BaseTime.Add(time.Hour)
	mustLease(t, s, a, "w1", now)
	mustStoreDigest(t, s, a, annals.DigestWrite{Holder: "w1", Revision: 3, Summary: "a's digest", At: now})
	if ids := digestIDs(digestStates(t, s, annals.DigestStateFilter{Limit: 10})); !slices.Equal(ids, []string{"b"}) {
		t.Fatalf("after a's digest, listed %v; want only b (a's transcript is the digested one)", ids)
	}
	mustAppend(t, s, "a", Entries("a-more", 2)...)
	sts = digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	i := slices.IndexFunc(sts, func(st annals.DigestState) bool { return st.Chat.ID == "a" })
	if i < 0 || sts[i].DigestedRevision != 3 || sts[i].Chat.Totals.Entries != 5 || sts[i].DigestedAt == nil || !sts[i].DigestedAt.Equal(now) {
		t.Fatalf("after two more entries, a's state = %+v; want listed, digested at 3 of 5 at %v", sts, now)
	}
	// Paging: one at a time from the oldest activity, and ActiveSince.
	first := digestStates(t, s, annals.DigestStateFilter{Limit: 1})
	rest := digestStates(t, s, annals.DigestStateFilter{Limit: 10, AfterActivity: first[0].Chat.LastActivity, AfterID: first[0].Chat.ID})
	if len(first) != 1 || len(rest) != 1 || rest[0].Chat.ID == first[0].Chat.ID {
		t.Fatalf("pages %v then %v; want each chat once", digestIDs(first), digestIDs(rest))
	}
	// b's last entry is a second older than a's (Entries are a second apart).
	since := b.LastActivity.Add(time.Nanosecond)
	if ids := digestIDs(digestStates(t, s, annals.DigestStateFilter{Limit: 10, ActiveSince: &since})); !slices.Equal(ids, []string{"a"}) {
		t.Errorf("ActiveSince after b's activity listed %v; want a", ids)
	}
}

func digestLease(t *testing.T, s DigestStore) {
	c := digestChat(t, s, "c", 2)
	now := BaseTime.Add(time.Hour)
	mustLease(t, s, c, "w1", now)
	if ok, err := s.LeaseDigest(t.Context(), c.Ref(), "w2", now, now.Add(time.Minute)); err != nil || ok {
		t.Fatalf("a second holder's lease = %v, %v; want refused while w1 holds it", ok, err)
	}
	mustLease(t, s, c, "w1", now.Add(time.Second)) // the holder renews
	st := digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	if len(st) != 1 || st[0].LeaseHolder != "w1" || st[0].LeaseUntil == nil {
		t.Fatalf("state = %+v; want w1's lease", st)
	}
	// The holder renews its lease; no one else can.
	if ok, err := s.RenewDigest(t.Context(), c.Ref(), "w1", now.Add(90*time.Second)); err != nil || !ok {
		t.Fatalf("w1 renewing its lease: %v, %v; want renewed", ok, err)
	}
	if ok, err := s.RenewDigest(t.Context(), c.Ref(), "w2", now.Add(time.Hour)); err != nil || ok {
		t.Fatalf("w2 renewing w1's lease: %v, %v; want refused", ok, err)
	}
	if st := digestStates(t, s, annals.DigestStateFilter{Limit: 10}); len(st) != 1 || !st[0].LeaseUntil.Equal(now.Add(90*time.Second)) {
		t.Fatalf("state after renewals = %+v; want w1's lease until %v", st, now.Add(90*time.Second))
	}
	if ok, err := s.LeaseDigest(t.Context(), c.Ref(), "w2", now.Add(80*time.Second), now.Add(3*time.Minute)); err != nil || ok {
		t.Fatalf("w2 taking the renewed lease before its end: %v, %v; want refused", ok, err)
	}
	// w2 takes the expired lease; w1 can no longer renew it, and w1's digest lands nowhere.
	mustLease(t, s, c, "w2", now.Add(2*time.Minute))
	if ok, err := s.RenewDigest(t.Context(), c.Ref(), "w1", now.Add(time.Hour)); err != nil || ok {
		t.Fatalf("w1 renewing the lease w2 took: %v, %v; want refused", ok, err)
	}
	if _, err := s.StoreDigest(t.Context(), c.Ref(), annals.DigestWrite{Holder: "w1", Revision: 2, Summary: "late", At: now}); annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("the old holder's digest: %v; want conflict", err)
	}
	if got := mustChat(t, s, "c"); got.Summary != "" {
		t.Fatalf("a digest of a lost lease was stored: %q", got.Summary)
	}
	if err := s.ReleaseDigest(t.Context(), c.Ref(), "w2"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RenewDigest(t.Context(), c.Ref(), "w2", now.Add(time.Hour)); err != nil || ok {
		t.Fatalf("renewing a released lease: %v, %v; want refused (a free lease is taken, not renewed)", ok, err)
	}
	gone := c.Ref()
	gone.ID = "missing"
	if _, err := s.LeaseDigest(t.Context(), gone, "w1", now, now.Add(time.Minute)); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("lease of a missing chat: %v; want not_found", err)
	}
	if _, err := s.RenewDigest(t.Context(), gone, "w1", now.Add(time.Minute)); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("renewal of a missing chat's lease: %v; want not_found", err)
	}
}

func digestStaleRevision(t *testing.T, s DigestStore) {
	c := digestChat(t, s, "r", 4)
	now := BaseTime.Add(time.Hour)
	mustLease(t, s, c, "w1", now)
	mustAppend(t, s, "r", Entries("r-late", 1)...) // arrives while the digest is computed
	_, err := s.StoreDigest(t.Context(), c.Ref(), annals.DigestWrite{Holder: "w1", Revision: 4, Summary: "of four", Title: "t", At: now})
	if annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("a digest of 4 entries stored over 5: %v; want conflict", err)
	}
	got := mustChat(t, s, "r")
	if got.Summary != "" || got.Title != "" || got.SummaryUpdatedAt != nil {
		t.Fatalf("a stale digest left summary %q title %q", got.Summary, got.Title)
	}
	sts := digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	if len(sts) != 1 || sts[0].DigestedRevision != -1 || sts[0].LeaseHolder != "" {
		t.Fatalf("after a stale digest, state = %+v; want never digested, lease released", sts)
	}
	mustLease(t, s, got, "w2", now)
	stored := mustStoreDigest(t, s, got, annals.DigestWrite{Holder: "w2", Revision: 5, Summary: "of five", At: now})
	if stored.Summary != "of five" {
		t.Fatalf("summary = %q", stored.Summary)
	}
}

func digestTitles(t *testing.T, s DigestStore) {
	c := digestChat(t, s, "t", 2)
	now := BaseTime.Add(time.Hour)
	mustLease(t, s, c, "w", now)
	got := mustStoreDigest(t, s, c, annals.DigestWrite{Holder: "w", Revision: 2, Summary: "one", Title: "Generated one", At: now})
	if got.Title != "Generated one" || !got.TitleGenerated || got.Summary != "one" {
		t.Fatalf("first digest: title %q generated %v summary %q", got.Title, got.TitleGenerated, got.Summary)
	}
	if read := mustChat(t, s, "t"); !read.TitleGenerated {
		t.Fatal("the generated mark was not stored")
	}
	// A generated title is replaced by the next digest.
	mustAppend(t, s, "t", Entries("t-2", 1)...)
	c = mustChat(t, s, "t")
	mustLease(t, s, c, "w", now)
	if got = mustStoreDigest(t, s, c, annals.DigestWrite{Holder: "w", Revision: 3, Summary: "two", Title: "Generated two", At: now}); got.Title != "Generated two" || !got.TitleGenerated {
		t.Fatalf("second digest: title %q generated %v", got.Title, got.TitleGenerated)
	}
	// A person renames it while the next digest is computed: the rename wins.
	mustAppend(t, s, "t", Entries("t-3", 1)...)
	c = mustChat(t, s, "t")
	mustLease(t, s, c, "w", now)
	renamed := mustUpdate(t, s, "t", annals.ChatUpdate{Title: ptr("Dana's title")})
	if renamed.TitleGenerated {
		t.Fatal("a rename kept the generated mark")
	}
	got = mustStoreDigest(t, s, renamed, annals.DigestWrite{Holder: "w", Revision: 4, Summary: "three", Title: "Generated three", At: now})
	if got.Title != "Dana's title" || got.TitleGenerated || got.Summary != "three" {
		t.Fatalf("after a rename: title %q generated %v summary %q; want the person's title, the new summary", got.Title, got.TitleGenerated, got.Summary)
	}
	// A chat created with a title (a producer's or a person's) keeps it.
	titled := NewChat("titled", "acme")
	titled.Title = "Given"
	mustCreateChat(t, s, titled)
	mustAppend(t, s, "titled", Entries("titled", 1)...)
	tc := mustChat(t, s, "titled")
	mustLease(t, s, tc, "w", now)
	if got := mustStoreDigest(t, s, tc, annals.DigestWrite{Holder: "w", Revision: 1, Summary: "s", Title: "Other", At: now}); got.Title != "Given" || got.TitleGenerated {
		t.Fatalf("a given title became %q (generated %v)", got.Title, got.TitleGenerated)
	}
}

func digestFailure(t *testing.T, s DigestStore) {
	c := digestChat(t, s, "f", 2)
	now := BaseTime.Add(time.Hour)
	before := mustUpdate(t, s, "f", annals.ChatUpdate{Summary: ptr("earlier summary")})
	mustLease(t, s, c, "w", now)
	retry := now.Add(4 * time.Minute)
	if err := s.FailDigest(t.Context(), before.Ref(), annals.DigestFailure{Holder: "w", Failures: 3, RetryAt: retry}); err != nil {
		t.Fatal(err)
	}
	sts := digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	if len(sts) != 1 || sts[0].Failures != 3 || sts[0].RetryAt == nil || !sts[0].RetryAt.Equal(retry) || sts[0].LeaseHolder != "" {
		t.Fatalf("state after a failure = %+v; want 3 failures, retry at %v, lease released", sts, retry)
	}
	if got := mustChat(t, s, "f"); got.Summary != "earlier summary" {
		t.Fatalf("a failure changed the summary to %q", got.Summary)
	}
	mustLease(t, s, c, "w", now)
	mustStoreDigest(t, s, c, annals.DigestWrite{Holder: "w", Revision: 2, Summary: "new", At: now})
	mustAppend(t, s, "f", Entries("f-2", 1)...)
	sts = digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	if len(sts) != 1 || sts[0].Failures != 0 || sts[0].RetryAt != nil {
		t.Fatalf("a stored digest did not reset the failures: %+v", sts)
	}
}

func digestSchedule(t *testing.T, s DigestStore) {
	if at, err := s.DigestScheduleRun(t.Context()); err != nil || !at.IsZero() {
		t.Fatalf("a fresh store's last scheduled run = %v, %v; want zero", at, err)
	}
	for _, at := range []time.Time{BaseTime, BaseTime.Add(24 * time.Hour)} {
		if err := s.RecordDigestScheduleRun(t.Context(), at); err != nil {
			t.Fatal(err)
		}
		if got, err := s.DigestScheduleRun(t.Context()); err != nil || !got.Equal(at) {
			t.Fatalf("last scheduled run = %v, %v; want %v", got, err, at)
		}
	}
}

// digestMarked: a recap made outside the worker records the revision it summarised, so the
// chat is no longer listed until it changes; failures are reset and a lease left alone.
func digestMarked(t *testing.T, s DigestStore) {
	c := digestChat(t, s, "m", 3)
	now := BaseTime.Add(time.Hour)
	mustLease(t, s, c, "w", now)
	if err := s.FailDigest(t.Context(), c.Ref(), annals.DigestFailure{Holder: "w", Failures: 2, RetryAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	mustLease(t, s, c, "w2", now)
	if err := s.MarkDigested(t.Context(), c.Ref(), 3, now); err != nil {
		t.Fatal(err)
	}
	if ids := digestIDs(digestStates(t, s, annals.DigestStateFilter{Limit: 10})); len(ids) != 0 {
		t.Fatalf("after a recap of its transcript, listed %v; want none", ids)
	}
	mustAppend(t, s, "m", Entries("m-more", 1)...)
	sts := digestStates(t, s, annals.DigestStateFilter{Limit: 10})
	if len(sts) != 1 || sts[0].DigestedRevision != 3 || sts[0].DigestedAt == nil || !sts[0].DigestedAt.Equal(now) ||
		sts[0].Failures != 0 || sts[0].RetryAt != nil || sts[0].LeaseHolder != "w2" {
		t.Fatalf("state = %+v; want digested at 3 at %v, failures reset, w2's lease kept", sts, now)
	}
	gone := c.Ref()
	gone.ID = "missing"
	if err := s.MarkDigested(t.Context(), gone, 1, now); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("MarkDigested of a missing chat: %v; want not_found", err)
	}
}

// digestRewindRevision: a rewind followed by as many new entries leaves the entry count as it
// was, but not the transcript: the revision moved on, so a digest computed before is not stored,
// and the chat is listed again.
func digestRewindRevision(t *testing.T, s DigestStore) {
	c := digestChat(t, s, "w", 3)
	now := BaseTime.Add(time.Hour)
	mustLease(t, s, c, "w1", now)
	if _, err := annals.TruncateChat(t.Context(), s, "w", annals.TruncatePoint{Seq: 3}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "w", Entries("w-new", 1)...)
	after := mustChat(t, s, "w")
	if after.Totals.Entries != c.Totals.Entries || after.Revision <= c.Revision {
		t.Fatalf("entries %d -> %d, revision %d -> %d; want the same count and a later revision",
			c.Totals.Entries, after.Totals.Entries, c.Revision, after.Revision)
	}
	_, err := s.StoreDigest(t.Context(), c.Ref(), annals.DigestWrite{Holder: "w1", Revision: c.Revision, Summary: "of the old three", At: now})
	if annals.ErrorCode(err) != annals.ECONFLICT {
		t.Fatalf("a digest of the transcript before the rewind stored over the new one: %v; want conflict", err)
	}
	if got := mustChat(t, s, "w"); got.Summary != "" {
		t.Fatalf("a stale digest was stored: %q", got.Summary)
	}
	mustLease(t, s, after, "w1", now)
	mustStoreDigest(t, s, after, annals.DigestWrite{Holder: "w1", Revision: after.Revision, Summary: "of the new three", At: now})
	if ids := digestIDs(digestStates(t, s, annals.DigestStateFilter{Limit: 10})); len(ids) != 0 {
		t.Fatalf("after the digest of the new transcript, listed %v; want none", ids)
	}
	if _, err := annals.TruncateChat(t.Context(), s, "w", annals.TruncatePoint{Seq: 3}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "w", Entries("w-newer", 1)...)
	if ids := digestIDs(digestStates(t, s, annals.DigestStateFilter{Limit: 10})); len(ids) != 1 {
		t.Fatalf("after another rewind and a new entry, listed %v; want w", ids)
	}
}
