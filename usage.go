package annals

import (
	"cmp"
	"context"
	"time"
)

// Usage: tokens and cost over a range of time, grouped by day, agent, model and source tool,
// with an activity heatmap and the top chats (docs/USAGE.md). The store aggregates the runs in
// SQL (UsageStore); the history service turns its buckets into a UsageReport in the caller's
// scope and time zone, and prices the tokens a source recorded without a cost (Pricer).

// UsageParams are the parameters of HistoryService.Usage.
type UsageParams struct {
	Scope Scope
	// From and To bound the runs counted by their start: From <= started_at < To. Nil is
	// unbounded.
	From, To *time.Time
	// Zone is the IANA time zone ("Europe/Paris") days and hours are counted in; "" is UTC.
	Zone string
	// Top is how many chats each top list holds (0: DefaultUsageTop, at most MaxUsageTop).
	Top int
	// ChatIDs, when not nil, counts the runs of these chats only (at most MaxUsageTop ids):
	// the web UI's list and chat header ask what their chats cost, estimated part included.
	ChatIDs []string
	// CostsOnly asks for each chat's figures alone, in Top.ByCost: every chat with runs in
	// the range, most cost first, with its runs, tokens and cost (estimated part included) but
	// not its title, agent, source, length or last activity; the totals, days, groups,
	// heatmap and the other top lists are left empty. The store answers it with one statement
	// (the report takes two): the web UI's list asks what its page of chats cost on every page
	// and every live update.
	CostsOnly bool
}

// Usage limits.
const (
	DefaultUsageTop = 10
	MaxUsageTop     = 100
)

