package postgres

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.UsageStore = (*DB)(nil)

// UsageBuckets sums the runs of f by hour, agent, model and source tool (storecore's SQL, the
// same as SQLite's).
func (db *DB) UsageBuckets(ctx context.Context, f annals.UsageFilter) ([]annals.UsageBucket, error) {
	q, args := storecore.UsageBucketsSQL(f)
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("usage buckets", err)
	}
	defer rows.Close()
	out := []annals.UsageBucket{}
	for rows.Next() {
		var r storecore.UsageBucketRow
		var source []byte
		dest := r.Dest(f)
		dest[3] = &source // the attribute's value is bytes here
		if err := rows.Scan(dest...); err != nil {
			return nil, db.storeErr("scan usage bucket", err)
		}
		r.B.Source = string(source)
		if !f.ByChat {
			r.B.Hour = fromNano(r.Hour * storecore.HourNanos)
		}
		out = storecore.AddUsageBucket(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("usage buckets", err)
	}
	return out, nil
}

// TopUsageChats returns the chats of q's runs with the most tokens, cost and entries.
func (db *DB) TopUsageChats(ctx context.Context, q annals.UsageTopQuery) (annals.UsageTop, error) {
	top := storecore.EmptyUsageTop()
	stmt, args := storecore.UsageTopSQL(q)
	rows, err := db.pool.Query(ctx, rebind(stmt), args...)
	if err != nil {
		return top, db.storeErr("top usage chats", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c annals.UsageChat
		var list int
		var title, source []byte
		var last int64
		if err := rows.Scan(&list, &c.ChatID, &title, &c.AgentID, &source, &c.Entries, &last, &c.Runs,
			&c.InputTokens, &c.OutputTokens, &c.CostUSD, &c.EstimatedCostUSD); err != nil {
			return top, db.storeErr("scan top usage chat", err)
		}
		c.Title, c.Source = string(title), string(source)
		c.LastActivity = fromNano(last)
		storecore.AddUsageTop(&top, list, c)
	}
	if err := rows.Err(); err != nil {
		return top, db.storeErr("top usage chats", err)
	}
	return top, nil
}
