package history_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/summarize"
)

var digestT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ptrTime(t time.Time) *time.Time { return &t }

// rewound is c at a transcript revision other than its entry count (entries were rewound).
func rewound(c *annals.Chat, revision int64) *annals.Chat {
	c.Revision = revision
	return c
}

// TestDigestPolicyDue is the due / not-due table: each condition on its own, and each reason a
// chat is not due.
func TestDigestPolicyDue(t *testing.T) {
	p := history.DigestPolicy{Idle: 10 * time.Minute, MinNewEntries: 8, Stale: 12 * time.Hour}
	now := digestT0
	chat := func(entries int64, quiet time.Duration) *annals.Chat {
		return &annals.Chat{ID: "c", Totals: annals.Totals{Entries: entries}, Revision: entries, LastActivity: now.Add(-quiet)}
	}
	for _, tc := range []struct {
		name   string
		st     annals.DigestState
		reason string
		due    bool
	}{
		{"never digested, idle", annals.DigestState{Chat: chat(3, 11*time.Minute), DigestedRevision: -1}, history.DueIdle, true},
		{"never digested, idle exactly", annals.DigestState{Chat: chat(3, 10*time.Minute), DigestedRevision: -1}, history.DueIdle, true},
		{"never digested, still active", annals.DigestState{Chat: chat(3, 9*time.Minute), DigestedRevision: -1}, history.DueIdle, false},
		{"no entries", annals.DigestState{Chat: chat(0, time.Hour), DigestedRevision: -1}, "", false},
		{"8 new entries, active", annals.DigestState{Chat: chat(18, 0), DigestedRevision: 10, DigestedAt: ptrTime(now.Add(-time.Minute))}, history.DueNewEntries, true},
		{"7 new entries, fresh digest", annals.DigestState{Chat: chat(17, time.Hour), DigestedRevision: 10, DigestedAt: ptrTime(now.Add(-time.Hour))}, "", false},
		{"rewind of 8", annals.DigestState{Chat: rewound(chat(2, 0), 18), DigestedRevision: 10, DigestedAt: ptrTime(now)}, history.DueNewEntries, true},
		{"rewind of 4 and 4 new, same count", annals.DigestState{Chat: rewound(chat(10, 0), 18), DigestedRevision: 10, DigestedAt: ptrTime(now)}, history.DueNewEntries, true},
		{"1 new entry, stale digest", annals.DigestState{Chat: chat(11, 0), DigestedRevision: 10, DigestedAt: ptrTime(now.Add(-12 * time.Hour))}, history.DueStale, true},
		{"unchanged, old digest", annals.DigestState{Chat: chat(10, 48*time.Hour), DigestedRevision: 10, DigestedAt: ptrTime(now.Add(-48 * time.Hour))}, "", false},
		{"backing off", annals.DigestState{Chat: chat(3, time.Hour), DigestedRevision: -1, Failures: 2, RetryAt: ptrTime(now.Add(time.Second))}, "", false},
		{"backoff over", annals.DigestState{Chat: chat(3, time.Hour), DigestedRevision: -1, Failures: 2, RetryAt: ptrTime(now)}, history.DueIdle, true},
		{"leased elsewhere", annals.DigestState{Chat: chat(3, time.Hour), DigestedRevision: -1, LeaseHolder: "w2", LeaseUntil: ptrTime(now.Add(time.Minute))}, "", false},
		{"lease expired", annals.DigestState{Chat: chat(3, time.Hour), DigestedRevision: -1, LeaseHolder: "w2", LeaseUntil: ptrTime(now)}, history.DueIdle, true},
	} {
		reason, due := p.Due(tc.st, now)
		if due != tc.due || (due && reason != tc.reason) {
			t.Errorf("%s: Due = %q, %v; want %q, %v", tc.name, reason, due, tc.reason, tc.due)
		}
	}
	if _, due := (history.DigestPolicy{}).Due(annals.DigestState{Chat: chat(3, 10*time.Minute), DigestedRevision: -1}, now); !due {
		t.Error("the default idle time is not 10 minutes")
	}
	if _, due := (history.DigestPolicy{}).Due(annals.DigestState{Chat: chat(17, 0), DigestedRevision: 9, DigestedAt: ptrTime(now)}, now); !due {
		t.Error("the default new-entry count is not 8")
	}
}