// UsageFigures are the sums over a set of runs. CostUSD is what the runs recorded plus what was
// estimated from the pricing table for runs that recorded tokens but no cost; EstimatedCostUSD
// is the estimated part (non-zero: the cost is marked estimated wherever it is shown).
type UsageFigures struct {
	Runs         int64 `json:"runs"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// CacheReadTokens and CacheCreationTokens are the part of InputTokens read from and written
	// to a prompt cache, as far as the runs' sources said (Run).
	CacheReadTokens     int64   `json:"cache_read_tokens,omitempty"`
	CacheCreationTokens int64   `json:"cache_creation_tokens,omitempty"`
	CostUSD             float64 `json:"cost_usd"`
	EstimatedCostUSD    float64 `json:"estimated_cost_usd,omitempty"`
	// UnpricedRuns counts runs that recorded tokens, no cost, and whose model the pricing table
	// does not know: their cost is missing from CostUSD.
	UnpricedRuns int64 `json:"unpriced_runs,omitempty"`
}

// Tokens is input plus output tokens.
func (f UsageFigures) Tokens() int64 { return SaturatingAdd(f.InputTokens, f.OutputTokens) }

// Estimated reports whether part of the cost was estimated.
func (f UsageFigures) Estimated() bool { return f.EstimatedCostUSD > 0 }

// Add adds o's figures to f.
func (f *UsageFigures) Add(o UsageFigures) {
	f.Runs += o.Runs
	f.InputTokens = SaturatingAdd(f.InputTokens, o.InputTokens)
	f.OutputTokens = SaturatingAdd(f.OutputTokens, o.OutputTokens)
	f.CacheReadTokens = SaturatingAdd(f.CacheReadTokens, o.CacheReadTokens)
	f.CacheCreationTokens = SaturatingAdd(f.CacheCreationTokens, o.CacheCreationTokens)
	f.CostUSD += o.CostUSD
	f.EstimatedCostUSD += o.EstimatedCostUSD
	f.UnpricedRuns += o.UnpricedRuns
}

// UsageRow is the figures of one group: a day (2026-03-14, in the report's zone), an agent, a
// model or a source tool ("" when the runs carry none).
type UsageRow struct {
	Key string `json:"key"`
	UsageFigures
}

// UsageHeatmap is the activity by day of the week and hour of the day, in the report's zone:
// [0] is Monday, [6] Sunday; the inner index is the hour 0-23.
type UsageHeatmap struct {
	Runs   [7][24]int64 `json:"runs"`
	Tokens [7][24]int64 `json:"tokens"`
}

// UsageChat is one chat of a top list: its figures over the range (CostUSD includes the
// estimated part, as in UsageFigures) and its length in entries.
type UsageChat struct {
	ChatID           string    `json:"chat_id"`
	Title            string    `json:"title,omitempty"`
	AgentID          string    `json:"agent_id,omitempty"`
	Source           string    `json:"source,omitempty"`
	Runs             int64     `json:"runs"`
	InputTokens      int64     `json:"input_tokens"`
	OutputTokens     int64     `json:"output_tokens"`
	CostUSD          float64   `json:"cost_usd"`
	EstimatedCostUSD float64   `json:"estimated_cost_usd,omitempty"`
	Entries          int64     `json:"entries"`
	LastActivity     time.Time `json:"last_activity"`
}

// UsageTop holds the top chats of the range by tokens, by cost and by length (entries).
type UsageTop struct {
	ByTokens []UsageChat `json:"by_tokens"`
	ByCost   []UsageChat `json:"by_cost"`
	ByLength []UsageChat `json:"by_length"`
}

// UsagePricing says which pricing table estimated costs: the date of its snapshot, and whether
// a configured file overrode part of the built-in one.
type UsagePricing struct {
	Snapshot   string `json:"snapshot"`
	Overridden bool   `json:"overridden,omitempty"`
}

// UsageReport is the answer of HistoryService.Usage. Days holds every day from the first to the
// last of the range (or of the data, for an open end), empty ones included; agents, models and
// tools are ordered by tokens, most first.
type UsageReport struct {
	Scope   string        `json:"scope"`
	From    *time.Time    `json:"from,omitempty"`
	To      *time.Time    `json:"to,omitempty"`
	Zone    string        `json:"zone"`
	Totals  UsageFigures  `json:"totals"`
	Days    []UsageRow    `json:"days"`
	Agents  []UsageRow    `json:"agents"`
	Models  []UsageRow    `json:"models"`
	Tools   []UsageRow    `json:"tools"`
	Heatmap UsageHeatmap  `json:"heatmap"`
	Top     UsageTop      `json:"top"`
	Pricing *UsagePricing `json:"pricing,omitempty"`
}

// UsageFilter selects the runs a usage aggregate counts: runs of chats inside Owner (archived
// chats included) that started in [From, To); a zero bound is open.
type UsageFilter struct {
	Owner    Owner
	From, To time.Time
	// ChatIDs, when not nil, keeps the runs of these chats only (an empty list keeps none).
	ChatIDs []string
	// ByChat sums the runs by chat and model instead (UsageBucket.ChatID; no hour, agent or
	// source).
	ByChat bool
}

// UsageBucket is what the runs of one hour (UTC), one agent, one model and one source tool (the
// chat's "source" attribute) add up to. The Uncosted fields are the part of them that recorded
// tokens but no cost.
type UsageBucket struct {
	// ChatID is set when the filter asked for buckets by chat (UsageFilter.ByChat).
	ChatID                string
	Hour                  time.Time
	AgentID               string
	Model                 string
	Source                string
	Runs                  int64
	InputTokens           int64
	OutputTokens          int64
	CacheReadTokens       int64
	CacheCreationTokens   int64
	CostUSD               float64
	UncostedRuns          int64
	UncostedInputTokens   int64
	UncostedOutputTokens  int64
	UncostedCacheRead     int64
	UncostedCacheCreation int64
}

// UsageOrder is what a top list orders chats by.
type UsageOrder string

// Top list orders.
const (
	UsageByTokens UsageOrder = "tokens"
	UsageByCost   UsageOrder = "cost"
	UsageByLength UsageOrder = "length"
)

// TokenRate is a price in USD per token (not per million), as the store multiplies it. Input
// is the price of a prompt token from no cache; CacheRead and CacheWrite those of the prompt's
// tokens read from and written to a cache.
type TokenRate struct {
	Input, Output         float64
	CacheRead, CacheWrite float64
}

// RunTokens are the token figures a cost is estimated from: In is the whole prompt, Read and
// Write the part of it read from and written to a cache (Run).
type RunTokens struct {
	In, Out, Read, Write int64
}

// Cost is what t costs at r: the estimate of a run, or of a sum of runs, that recorded tokens
// but no cost. The prompt's tokens from no cache are In less the cache's part.
func (r TokenRate) Cost(t RunTokens) float64 {
	fresh := max(t.In-t.Read-t.Write, 0)
	return float64(fresh)*r.Input + float64(t.Read)*r.CacheRead + float64(t.Write)*r.CacheWrite + float64(t.Out)*r.Output
}

// UsageTopQuery asks for the chats with the most tokens, cost and entries among the runs of
// Filter, Limit of each. Rates prices, by model as stored, the tokens of runs that recorded no
// cost: the store adds them to the cost (and reports them as estimated) so that ordering by
// cost counts them.
type UsageTopQuery struct {
	Filter UsageFilter
	Rates  map[string]TokenRate
	Limit  int
}

// MaxUsageRates bounds how many models a UsageTopQuery prices (each is five bound parameters).
const MaxUsageRates = 200

// UsageStore is the optional store capability behind the usage report; both stores have it.
type UsageStore interface {
	// UsageBuckets sums the runs of f by hour, agent, model and source tool.
	// Errors: unavailable, internal.
	UsageBuckets(ctx context.Context, f UsageFilter) ([]UsageBucket, error)
	// TopUsageChats returns the three top lists of q's runs (by tokens, by cost, by entries),
	// each of up to q.Limit chats, most first, then by id; one walk of the runs.
	// Errors: unavailable, internal.
	TopUsageChats(ctx context.Context, q UsageTopQuery) (UsageTop, error)
}

// ModelPrice is a model's public price in USD per million tokens: input, output, and the input
// read from and written to a prompt cache.
type ModelPrice struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Rate is p per token. A cache price the table does not give is the input price: the cache's
// tokens cost what any prompt token costs.
func (p ModelPrice) Rate() TokenRate {
	return TokenRate{Input: p.Input / 1e6, Output: p.Output / 1e6,
		CacheRead: cmp.Or(p.CacheRead, p.Input) / 1e6, CacheWrite: cmp.Or(p.CacheWrite, p.Input) / 1e6}
}

// Pricer prices the tokens of a model, for runs whose source recorded tokens but no cost.
type Pricer interface {
	// Price returns the price of model as a source names it (dated and provider-prefixed
	// names included), and false for a model it does not know.
	Price(model string) (ModelPrice, bool)
	// Pricing describes the table, for the report.
	Pricing() UsagePricing
}
