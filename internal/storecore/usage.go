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

// UsageBucketsSQL is the statement of UsageStore.UsageBuckets. Its columns, in order: hour
// (started_at / HourNanos), agent, model, source (NULL-free), runs, input, output, cost,
// uncosted runs, uncosted input, uncosted output.
func UsageBucketsSQL(f annals.UsageFilter) (string, []any) {
	w := usageWhere(f)
	q := `SELECT r.started_at / ` + strconv.FormatInt(HourNanos, 10) + ` AS hour, c.agent_id, r.model, COALESCE(a.value, ''),
		COUNT(*), CAST(SUM(r.input_tokens) AS BIGINT), CAST(SUM(r.output_tokens) AS BIGINT), SUM(r.cost_usd),
		SUM(CASE WHEN ` + uncosted + ` THEN 1 ELSE 0 END),
		CAST(SUM(CASE WHEN ` + uncosted + ` THEN r.input_tokens ELSE 0 END) AS BIGINT),
		CAST(SUM(CASE WHEN ` + uncosted + ` THEN r.output_tokens ELSE 0 END) AS BIGINT)` +
		usageFrom + ` WHERE ` + w.SQL() + ` GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`
	return q, w.Args
}

// uncosted is a run that recorded tokens but no cost: its cost is the pricing table's business.
const uncosted = `r.cost_usd <= 0 AND (r.input_tokens > 0 OR r.output_tokens > 0)`

// UsageTopSQL is the statement of UsageStore.TopUsageChats. Its columns, in order: chat id,
// title, agent, source, entries, last activity, runs, input, output, cost (recorded plus
// estimated), estimated cost. Errors: invalid (an unknown order).
func UsageTopSQL(q annals.UsageTopQuery) (string, []any, error) {
	var est strings.Builder
	var estArgs []any
	models := make([]string, 0, len(q.Rates))
	for m := range q.Rates {
		models = append(models, m)
	}
	slices.Sort(models)
	if len(models) > annals.MaxUsageRates {
		models = models[:annals.MaxUsageRates]
	}
	if len(models) == 0 {
		est.WriteString("CAST(0 AS DOUBLE PRECISION)")
	} else {
		est.WriteString("SUM(CASE WHEN " + uncosted + " THEN CASE r.model")
		for _, m := range models {
			rt := q.Rates[m]
			est.WriteString(" WHEN ? THEN CAST(? AS DOUBLE PRECISION) * r.input_tokens + CAST(? AS DOUBLE PRECISION) * r.output_tokens")
			estArgs = append(estArgs, m, rt.Input, rt.Output)
		}
		est.WriteString(" ELSE 0 END ELSE 0 END)")
	}
	var order string
	switch q.Order {
	case annals.UsageByTokens:
		order = "SUM(r.input_tokens) + SUM(r.output_tokens)"
	case annals.UsageByCost:
		order = "SUM(r.cost_usd) + " + est.String()
	case annals.UsageByLength:
		order = "c.entry_count"
	default:
		return "", nil, annals.Errorf(annals.EINVALID, "unknown usage order %q (want tokens, cost or length)", q.Order)
	}
	w := usageWhere(q.Filter)
	stmt := `SELECT c.id, c.title, c.agent_id, COALESCE(a.value, ''), c.entry_count, c.last_activity,
		COUNT(*), CAST(SUM(r.input_tokens) AS BIGINT), CAST(SUM(r.output_tokens) AS BIGINT),
		SUM(r.cost_usd) + ` + est.String() + `, ` + est.String() +
		usageFrom + ` WHERE ` + w.SQL() +
		` GROUP BY c.pk, c.id, c.title, c.agent_id, a.value, c.entry_count, c.last_activity
		ORDER BY ` + order + ` DESC, c.id LIMIT ?`
	// The estimate appears up to three times (select, select, order): its arguments with it.
	args := append([]any{}, estArgs...)
	args = append(args, estArgs...)
	args = append(args, w.Args...)
	if q.Order == annals.UsageByCost {
		args = append(args, estArgs...)
	}
	args = append(args, q.Limit)
	return stmt, args, nil
}