// TestDigestBackoffDoublesAndIsCapped: 1, 2, 4, 8 minutes, then the cap, however many failures.
func TestDigestBackoffDoublesAndIsCapped(t *testing.T) {
	p := history.DigestPolicy{Backoff: time.Minute, MaxBackoff: 10 * time.Minute}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	for i, w := range want {
		if got := p.BackoffAfter(i + 1); got != w {
			t.Errorf("after %d failures: %v, want %v", i+1, got, w)
		}
	}
	if got := p.BackoffAfter(1000); got != 10*time.Minute {
		t.Errorf("after 1000 failures: %v, want the cap", got)
	}
}

// scriptedSummarizer answers with a fixed summary, fails while failing is set, and runs during
// (if set) inside each call, before answering.
type scriptedSummarizer struct {
	mu      sync.Mutex
	calls   map[string]int
	failing bool
	during  func(chat *annals.Chat)
}

func (s *scriptedSummarizer) Summarize(_ context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[chat.ID]++
	failing, during := s.failing, s.during
	s.mu.Unlock()
	if during != nil {
		during(chat)
	}
	if failing {
		return "", annals.Errorf(annals.EUNAVAILABLE, "the provider is down")
	}
	return fmt.Sprintf("**Goal:** settle %s. Then more.\n\n%d entries", chat.ID, len(entries)), nil
}

func (s *scriptedSummarizer) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

type digestFixture struct {
	store annals.Store
	svc   *history.Service
	sum   *scriptedSummarizer
	now   *time.Time
}

func newDigestFixture(t *testing.T) *digestFixture {
	f := &digestFixture{store: openSQLite(t), sum: &scriptedSummarizer{}, now: ptrTime(digestT0)}
	f.svc = history.New(history.Config{Store: f.store.(history.Store), Summarizer: f.sum, Now: func() time.Time { return *f.now }})
	return f
}

