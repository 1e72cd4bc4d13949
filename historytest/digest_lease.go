package historytest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/summarize"
)

// DigestStores returns two stores over one fresh database (two servers sharing it) that keep
// the digest state (annals.DigestStore), and registers their cleanup on tb.
type DigestStores func(tb testing.TB) (history.Store, history.Store)

// RunDigestLease runs the digest lease's tests with two workers on one database, through a
// slow model provider (a real HTTP server speaking OpenAI's chat completions): a digest whose
// provider call outlives its lease keeps the chat (the provider is asked once, the digest
// stored once), and a worker that stops mid-digest (crashed) loses the chat when its lease
// expires.
func RunDigestLease(t *testing.T, open DigestStores) {
	t.Run("RenewedWhileTheProviderIsSlow", func(t *testing.T) { testDigestLeaseRenewed(t, open) })
	t.Run("CrashedWorkersLeaseExpires", func(t *testing.T) { testDigestLeaseCrashed(t, open) })
	t.Run("LostLeaseEndsTheCall", func(t *testing.T) { testDigestLeaseLost(t, open) })
}

// slowProvider speaks OpenAI's chat completions and holds every answer about a chat until that
// chat is released (or the caller gives up); it counts the requests per chat.
type slowProvider struct {
	mu       sync.Mutex
	calls    map[string]int
	arrived  map[string]chan struct{}
	released map[string]chan struct{}
}

func newSlowProvider(t *testing.T, chats ...string) (*slowProvider, *httptest.Server) {
	p := &slowProvider{calls: map[string]int{}, arrived: map[string]chan struct{}{}, released: map[string]chan struct{}{}}
	for _, id := range chats {
		p.arrived[id], p.released[id] = make(chan struct{}), make(chan struct{})
	}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	return p, srv
}

func (p *slowProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	chat := ""
	p.mu.Lock()
	for id := range p.arrived {
		if strings.Contains(string(body), "words of "+id) {
			chat = id
		}
	}
	if chat == "" {
		p.mu.Unlock()
		http.Error(w, `{"error":{"message":"unknown chat"}}`, http.StatusBadRequest)
		return
	}
	p.calls[chat]++
	if p.calls[chat] == 1 {
		close(p.arrived[chat])
	}
	released := p.released[chat]
	p.mu.Unlock()
	select {
	case <-released:
	case <-r.Context().Done():
		return
	}
	content, _ := json.Marshal(map[string]string{"title": "Digest of " + chat, "summary": "**Goal:** the summary of " + chat})
	answer, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": string(content)}}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(answer)
}

func (p *slowProvider) callsOf(chat string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[chat]
}

