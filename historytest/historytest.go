// Package historytest is the suite of history-operation and security tests, written against the
// Store contract so that every backend runs the same checks: the SQLite store's tests run it
// today, the PostgreSQL store's tests will run it unchanged.
package historytest

import (
	"context"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/summarize"
)

// Opener returns a fresh empty store and registers its cleanup on tb.
type Opener func(tb testing.TB) annals.Store

// Run runs every history test against stores from open.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"SecurityInvariants", testSecurityInvariants},
		{"CrossTenantRaces", testCrossTenantRaces},
		{"CaptureChecksEveryOp", testCaptureChecksEveryOp},
		{"CaptureOwnership", testCaptureOwnership},
		{"SnippetsEscapeForTheirMarks", testSnippetsEscapeForTheirMarks},
		{"FilterTimesAreBounded", testFilterTimesAreBounded},
		{"SmallerFindings", testSmallerFindings},
		{"ScopeAliasesNeverBypassTheGate", testScopeAliasesNeverBypassTheGate},
		{"ReviewFixes", testReviewFixes},
		{"List", testList},
		{"Search", testSearch},
		{"SearchLanguage", testSearchLanguage},
		{"SearchRanking", testSearchRanking},
		{"SearchSnippets", testSearchSnippets},
		{"SearchFollowsWrites", testSearchFollowsWrites},
		{"SearchPaging", testSearchPaging},
		{"TotalLowerBound", testTotalLowerBound},
		{"SearchScoresNeverLeakOtherTenants", testSearchScoresNeverLeakOtherTenants},
		{"ShortPrefixExpandsToTheMostFrequentWords", testShortPrefixExpandsToTheMostFrequentWords},
		{"PrefixWithinTheCapIsExact", testPrefixWithinTheCapIsExact},
		{"PrefixNeverExpandsToOwnerTokens", testPrefixNeverExpandsToOwnerTokens},
		{"ExplainNeverShowsOtherTenantsWords", testExplainNeverShowsOtherTenantsWords},
		{"Get", testGet},
		{"Curate", testCurate},
		{"Recap", testRecap},
		{"Related", testRelated},
		{"LearnedModelPerTenant", testLearnedModelPerTenant},
		{"MeaningRanksWithFilters", testMeaningRanksWithFilters},
		{"MeaningOwnerFold", testMeaningOwnerFold},
		{"Resume", testResume},
		{"Delete", testDelete},
		{"Redaction", testRedaction},
		{"TagsAreRedacted", testTagsAreRedacted},
		{"PlaceholdersAreNotWords", testPlaceholdersAreNotWords},
		{"ChatIDsAsPeopleHaveThem", testChatIDsAsPeopleHaveThem},
		{"ExactChatID", testExactChatID},
		{"ResumedSessionFoundByItsEarlierID", testResumedSessionFoundByItsEarlierID},
		{"Envelope", testEnvelope},
		{"QueryView", testQueryView},
		{"ViewService", testViewService},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// env is one service over one store, with helpers to act as different principals.
type env struct {
	t     *testing.T
	store annals.Store
	svc   service
	sum   *countingSummarizer
	emb   annals.Embedder
}

func newEnv(t *testing.T, open Opener) *env {
	t.Helper()
	store := open(t)
	emb, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	sum := &countingSummarizer{inner: newSummarizer()}
	svc := newService(history.Config{Store: store, Summarizer: sum, Embedder: emb})
	return &env{t: t, store: store, svc: svc, sum: sum, emb: emb}
}

// as returns a context carrying the principal.
func as(p *annals.Principal) context.Context {
	return annals.NewContextWithPrincipal(context.Background(), p)
}

// Principals used across the suite. Tenant A has users ua1, ua2 and agents aa1, aa2; tenant B is
// the other tenant that must never be reached.
func member(tenant, user, agent string, scopes ...annals.Scope) *annals.Principal {
	return &annals.Principal{TenantID: tenant, UserID: user, AgentID: agent, Role: annals.RoleMember, Scopes: scopes}
}

func admin(scopes ...annals.Scope) *annals.Principal {
	return &annals.Principal{TenantID: "A", UserID: "root", Role: annals.RoleAdmin, Scopes: scopes}
}

var allScopes = []annals.Scope{annals.ScopeSelf, annals.ScopeUser, annals.ScopeTenant, annals.ScopeGlobal}

var base = time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)

// chat creates a chat with some entries; minutes orders last activity.
func (e *env) chat(id, tenant, user, agent string, minutes int, title string, texts ...string) *annals.Chat {
	e.t.Helper()
	ctx := context.Background()
	c := &annals.Chat{ID: id, TenantID: tenant, UserID: user, AgentID: agent, Title: title, CreatedAt: base.Add(time.Duration(minutes) * time.Minute)}
	if _, err := annals.CreateChat(ctx, e.store, c); err != nil {
		e.t.Fatalf("create %s: %v", id, err)
	}
	var entries []*annals.Entry
	for i, txt := range texts {
		kind := annals.KindUser
		if i%2 == 1 {
			kind = annals.KindAssistant
		}
		entries = append(entries, &annals.Entry{ID: id + "-e" + itoa(i+1), Kind: kind, Text: txt, Time: c.CreatedAt.Add(time.Duration(i) * time.Second)})
	}
	if len(entries) > 0 {
		if _, err := annals.AppendEntries(ctx, e.store, id, entries); err != nil {
			e.t.Fatalf("append %s: %v", id, err)
		}
	}
	got, err := e.store.FindChatByID(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// countingSummarizer counts calls so tests can prove recap never summarised a chat it refused.
type countingSummarizer struct {
	inner annals.Summarizer
	calls int
	ids   []string
}

func (c *countingSummarizer) Summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	c.calls++
	c.ids = append(c.ids, chat.ID)
	return c.inner.Summarize(ctx, chat, entries)
}

func ids(chats []*annals.Chat) []string {
	out := make([]string, len(chats))
	for i, c := range chats {
		out[i] = c.ID
	}
	return out
}

func hitIDs(hits []annals.ChatHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Chat.ID
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := annals.ErrorCode(err); got != code {
		t.Fatalf("%s: code = %q (%v), want %q", what, got, err, code)
	}
}

// newSummarizer is the summarizer the suite recaps with: the real offline one.
func newSummarizer() annals.Summarizer { return summarize.Extractive{} }