// chat creates id with n entries whose last one is at last.
func (f *digestFixture) chat(t *testing.T, id, title string, n int, last time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, f.store, &annals.Chat{ID: id, TenantID: "T", UserID: "u", Title: title, CreatedAt: last.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	f.add(t, id, "e", n, last)
}

func (f *digestFixture) add(t *testing.T, id, prefix string, n int, last time.Time) {
	t.Helper()
	es := make([]*annals.Entry, n)
	for i := range es {
		es[i] = &annals.Entry{ID: fmt.Sprintf("%s-%d", prefix, i), Kind: annals.KindUser, Text: "please look at " + id, Time: last.Add(time.Duration(i-n+1) * time.Second)}
	}
	if _, err := annals.AppendEntries(context.Background(), f.store, id, es); err != nil {
		t.Fatal(err)
	}
}

func (f *digestFixture) get(t *testing.T, id string) *annals.Chat {
	t.Helper()
	c, err := f.store.FindChatByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *digestFixture) pass(t *testing.T) history.DigestProgress {
	t.Helper()
	p, err := f.svc.DigestDue(context.Background(), "w1", history.DigestPolicy{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDigestDueDigestsIdleChatsAndTitlesThem: the idle chat is digested and given a generated
// title; the active one is not yet; a chat with a person's title keeps it; a second pass
// finds nothing to do; eight more entries make it due again.
func TestDigestDueDigestsIdleChatsAndTitlesThem(t *testing.T) {
	f := newDigestFixture(t)
	f.chat(t, "idle", "", 2, digestT0.Add(-time.Hour))
	f.chat(t, "busy", "", 2, digestT0.Add(-time.Minute))
	f.chat(t, "named", "Dana's chat", 2, digestT0.Add(-time.Hour))
	p := f.pass(t)
	if p.Digested != 2 || p.Titled != 1 || p.Failed != 0 {
		t.Fatalf("pass = %+v; want idle and named digested, one title", p)
	}
	idle := f.get(t, "idle")
	if idle.Title != "settle idle." || !idle.TitleGenerated || idle.Summary == "" {
		t.Fatalf("idle: title %q (generated %v), summary %q", idle.Title, idle.TitleGenerated, idle.Summary)
	}
	if named := f.get(t, "named"); named.Title != "Dana's chat" || named.TitleGenerated || named.Summary == "" {
		t.Fatalf("named: title %q (generated %v), summary %q; want the person's title kept", named.Title, named.TitleGenerated, named.Summary)
	}
	if busy := f.get(t, "busy"); busy.Summary != "" {
		t.Fatalf("a chat active a minute ago was digested: %q", busy.Summary)
	}
	if p := f.pass(t); p.Digested != 0 {
		t.Fatalf("a second pass digested %d chats; want none", p.Digested)
	}
	f.add(t, "idle", "more", 8, digestT0)
	if p := f.pass(t); p.Digested != 1 || f.sum.count("idle") != 2 {
		t.Fatalf("after 8 new entries: %+v, %d calls; want idle digested again", p, f.sum.count("idle"))
	}
}

// TestDigestFailureBacksOffAndLeavesTheSummary: a failing summarizer leaves the earlier summary
// and title untouched, the chat is not retried before its backoff, and is after it.
func TestDigestFailureBacksOffAndLeavesTheSummary(t *testing.T) {
	f := newDigestFixture(t)
	f.chat(t, "c", "", 2, digestT0.Add(-time.Hour))
	f.pass(t)
	before := f.get(t, "c")
	f.add(t, "c", "more", 8, digestT0)
	f.sum.failing = true
	if p := f.pass(t); p.Failed != 1 || p.Digested != 0 {
		t.Fatalf("failing pass = %+v", p)
	}
	after := f.get(t, "c")
	if after.Summary != before.Summary || after.Title != before.Title || !after.SummaryUpdatedAt.Equal(*before.SummaryUpdatedAt) {
		t.Fatalf("a failed digest changed the chat: %q -> %q", before.Summary, after.Summary)
	}
	f.pass(t) // within the first backoff (1 minute): not tried
	if n := f.sum.count("c"); n != 2 {
		t.Fatalf("%d calls; want the chat left alone during its backoff", n)
	}
	*f.now = digestT0.Add(time.Minute)
	f.pass(t) // second failure: the wait doubles
	*f.now = digestT0.Add(2*time.Minute + time.Second)
	f.pass(t)
	if n := f.sum.count("c"); n != 3 {
		t.Fatalf("%d calls; want 3 (the second backoff is two minutes)", n)
	}
	f.sum.failing = false
	*f.now = digestT0.Add(4 * time.Minute)
	if p := f.pass(t); p.Digested != 1 {
		t.Fatalf("after the backoff with the provider back: %+v", p)
	}
}

// TestDigestComputedBeforeNewEntriesIsNotStored: entries appended while the summary is computed
// make the digest stale; it is not stored, and the next pass digests the new transcript.
func TestDigestComputedBeforeNewEntriesIsNotStored(t *testing.T) {
	f := newDigestFixture(t)
	f.chat(t, "c", "", 2, digestT0.Add(-time.Hour))
	once := sync.Once{}
	f.sum.during = func(*annals.Chat) {
		once.Do(func() { f.add(t, "c", "late", 1, digestT0.Add(-time.Hour)) })
	}
	if p := f.pass(t); p.Changed != 1 || p.Digested != 0 {
		t.Fatalf("pass = %+v; want the digest refused as changed", p)
	}
	if c := f.get(t, "c"); c.Summary != "" || c.Title != "" {
		t.Fatalf("a stale digest was stored: %q / %q", c.Summary, c.Title)
	}
	if p := f.pass(t); p.Digested != 1 {
		t.Fatalf("next pass = %+v; want it digested", p)
	}
	if c := f.get(t, "c"); c.Summary != "**Goal:** settle c. Then more.\n\n3 entries" {
		t.Fatalf("summary = %q; want the one of 3 entries", c.Summary)
	}
}

// TestDigestSinceRefreshesRecentlyActiveChats: only chats active since the time, whatever the
// thresholds.
func TestDigestSinceRefreshesRecentlyActiveChats(t *testing.T) {
	f := newDigestFixture(t)
	f.chat(t, "old", "", 2, digestT0.Add(-48*time.Hour))
	f.chat(t, "recent", "", 2, digestT0.Add(-time.Minute))
	p, err := f.svc.DigestSince(context.Background(), "w1", digestT0.Add(-24*time.Hour), history.DigestPolicy{}, nil)
	if err != nil || p.Digested != 1 {
		t.Fatalf("DigestSince = %+v, %v", p, err)
	}
	if f.get(t, "recent").Summary == "" || f.get(t, "old").Summary != "" {
		t.Fatal("want only the recent chat refreshed")
	}
}

// TestDigestWithoutSummarizerSaysHowToConfigure.
func TestDigestWithoutSummarizerSaysHowToConfigure(t *testing.T) {
	svc := history.New(history.Config{Store: openSQLite(t).(history.Store)})
	_, err := svc.DigestDue(context.Background(), "w", history.DigestPolicy{}, nil)
	if annals.ErrorCode(err) != annals.EUNAVAILABLE {
		t.Fatalf("err = %v; want unavailable", err)
	}
}

// TestDigestTitleFromTheExtractiveSummary: the offline summarizer's goal becomes the title.
func TestDigestTitleFromTheExtractiveSummary(t *testing.T) {
	f := newDigestFixture(t)
	f.svc = history.New(history.Config{Store: f.store.(history.Store), Summarizer: summarize.Extractive{}, Now: func() time.Time { return *f.now }})
	f.chat(t, "c", "", 0, digestT0)
	if _, err := annals.AppendEntries(context.Background(), f.store, "c", []*annals.Entry{
		{ID: "u1", Kind: annals.KindUser, Text: "Fix the flaky login test in CI. It fails one run in ten.", Time: digestT0.Add(-time.Hour)},
		{ID: "a1", Kind: annals.KindAssistant, Text: "The root cause is a shared clock; I'll use a fake clock.", Time: digestT0.Add(-time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	f.pass(t)
	if c := f.get(t, "c"); c.Title != "Fix the flaky login test in CI." || !c.TitleGenerated {
		t.Fatalf("title = %q (generated %v)", c.Title, c.TitleGenerated)
	}
}

// titledSummarizer is a model-like summarizer that writes its own title.
type titledSummarizer struct{ title string }

func (s titledSummarizer) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	out, _, err := s.SummarizeTitled(ctx, chat, entries)
	return out.Summary, err
}

func (s titledSummarizer) SummarizeMetered(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, annals.SummaryUsage, error) {
	out, u, err := s.SummarizeTitled(ctx, chat, entries)
	return out.Summary, u, err
}

func (s titledSummarizer) SummarizeTitled(context.Context, *annals.Chat, []*annals.Entry) (annals.TitledSummary, annals.SummaryUsage, error) {
	return annals.TitledSummary{Title: s.title, Summary: "**Goal:** not this one"}, annals.SummaryUsage{}, nil
}

// TestDigestTakesTheModelsTitle: a summarizer that titles the chat in the same call gives the
// generated title (on one line, without emphasis); a chat with a person's title keeps it.
func TestDigestTakesTheModelsTitle(t *testing.T) {
	f := newDigestFixture(t)
	f.svc = history.New(history.Config{Store: f.store.(history.Store), Summarizer: titledSummarizer{title: "**Flaky login\ntest**"}, Now: func() time.Time { return *f.now }})
	f.chat(t, "c", "", 2, digestT0.Add(-time.Hour))
	f.chat(t, "named", "Mine", 2, digestT0.Add(-time.Hour))
	f.pass(t)
	if c := f.get(t, "c"); c.Title != "Flaky login test" || !c.TitleGenerated {
		t.Fatalf("title = %q (generated %v); want the model's", c.Title, c.TitleGenerated)
	}
	if c := f.get(t, "named"); c.Title != "Mine" || c.Summary == "" {
		t.Fatalf("named = %q / %q", c.Title, c.Summary)
	}
}

// deletingSummarizer deletes the chat it is asked to summarise, then waits for its call to be
// cancelled (the digest's lease renewal finding the chat gone), as a provider call in flight
// when a person deletes the chat.
type deletingSummarizer struct{ store annals.Store }

func (s deletingSummarizer) Summarize(ctx context.Context, chat *annals.Chat, _ []*annals.Entry) (string, error) {
	if err := s.store.DeleteChat(context.WithoutCancel(ctx), chat.Ref()); err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(30 * time.Second):
		return "", annals.Errorf(annals.EUNAVAILABLE, "the digest was not cancelled when its chat went")
	}
}

// TestDigestOfAChatDeletedMidDigestIsSkipped: a chat deleted while its digest is computed is
// skipped — not counted busy (no other worker holds it), not failed, nothing stored.
func TestDigestOfAChatDeletedMidDigestIsSkipped(t *testing.T) {
	f := newDigestFixture(t)
	f.chat(t, "gone", "", 2, digestT0.Add(-time.Hour))
	svc := history.New(history.Config{Store: f.store.(history.Store), Summarizer: deletingSummarizer{f.store}, Now: func() time.Time { return *f.now }})
	p, err := svc.DigestDue(t.Context(), "w1", history.DigestPolicy{Lease: 30 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p != (history.DigestProgress{Checked: 1}) {
		t.Errorf("pass = %+v; want the deleted chat checked and skipped", p)
	}
	if _, err := f.store.FindChatByID(t.Context(), "gone"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("the chat after its deletion: %v", err)
	}
}
