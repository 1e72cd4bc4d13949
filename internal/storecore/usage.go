package storecore

import (
	"slices"
	"strconv"
	"strings"

	"github.com/annals-dev/annals"
)

// The usage aggregates' SQL, the same text on SQLite and PostgreSQL (? placeholders; the
// PostgreSQL store numbers them). Runs are joined to their chat for the owner and the agent, and
// to the chat's "source" attribute for the source tool. Sums are cast to BIGINT because
// PostgreSQL sums bigints into numeric; the per-token rates are cast to DOUBLE PRECISION because
// PostgreSQL would otherwise infer a parameter multiplied by a bigint to be a bigint.

// HourNanos is an hour in the stored unit (unix nanoseconds): buckets are started_at / HourNanos.
const HourNanos = int64(3600) * 1e9

const usageFrom = ` FROM runs r JOIN chats c ON c.pk = r.chat_pk
	LEFT JOIN chat_attributes a ON a.chat_pk = c.pk AND a.key = 'source'`

// usageWhere is the runs of f: the owner, then the start bounds.
func usageWhere(f annals.UsageFilter) *Where {
	w := &Where{}
	w.AddOwner("c", f.Owner)
	w.AddIDs("c", f.ChatIDs)
	if !f.From.IsZero() {
		w.Add("r.started_at >= ?", f.From.UTC().UnixNano())
	}
	if !f.To.IsZero() {
		w.Add("r.started_at < ?", f.To.UTC().UnixNano())
	}
	return w
}

// UsageBucketsSQL is the statement of UsageStore.UsageBuckets. Its columns are those
// UsageBucketRow.Dest scans into; a store folds its rows with AddUsageBucket.
//
// The runs recorded without a cost are grouped apart (the fifth key, 1 for them) rather than
// summed a second time through CASE expressions: six plain sums per row instead of eleven, of
// which five conditional, which is what the statement's time went to once runs kept their cache
// tokens (docs/BENCHMARKS.md, "the usage bucket statement"). A key then has at most two rows,
// next to each other in the statement's order, and AddUsageBucket makes them one bucket.
func UsageBucketsSQL(f annals.UsageFilter) (string, []any) {
	w := usageWhere(f)
	sum := func(col string) string { return `CAST(SUM(` + col + `) AS BIGINT)` }
	sums := `CASE WHEN ` + uncosted + ` THEN 1 ELSE 0 END AS uncosted, COUNT(*), ` + sum("r.input_tokens") + `, ` +
		sum("r.output_tokens") + `, ` + sum("r.cache_read_tokens") + `, ` + sum("r.cache_creation_tokens") + `, SUM(r.cost_usd)`
	if f.ByChat {
		// By chat and model: no hour, and no join to the source attribute.
		return `SELECT 0 AS hour, c.id, r.model, '', ` + sums + ` FROM runs r JOIN chats c ON c.pk = r.chat_pk
			WHERE ` + w.SQL() + ` GROUP BY c.id, r.model, 5 ORDER BY c.id, r.model, 5`, w.Args
	}
	q := `SELECT r.started_at / ` + strconv.FormatInt(HourNanos, 10) + ` AS hour, c.agent_id, r.model, COALESCE(a.value, ''), ` +
		sums + usageFrom + ` WHERE ` + w.SQL() + ` GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`
	return q, w.Args
}

// UsageBucketRow is one row of UsageBucketsSQL: the sums of a key's runs with or without a
// cost, and the hour (started_at / HourNanos), which the store turns into B.Hour.
type UsageBucketRow struct {
	B        annals.UsageBucket
	Hour     int64
	Uncosted int64
}

// Dest is where a row of UsageBucketsSQL(f) scans to. The second column is the chat's id when
// f asked for buckets by chat, its agent otherwise.
func (r *UsageBucketRow) Dest(f annals.UsageFilter) []any {
	b := &r.B
	key := &b.AgentID
	if f.ByChat {
		key = &b.ChatID
	}
	return []any{&r.Hour, key, &b.Model, &b.Source, &r.Uncosted, &b.Runs, &b.InputTokens, &b.OutputTokens,
		&b.CacheReadTokens, &b.CacheCreationTokens, &b.CostUSD}
}

// AddUsageBucket adds a scanned row (its Hour already set in B) to out: as a new bucket, or
// into the last one when it is the same key's other half (rows come in key order).
func AddUsageBucket(out []annals.UsageBucket, r UsageBucketRow) []annals.UsageBucket {
	b := r.B
	b.CostUSD = annals.FiniteCost(b.CostUSD)
	if r.Uncosted != 0 {
		b.UncostedRuns, b.UncostedInputTokens, b.UncostedOutputTokens = b.Runs, b.InputTokens, b.OutputTokens
		b.UncostedCacheRead, b.UncostedCacheCreation = b.CacheReadTokens, b.CacheCreationTokens
	}
	if n := len(out); n > 0 {
		last := &out[n-1]
		if last.Hour.Equal(b.Hour) && last.ChatID == b.ChatID && last.AgentID == b.AgentID && last.Model == b.Model && last.Source == b.Source {
			last.Runs += b.Runs
			last.InputTokens += b.InputTokens
			last.OutputTokens += b.OutputTokens
			last.CacheReadTokens += b.CacheReadTokens
			last.CacheCreationTokens += b.CacheCreationTokens
			last.CostUSD = annals.FiniteCost(last.CostUSD + b.CostUSD)
			last.UncostedRuns += b.UncostedRuns
			last.UncostedInputTokens += b.UncostedInputTokens
			last.UncostedOutputTokens += b.UncostedOutputTokens
			last.UncostedCacheRead += b.UncostedCacheRead
			last.UncostedCacheCreation += b.UncostedCacheCreation
			return out
		}
	}
	return append(out, b)
}

