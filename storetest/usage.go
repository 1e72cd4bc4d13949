package storetest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

func usageTests() []test {
	return []test{
		{"BucketsSumRunsByHourAgentModelAndTool", testUsageBuckets},
		{"BucketsStayInsideTheOwner", testUsageOwner},
		{"TopChatsByTokensCostAndLength", testUsageTop},
		{"ChatIDsKeepThoseChatsRuns", testUsageChatIDs},
		{"TopListsAreTheRunsSummedPerChat", testUsageTopOracle},
		{"BucketsByChatAndModelWithTheCache", testUsageByChat},
	}
}

// usageStore returns s's usage aggregates, failing the test when it has none: both stores do.
func usageStore(t *testing.T, s Store) annals.UsageStore {
	t.Helper()
	u, ok := s.(annals.UsageStore)
	if !ok {
		t.Fatalf("%T has no usage aggregates (annals.UsageStore)", s)
	}
	return u
}

// usageHour is the hour the usage fixtures' runs start in.
var usageHour = BaseTime.Truncate(time.Hour)

// usageRun records a completed run with its model, tokens and cost, started at start.
func usageRun(t *testing.T, s Store, id, chat, model string, start time.Time, in, out int64, cost float64) {
	t.Helper()
	r := NewRun(id, chat, annals.StatusCompleted, start)
	r.Model, r.InputTokens, r.OutputTokens, r.CostUSD = model, in, out, cost
	mustRecordRun(t, s, r)
}

// usageFixture: tenant-a holds c1 (agent coder, source claude-code, user u1) with a priced and
// an unpriced run in the first hour and an unpriced one two hours later, a run before the range,
// and c2 (no agent, no source, user u2) with one run; tenant-b holds c3 in the same hour.
func usageFixture(t *testing.T, s Store) {
	t.Helper()
	c1 := NewChat("c1", "tenant-a")
	c1.UserID, c1.AgentID, c1.Attributes = "u1", "coder", annals.Attributes{"source": "claude-code", "repo": "x"}
	mustCreateChat(t, s, c1)
	c2 := NewChat("c2", "tenant-a")
	c2.UserID = "u2"
	mustCreateChat(t, s, c2)
	mustAppend(t, s, "c2", Entries("c2", 5)...)
	c3 := NewChat("c3", "tenant-b")
	c3.AgentID = "coder"
	mustCreateChat(t, s, c3)
	usageRun(t, s, "r1", "c1", "m1", usageHour.Add(5*time.Minute), 100, 50, 0.5)
	usageRun(t, s, "r2", "c1", "m1", usageHour.Add(10*time.Minute), 200, 100, 0)
	usageRun(t, s, "r3", "c1", "m2", usageHour.Add(2*time.Hour+time.Minute), 10, 0, 0)
	usageRun(t, s, "r0", "c1", "m1", usageHour.Add(-48*time.Hour), 7, 7, 7)
	usageRun(t, s, "r4", "c2", "m1", usageHour.Add(59*time.Minute), 1, 1, 0.25)
	usageRun(t, s, "r5", "c3", "m1", usageHour.Add(time.Minute), 1000, 1000, 9)
}

func usageRange(o annals.Owner) annals.UsageFilter {
	return annals.UsageFilter{Owner: o, From: usageHour.Add(-time.Hour), To: usageHour.Add(3 * time.Hour)}
}

func bucketText(b annals.UsageBucket) string {
	return fmt.Sprintf("%s %s%s/%s/%s runs=%d in=%d out=%d cache=%d/%d cost=%.4f uncosted=%d/%d/%d/%d/%d", b.Hour.UTC().Format(time.RFC3339),
		b.ChatID, b.AgentID, b.Model, b.Source, b.Runs, b.InputTokens, b.OutputTokens, b.CacheReadTokens, b.CacheCreationTokens, b.CostUSD,
		b.UncostedRuns, b.UncostedInputTokens, b.UncostedOutputTokens, b.UncostedCacheRead, b.UncostedCacheCreation)
}