// digestWorker is a history service over store whose summarizer is the provider at url.
func digestWorker(t *testing.T, store history.Store, url string, now func() time.Time) *history.Service {
	sum, err := summarize.NewOpenAI(summarize.OpenAIConfig{BaseURL: url + "/v1", Model: "slow-model", Retrying: summarize.Retrying{Retries: -1}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return history.New(history.Config{Store: store, Summarizer: sum, Now: now})
}

// idleChat creates a chat with one user message an hour old: due for its first digest.
func idleChat(t *testing.T, store history.Store, id string) {
	ctx := context.Background()
	past := time.Now().Add(-time.Hour).UTC()
	if _, err := annals.CreateChat(ctx, store, &annals.Chat{ID: id, TenantID: "T", CreatedAt: past}); err != nil {
		t.Fatal(err)
	}
	if _, err := annals.AppendEntries(ctx, store, id, []*annals.Entry{{ID: "e1", Kind: annals.KindUser, Text: "the words of " + id, Time: past}}); err != nil {
		t.Fatal(err)
	}
}

func digestStateOf(t *testing.T, store history.Store, id string) annals.DigestState {
	t.Helper()
	sts, err := store.(annals.DigestStore).FindDigestStates(context.Background(), annals.DigestStateFilter{ChatID: id, Limit: 1})
	if err != nil || len(sts) != 1 {
		t.Fatalf("digest state of %s: %v, %d states", id, err, len(sts))
	}
	return sts[0]
}

// testDigestLeaseRenewed: worker A's provider call lasts three leases while worker B passes
// again and again; A renews its lease, so B never takes the chat, the provider is asked once
// and the digest stored once, A's.
func testDigestLeaseRenewed(t *testing.T, open DigestStores) {
	a, b := open(t)
	idleChat(t, a, "slow")
	prov, srv := newSlowProvider(t, "slow")
	policy := history.DigestPolicy{Lease: time.Second}
	ctx := context.Background()
	var progA history.DigestProgress
	var errA error
	doneA := make(chan struct{})
	go func() {
		defer close(doneA)
		progA, errA = digestWorker(t, a, srv.URL, nil).DigestDue(ctx, "worker-a", policy, nil)
	}()
	<-prov.arrived["slow"]

	// B passes every 50 ms while A waits three leases on the provider. Without renewal, A's
	// lease expires after one and B takes the chat (asking the provider a second time).
	svcB := digestWorker(t, b, srv.URL, nil)
	var progB history.DigestProgress
	stopB, doneB := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(doneB)
		for {
			p, err := svcB.DigestDue(ctx, "worker-b", policy, nil)
			if err != nil {
				t.Errorf("worker B: %v", err)
			}
			progB.Digested += p.Digested
			progB.Changed += p.Changed
			select {
			case <-stopB:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	time.Sleep(3 * policy.Lease)
	close(prov.released["slow"])
	<-doneA
	close(stopB)
	<-doneB

	if errA != nil {
		t.Fatalf("worker A: %v", errA)
	}
	if n := prov.callsOf("slow"); n != 1 {
		t.Errorf("the provider was asked %d times for one chat; want once (A's lease kept it)", n)
	}
	if progA.Digested != 1 || progA.Changed != 0 || progB.Digested != 0 || progB.Changed != 0 {
		t.Errorf("A %+v, B %+v; want the one digest stored by A, none by B", progA, progB)
	}
	chat, err := b.FindChatByID(ctx, "slow")
	if err != nil || chat.Summary != "**Goal:** the summary of slow" || chat.Title != "Digest of slow" || !chat.TitleGenerated {
		t.Fatalf("slow: %v, summary %q, title %q (generated %v); want A's digest", err, chat.Summary, chat.Title, chat.TitleGenerated)
	}
}

// testDigestLeaseCrashed: worker C stops (its context ends, as in a crash) while the provider
// holds its call; its lease stays until it expires: B passing now leaves the chat alone, B
// passing after the lease's end digests it.
func testDigestLeaseCrashed(t *testing.T, open DigestStores) {
	a, b := open(t)
	idleChat(t, a, "crash")
	prov, srv := newSlowProvider(t, "crash")
	policy := history.DigestPolicy{Lease: time.Minute}
	ctxC, crash := context.WithCancel(context.Background())
	doneC := make(chan struct{})
	go func() {
		defer close(doneC)
		_, _ = digestWorker(t, a, srv.URL, nil).DigestDue(ctxC, "worker-c", policy, nil)
	}()
	<-prov.arrived["crash"]
	crash()
	<-doneC
	if st := digestStateOf(t, b, "crash"); st.LeaseHolder != "worker-c" || st.LeaseUntil == nil {
		t.Fatalf("after C stopped, state %+v; want C's lease kept until it expires", st)
	}
	close(prov.released["crash"])

	ctx := context.Background()
	p, err := digestWorker(t, b, srv.URL, nil).DigestDue(ctx, "worker-b", policy, nil)
	if err != nil || p.Digested != 0 {
		t.Fatalf("B while C's lease lasts: %+v, %v; want nothing digested", p, err)
	}
	later := func() time.Time { return time.Now().Add(policy.Lease + time.Minute) }
	p, err = digestWorker(t, b, srv.URL, later).DigestDue(ctx, "worker-b", policy, nil)
	if err != nil || p.Digested != 1 {
		t.Fatalf("B after C's lease expired: %+v, %v; want the chat digested", p, err)
	}
	if chat, err := b.FindChatByID(ctx, "crash"); err != nil || chat.Summary != "**Goal:** the summary of crash" {
		t.Fatalf("crash: %v, summary %q", err, chat.Summary)
	}
}

// testDigestLeaseLost: while A waits on the provider, its lease is taken by another holder (as
// after an expiry A did not see); A's next renewal finds it lost, ends its provider call and
// stores nothing, counting the chat as held by another worker.
func testDigestLeaseLost(t *testing.T, open DigestStores) {
	a, b := open(t)
	idleChat(t, a, "lost")
	prov, srv := newSlowProvider(t, "lost")
	policy := history.DigestPolicy{Lease: time.Second}
	ctx := context.Background()
	var progA history.DigestProgress
	var errA error
	doneA := make(chan struct{})
	go func() {
		defer close(doneA)
		progA, errA = digestWorker(t, a, srv.URL, nil).DigestDue(ctx, "worker-a", policy, nil)
	}()
	<-prov.arrived["lost"]
	chat, err := b.FindChatByID(ctx, "lost")
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if ok, err := b.(annals.DigestStore).LeaseDigest(ctx, chat.Ref(), "thief", later, later.Add(time.Hour)); err != nil || !ok {
		t.Fatalf("the thief's lease: %v, %v", ok, err)
	}
	// A's renewal finds the lease lost and ends the call the provider still holds.
	select {
	case <-doneA:
	case <-time.After(time.Minute):
		close(prov.released["lost"])
		<-doneA
		t.Fatal("A kept waiting on the provider a minute after its lease was taken")
	}
	close(prov.released["lost"])
	if errA != nil || progA.Busy != 1 || progA.Digested != 0 || progA.Failed != 0 {
		t.Fatalf("A: %+v, %v; want the chat counted busy, nothing stored or failed", progA, errA)
	}
	if st := digestStateOf(t, b, "lost"); st.LeaseHolder != "thief" || st.Failures != 0 {
		t.Fatalf("state %+v; want the thief's lease, no failure recorded", st)
	}
	if got, _ := b.FindChatByID(ctx, "lost"); got.Summary != "" {
		t.Fatalf("a digest of a lost lease was stored: %q", got.Summary)
	}
}