// uncosted is a run that recorded tokens but no cost: its cost is the pricing table's business.
const uncosted = `r.cost_usd <= 0 AND (r.input_tokens > 0 OR r.output_tokens > 0)`

// UsageTopSQL is the statement of UsageStore.TopUsageChats: the three top lists in one walk of
// the runs. The runs of the range are summed per chat first (in the order of the runs-by-chat
// index, with no join per run), then only those per-chat sums are joined to their chats, and
// each list is ordered and cut from them. Its columns, in order: the list (1 by tokens, 2 by
// cost, 3 by length), chat id, title, agent, source, entries, last activity, runs, input,
// output, cost (recorded plus estimated), estimated cost. Each list is ordered most first, then
// by chat id.
func UsageTopSQL(q annals.UsageTopQuery) (string, []any) {
	est, estArgs := usageEstimate(q.Rates)
	inner := &Where{}
	if !q.Filter.From.IsZero() {
		inner.Add("r.started_at >= ?", q.Filter.From.UTC().UnixNano())
	}
	if !q.Filter.To.IsZero() {
		inner.Add("r.started_at < ?", q.Filter.To.UTC().UnixNano())
	}
	chats := &Where{}
	chats.AddOwner("c", q.Filter.Owner)
	chats.AddIDs("c", q.Filter.ChatIDs)
	if len(chats.Conds) > 0 {
		inner.Add("r.chat_pk IN (SELECT c.pk FROM chats c WHERE "+chats.SQL()+")", chats.Args...)
	}
	const cols = `id, title, agent_id, source, entry_count, last_activity, runs, input, output, cost, est`
	list := func(n, order string) string {
		return `SELECT ` + n + ` AS list, ` + cols + ` FROM (SELECT ` + cols + ` FROM t ORDER BY ` + order + ` DESC, id LIMIT ?) l` + n
	}
	stmt := `WITH g AS MATERIALIZED (
		SELECT r.chat_pk, COUNT(*) AS runs, CAST(SUM(r.input_tokens) AS BIGINT) AS input,
			CAST(SUM(r.output_tokens) AS BIGINT) AS output, SUM(r.cost_usd) AS recorded, ` + est + ` AS est
		FROM runs r WHERE ` + inner.SQL() + ` GROUP BY r.chat_pk
	), t AS MATERIALIZED (
		SELECT c.id, c.title, c.agent_id, COALESCE(a.value, '') AS source, c.entry_count, c.last_activity,
			g.runs, g.input, g.output, g.recorded + g.est AS cost, g.est
		FROM g JOIN chats c ON c.pk = g.chat_pk
		LEFT JOIN chat_attributes a ON a.chat_pk = c.pk AND a.key = 'source'
	)
	` + list("1", "input + output") + `
	UNION ALL ` + list("2", "cost") + `
	UNION ALL ` + list("3", "entry_count")
	args := append(append([]any{}, estArgs...), inner.Args...)
	args = append(args, q.Limit, q.Limit, q.Limit)
	return stmt, args
}

// usageEstimate is the sum of the priced cost of a run's tokens recorded without a cost, by
// model as stored (at most MaxUsageRates models), with its arguments.
func usageEstimate(rates map[string]annals.TokenRate) (string, []any) {
	models := make([]string, 0, len(rates))
	for m := range rates {
		models = append(models, m)
	}
	slices.Sort(models)
	if len(models) > annals.MaxUsageRates {
		models = models[:annals.MaxUsageRates]
	}
	if len(models) == 0 {
		return "CAST(0 AS DOUBLE PRECISION)", nil
	}
	var est strings.Builder
	var args []any
	est.WriteString("SUM(CASE WHEN " + uncosted + " THEN CASE r.model")
	for _, m := range models {
		rt := rates[m]
		// TokenRate.Cost in SQL: the prompt's tokens from no cache, the cache's, the output.
		est.WriteString(" WHEN ? THEN CAST(? AS DOUBLE PRECISION) * (r.input_tokens - r.cache_read_tokens - r.cache_creation_tokens)" +
			" + CAST(? AS DOUBLE PRECISION) * r.cache_read_tokens + CAST(? AS DOUBLE PRECISION) * r.cache_creation_tokens" +
			" + CAST(? AS DOUBLE PRECISION) * r.output_tokens")
		args = append(args, m, rt.Input, rt.CacheRead, rt.CacheWrite, rt.Output)
	}
	est.WriteString(" ELSE 0 END ELSE 0 END)")
	return est.String(), args
}

// EmptyUsageTop is a UsageTop of three empty (not nil) lists.
func EmptyUsageTop() annals.UsageTop {
	return annals.UsageTop{ByTokens: []annals.UsageChat{}, ByCost: []annals.UsageChat{}, ByLength: []annals.UsageChat{}}
}

// AddUsageTop puts a row of UsageTopSQL on its list of top.
func AddUsageTop(top *annals.UsageTop, list int, c annals.UsageChat) {
	c.CostUSD = annals.FiniteCost(c.CostUSD)
	c.EstimatedCostUSD = annals.FiniteCost(c.EstimatedCostUSD)
	switch list {
	case 1:
		top.ByTokens = append(top.ByTokens, c)
	case 2:
		top.ByCost = append(top.ByCost, c)
	case 3:
		top.ByLength = append(top.ByLength, c)
	}
}