func wantBuckets(t *testing.T, what string, got []annals.UsageBucket, want ...annals.UsageBucket) {
	t.Helper()
	var g, w []string
	for _, b := range got {
		g = append(g, bucketText(b))
	}
	for _, b := range want {
		w = append(w, bucketText(b))
	}
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Errorf("%s:\n got %q\nwant %q", what, g, w)
	}
}

func testUsageBuckets(t *testing.T, s Store) {
	usageFixture(t, s)
	got, err := usageStore(t, s).UsageBuckets(t.Context(), usageRange(annals.Owner{TenantID: "tenant-a"}))
	if err != nil {
		t.Fatal(err)
	}
	// Ordered by hour, agent, model, source; r0 is before the range, r5 another tenant's.
	wantBuckets(t, "tenant-a's buckets", got,
		annals.UsageBucket{Hour: usageHour, Model: "m1", Runs: 1, InputTokens: 1, OutputTokens: 1, CostUSD: 0.25},
		annals.UsageBucket{Hour: usageHour, AgentID: "coder", Model: "m1", Source: "claude-code", Runs: 2, InputTokens: 300, OutputTokens: 150, CostUSD: 0.5,
			UncostedRuns: 1, UncostedInputTokens: 200, UncostedOutputTokens: 100},
		annals.UsageBucket{Hour: usageHour.Add(2 * time.Hour), AgentID: "coder", Model: "m2", Source: "claude-code", Runs: 1, InputTokens: 10,
			UncostedRuns: 1, UncostedInputTokens: 10},
	)
	// Open bounds count every run of the owner, r0 included.
	all, err := usageStore(t, s).UsageBuckets(t.Context(), annals.UsageFilter{Owner: annals.Owner{TenantID: "tenant-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || all[0].Hour != usageHour.Add(-48*time.Hour) || all[0].CostUSD != 7 {
		t.Errorf("open range: %d buckets, first %+v; want 4, the first r0's", len(all), all)
	}
	// The upper bound is exclusive: a range ending at r3's start leaves it out.
	f := usageRange(annals.Owner{TenantID: "tenant-a"})
	f.To = usageHour.Add(2*time.Hour + time.Minute)
	cut, err := usageStore(t, s).UsageBuckets(t.Context(), f)
	if err != nil || len(cut) != 2 {
		t.Errorf("range ending at r3's start: %d buckets, %v; want 2", len(cut), err)
	}
}

func testUsageOwner(t *testing.T, s Store) {
	usageFixture(t, s)
	u := usageStore(t, s)
	got, err := u.UsageBuckets(t.Context(), usageRange(annals.Owner{TenantID: "tenant-a", UserID: "u2"}))
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, "u2's buckets", got, annals.UsageBucket{Hour: usageHour, Model: "m1", Runs: 1, InputTokens: 1, OutputTokens: 1, CostUSD: 0.25})
	for _, o := range []annals.Owner{{}, {TenantID: "tenant-c"}} {
		got, err := u.UsageBuckets(t.Context(), usageRange(o))
		if err != nil || len(got) != 0 {
			t.Errorf("owner %+v: %d buckets, %v; want none", o, len(got), err)
		}
		top, err := u.TopUsageChats(t.Context(), annals.UsageTopQuery{Filter: usageRange(o), Limit: 10})
		if err != nil || len(top.ByTokens)+len(top.ByCost)+len(top.ByLength) != 0 || top.ByTokens == nil || top.ByCost == nil || top.ByLength == nil {
			t.Errorf("owner %+v: top chats %+v, %v; want three empty lists", o, top, err)
		}
	}
	every, err := u.UsageBuckets(t.Context(), usageRange(annals.Owner{AllTenants: true}))
	if err != nil || len(every) != 4 {
		t.Errorf("every tenant: %d buckets, %v; want 4 (tenant-b's coder/m1 too)", len(every), err)
	}
}

func topIDs(top []annals.UsageChat) []string {
	ids := []string{}
	for _, c := range top {
		ids = append(ids, c.ChatID)
	}
	return ids
}

func testUsageTop(t *testing.T, s Store) {
	usageFixture(t, s)
	u := usageStore(t, s)
	f := usageRange(annals.Owner{TenantID: "tenant-a"})
	top := func(o usageOrder, rates map[string]annals.TokenRate, limit int) []annals.UsageChat {
		t.Helper()
		got, err := u.TopUsageChats(t.Context(), annals.UsageTopQuery{Filter: f, Rates: rates, Limit: limit})
		if err != nil {
			t.Fatalf("top by %s: %v", o, err)
		}
		return o.of(got)
	}
	byTokens := top(byTokensOrder, nil, 10)
	wantIDs(t, "top by tokens", topIDs(byTokens), []string{"c1", "c2"})
	c1 := byTokens[0]
	if c1.Runs != 3 || c1.InputTokens != 310 || c1.OutputTokens != 150 || c1.CostUSD != 0.5 || c1.EstimatedCostUSD != 0 ||
		c1.AgentID != "coder" || c1.Source != "claude-code" || c1.Entries != 0 || c1.LastActivity.IsZero() {
		t.Errorf("c1 by tokens = %+v; want 3 runs in the range, 310/150 tokens, recorded cost 0.5, agent coder, source claude-code", c1)
	}
	wantIDs(t, "top by length", topIDs(top(byLengthOrder, nil, 10)), []string{"c2", "c1"})
	wantIDs(t, "top by tokens, limit 1", topIDs(top(byTokensOrder, nil, 1)), []string{"c1"})
	// Without rates c2's recorded 0.25 is below c1's 0.5; c1's uncosted tokens priced at zero
	// keep that order.
	wantIDs(t, "top by recorded cost", topIDs(top(byCostOrder, nil, 10)), []string{"c1", "c2"})
	// A rate for m2 only: c1's 10 uncosted m2 input tokens at 0.01 add 0.1, its m1 run stays
	// unpriced. A low recorded cost of c1 would not change this; check the sums instead.
	byCost := top(byCostOrder, map[string]annals.TokenRate{"m2": {Input: 0.01, Output: 1}}, 10)
	if len(byCost) != 2 || math.Abs(byCost[0].CostUSD-0.6) > 1e-9 || math.Abs(byCost[0].EstimatedCostUSD-0.1) > 1e-9 {
		t.Errorf("top by cost with an m2 rate = %+v; want c1 first at 0.6 of which 0.1 estimated", byCost)
	}
	// A high m1 rate for uncosted tokens lifts c1's estimate; c2's m1 run recorded a cost and
	// is never estimated.
	byCost = top(byCostOrder, map[string]annals.TokenRate{"m1": {Input: 0.001, Output: 0.002}}, 10)
	if len(byCost) != 2 || byCost[1].ChatID != "c2" || byCost[1].EstimatedCostUSD != 0 || byCost[1].CostUSD != 0.25 ||
		math.Abs(byCost[0].EstimatedCostUSD-0.4) > 1e-9 {
		t.Errorf("top by cost with an m1 rate = %+v; want c1 with 0.4 estimated, then c2 at its recorded 0.25", byCost)
	}
}

// usageOrder names one of UsageTop's lists.
type usageOrder string

const (
	byTokensOrder usageOrder = "tokens"
	byCostOrder   usageOrder = "cost"
	byLengthOrder usageOrder = "length"
)

func (o usageOrder) of(top annals.UsageTop) []annals.UsageChat {
	switch o {
	case byTokensOrder:
		return top.ByTokens
	case byCostOrder:
		return top.ByCost
	}
	return top.ByLength
}

// testUsageTopOracle: the three top lists, read in one walk of the runs, are exactly the runs
// of the range and owner summed per chat in Go and ordered most first, then by id (costs and
// rates are binary fractions, so every sum is exact in any order), ties included.
func testUsageTopOracle(t *testing.T, s Store) {
	rates := map[string]annals.TokenRate{"m1": {Input: 1.0 / 1024, Output: 1.0 / 256}, "m2": {Input: 1.0 / 64}}
	type sums struct {
		c            annals.UsageChat
		tenant, user string
	}
	chats := map[string]*sums{}
	for i := range 24 {
		id := fmt.Sprintf("oc%02d", i)
		c := NewChat(id, []string{"tenant-a", "tenant-b"}[i%2])
		c.UserID = []string{"u1", "u2", "u3"}[i%3]
		c.AgentID = []string{"", "coder", "writer"}[i%3]
		if i%4 == 0 {
			c.Attributes = annals.Attributes{"source": "claude-code"}
		}
		mustCreateChat(t, s, c)
		n := i % 5 // equal lengths: the id breaks the tie
		if n > 0 {
			mustAppend(t, s, id, Entries(id, n)...)
		}
		chats[id] = &sums{c: annals.UsageChat{ChatID: id, AgentID: c.AgentID, Source: c.Attributes["source"], Entries: int64(n)}, tenant: c.TenantID, user: c.UserID}
	}
	from := usageHour.Add(-time.Hour)
	for j := range 150 {
		id := fmt.Sprintf("oc%02d", (j*7)%24)
		model := []string{"m1", "m2", "m3"}[j%3]
		in, out := int64((j*37)%500), int64((j*53)%300)
		if j%11 == 0 {
			in, out = 100, 100 // equal token totals across chats: the id breaks the tie
		}
		cost := float64(j%4) / 64 // a quarter record no cost
		start := usageHour.Add(time.Duration(j-10) * 7 * time.Minute)
		usageRun(t, s, fmt.Sprintf("or%03d", j), id, model, start, in, out, cost)
		if start.Before(from) {
			continue
		}
		c := &chats[id].c
		c.Runs++
		c.InputTokens += in
		c.OutputTokens += out
		c.CostUSD += cost
		if cost <= 0 && (in > 0 || out > 0) {
			est := float64(in)*rates[model].Input + float64(out)*rates[model].Output
			c.EstimatedCostUSD += est
			c.CostUSD += est
		}
	}
	for _, o := range []annals.Owner{{TenantID: "tenant-a"}, {TenantID: "tenant-b", UserID: "u2"}, {AllTenants: true}} {
		var in []annals.UsageChat
		for _, c := range chats {
			if c.c.Runs > 0 && (o.AllTenants || c.tenant == o.TenantID && (o.UserID == "" || c.user == o.UserID)) {
				in = append(in, c.c)
			}
		}
		want := func(key func(annals.UsageChat) float64) []string {
			l := slices.Clone(in)
			slices.SortFunc(l, func(a, b annals.UsageChat) int {
				return cmp.Or(cmp.Compare(key(b), key(a)), cmp.Compare(a.ChatID, b.ChatID))
			})
			var out []string
			for _, c := range l[:min(5, len(l))] {
				out = append(out, fmt.Sprintf("%s runs=%d in=%d out=%d cost=%v est=%v entries=%d agent=%s source=%s",
					c.ChatID, c.Runs, c.InputTokens, c.OutputTokens, c.CostUSD, c.EstimatedCostUSD, c.Entries, c.AgentID, c.Source))
			}
			return out
		}
		got, err := usageStore(t, s).TopUsageChats(t.Context(), annals.UsageTopQuery{Filter: annals.UsageFilter{Owner: o, From: from}, Rates: rates, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []struct {
			name string
			got  []annals.UsageChat
			key  func(annals.UsageChat) float64
		}{
			{"tokens", got.ByTokens, func(c annals.UsageChat) float64 { return float64(c.InputTokens + c.OutputTokens) }},
			{"cost", got.ByCost, func(c annals.UsageChat) float64 { return c.CostUSD }},
			{"length", got.ByLength, func(c annals.UsageChat) float64 { return float64(c.Entries) }},
		} {
			var g []string
			for _, c := range l.got {
				g = append(g, fmt.Sprintf("%s runs=%d in=%d out=%d cost=%v est=%v entries=%d agent=%s source=%s",
					c.ChatID, c.Runs, c.InputTokens, c.OutputTokens, c.CostUSD, c.EstimatedCostUSD, c.Entries, c.AgentID, c.Source))
			}
			if w := want(l.key); fmt.Sprint(g) != fmt.Sprint(w) {
				t.Errorf("owner %+v, top by %s:\n got %q\nwant %q", o, l.name, g, w)
			}
		}
	}
}

// testUsageChatIDs: a filter's ChatIDs keeps the runs of those chats only, inside the owner (a
// chat id of another tenant adds nothing); an empty list keeps none.
func testUsageChatIDs(t *testing.T, s Store) {
	usageFixture(t, s)
	u := usageStore(t, s)
	f := usageRange(annals.Owner{TenantID: "tenant-a"})
	f.ChatIDs = []string{"c2", "c3"}
	got, err := u.UsageBuckets(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, "c2 and c3 in tenant-a", got, annals.UsageBucket{Hour: usageHour, Model: "m1", Runs: 1, InputTokens: 1, OutputTokens: 1, CostUSD: 0.25})
	all, err := u.TopUsageChats(t.Context(), annals.UsageTopQuery{Filter: f, Limit: 10})
	if err != nil || fmt.Sprint(topIDs(all.ByCost), topIDs(all.ByTokens), topIDs(all.ByLength)) != "[c2] [c2] [c2]" {
		t.Errorf("top of c2 and c3 in tenant-a: %+v, %v; want c2 alone in each list", all, err)
	}
	f.ChatIDs = []string{"c1"}
	all, err = u.TopUsageChats(t.Context(), annals.UsageTopQuery{Filter: f, Limit: 10,
		Rates: map[string]annals.TokenRate{"m1": {Input: 0.001, Output: 0.002}}})
	top := all.ByCost
	if err != nil || len(top) != 1 || top[0].ChatID != "c1" || math.Abs(top[0].EstimatedCostUSD-0.4) > 1e-9 {
		t.Errorf("c1 priced: %+v, %v; want c1 with r2 estimated at $0.40", top, err)
	}
	f.ChatIDs = []string{}
	if got, err := u.UsageBuckets(t.Context(), f); err != nil || len(got) != 0 {
		t.Errorf("no chats: %d buckets, %v; want none", len(got), err)
	}
}

// testUsageByChat: buckets by chat and model (the web UI's per-chat costs) sum each chat's runs
// of a model, with the cache's part of their input, uncosted and all.
func testUsageByChat(t *testing.T, s Store) {
	usageFixture(t, s)
	cached := NewRun("r6", "c2", annals.StatusCompleted, usageHour.Add(30*time.Minute))
	cached.Model, cached.InputTokens, cached.CacheReadTokens, cached.CacheCreationTokens, cached.OutputTokens = "m2", 1000, 600, 300, 5
	mustRecordRun(t, s, cached)
	// A run of the same chat and model that recorded its cost: the bucket sums both, its
	// uncosted part only r6.
	costed := NewRun("r7", "c2", annals.StatusCompleted, usageHour.Add(40*time.Minute))
	costed.Model, costed.InputTokens, costed.CacheReadTokens, costed.OutputTokens, costed.CostUSD = "m2", 50, 20, 2, 0.125
	mustRecordRun(t, s, costed)
	f := usageRange(annals.Owner{TenantID: "tenant-a"})
	f.ChatIDs, f.ByChat = []string{"c1", "c2", "c3"}, true
	got, err := usageStore(t, s).UsageBuckets(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	// Ordered by chat and model; no hour, agent or source; c3 is another tenant's.
	wantBuckets(t, "tenant-a's buckets by chat", got,
		annals.UsageBucket{ChatID: "c1", Model: "m1", Runs: 2, InputTokens: 300, OutputTokens: 150, CostUSD: 0.5,
			UncostedRuns: 1, UncostedInputTokens: 200, UncostedOutputTokens: 100},
		annals.UsageBucket{ChatID: "c1", Model: "m2", Runs: 1, InputTokens: 10, UncostedRuns: 1, UncostedInputTokens: 10},
		annals.UsageBucket{ChatID: "c2", Model: "m1", Runs: 1, InputTokens: 1, OutputTokens: 1, CostUSD: 0.25},
		annals.UsageBucket{ChatID: "c2", Model: "m2", Runs: 2, InputTokens: 1050, OutputTokens: 7, CacheReadTokens: 620, CacheCreationTokens: 300,
			CostUSD: 0.125, UncostedRuns: 1, UncostedInputTokens: 1000, UncostedOutputTokens: 5, UncostedCacheRead: 600, UncostedCacheCreation: 300},
	)
}
