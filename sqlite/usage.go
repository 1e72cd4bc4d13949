package sqlite

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.UsageStore = (*DB)(nil)

// UsageBuckets sums the runs of f by hour, agent, model and source tool (storecore's SQL).
func (db *DB) UsageBuckets(ctx context.Context, f annals.UsageFilter) ([]annals.UsageBucket, error) {
	q, args := storecore.UsageBucketsSQL(f)
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeErr("usage buckets", err)
	}
	defer rows.Close()
	out := []annals.UsageBucket{}
	for rows.Next() {
		var r storecore.UsageBucketRow
		if err := rows.Scan(r.Dest(f)...); err != nil {
			return nil, storeErr("scan usage bucket", err)
		}
		if !f.ByChat {
			r.B.Hour = storecore.FromNano(r.Hour * storecore.HourNanos)
		}
		out = storecore.AddUsageBucket(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr("usage buckets", err)
	}
	return out, nil
}

// TopUsageChats returns the chats of q's runs with the most tokens, cost and entries.
func (db *DB) TopUsageChats(ctx context.Context, q annals.UsageTopQuery) (annals.UsageTop, error) {
	top := storecore.EmptyUsageTop()
	stmt, args := storecore.UsageTopSQL(q)
	rows, err := db.reader.QueryContext(ctx, stmt, args...)
	if err != nil {
		return top, storeErr("top usage chats", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c annals.UsageChat
		var list int
		var last int64
		if err := rows.Scan(&list, &c.ChatID, &c.Title, &c.AgentID, &c.Source, &c.Entries, &last, &c.Runs,
			&c.InputTokens, &c.OutputTokens, &c.CostUSD, &c.EstimatedCostUSD); err != nil {
			return top, storeErr("scan top usage chat", err)
		}
		c.LastActivity = storecore.FromNano(last)
		storecore.AddUsageTop(&top, list, c)
	}
	if err := rows.Err(); err != nil {
		return top, storeErr("top usage chats", err)
	}
	return top, nil
}
