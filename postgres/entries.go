package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

const entryColumns = `c.id, e.id, e.seq, e.kind, e.run_id, e.source_ids, e.channel, e.correlation_id, e.time,
	e.text, e.reasoning, e.tool_name, e.tool_call_id, e.tool_args, e.tool_result, e.tool_outcome,
	e.input_tokens, e.output_tokens, e.metadata`

// scanEntry reads one row of entryColumns followed by extra targets.
func scanEntry(row pgx.Row, extra ...any) (*annals.Entry, error) {
	var e annals.Entry
	var kind, args, outcome, meta string
	var text, reasoning, result []byte
	var sources []string
	var t int64
	var tool annals.ToolCall
	targets := []any{&e.ChatID, &e.ID, &e.Seq, &kind, &e.RunID, &sources, &e.Channel, &e.CorrelationID, &t,
		&text, &reasoning, &tool.Name, &tool.CallID, &args, &result, &outcome,
		&e.InputTokens, &e.OutputTokens, &meta}
	if err := row.Scan(append(targets, extra...)...); err != nil {
		return nil, err
	}
	e.Kind = annals.EntryKind(kind)
	if len(sources) > 0 {
		e.SourceIDs = sources
	}
	e.Time = fromNano(t)
	e.Text, e.Reasoning = string(text), string(reasoning)
	if meta != "" {
		e.Metadata = json.RawMessage(meta)
	}
	if e.Kind == annals.KindTool {
		if args != "" {
			tool.Arguments = json.RawMessage(args)
		}
		tool.Result = string(result)
		tool.Outcome = annals.Outcome(outcome)
		e.Tool = &tool
	}
	return &e, nil
}

// FindEntries returns one chat's entries in seq order; see annals.ChatStore.
func (db *DB) FindEntries(ctx context.Context, f annals.EntryFilter) ([]*annals.Entry, error) {
	w, err := storecore.EntryWhere(f)
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + entryColumns + ` FROM entries e JOIN chats c ON c.pk = e.chat_pk WHERE ` + w.SQL() + ` ORDER BY e.seq`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		w.Args = append(w.Args, f.Limit)
	}
	rows, err := db.pool.Query(ctx, rebind(q), w.Args...)
	if err != nil {
		return nil, db.storeErr("find entries", err)
	}
	defer rows.Close()
	out := []*annals.Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, db.storeErr("scan entry", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("find entries", err)
	}
	return out, nil
}

// FindRuns returns a chat's runs, oldest first; see annals.ChatStore.
func (db *DB) FindRuns(ctx context.Context, chatID string) ([]*annals.Run, error) {
	return db.queryRuns(ctx, `c.id = $1`, chatID)
}

// FindRunsByID returns the runs of a chat among ids, oldest first, each found by its unique
// id; see annals.ChatStore.
func (db *DB) FindRunsByID(ctx context.Context, chatID string, ids []string) ([]*annals.Run, error) {
	if len(ids) == 0 {
		return []*annals.Run{}, nil
	}
	return db.queryRuns(ctx, `c.id = $1 AND r.id = ANY($2)`, chatID, ids)
}

// queryRuns reads the runs that where (on runs r joined to chats c) selects, oldest first.
func (db *DB) queryRuns(ctx context.Context, where string, args ...any) ([]*annals.Run, error) {
	rows, err := db.pool.Query(ctx, `SELECT r.id, c.id, r.status, r.model, r.started_at, r.ended_at,
			r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_creation_tokens, r.context_tokens, r.cost_usd, r.kind
		FROM runs r JOIN chats c ON c.pk = r.chat_pk WHERE `+where+` ORDER BY r.started_at, r.pk`, args...)
	if err != nil {
		return nil, db.storeErr("find runs", err)
	}
	defer rows.Close()
	out := []*annals.Run{}
	for rows.Next() {
		var r annals.Run
		var status, kind string
		var started int64
		var ended *int64
		if err := rows.Scan(&r.ID, &r.ChatID, &status, &r.Model, &started, &ended, &r.InputTokens, &r.OutputTokens,
			&r.CacheReadTokens, &r.CacheCreationTokens, &r.ContextTokens, &r.CostUSD, &kind); err != nil {
			return nil, db.storeErr("scan run", err)
		}
		r.CostUSD = annals.FiniteCost(r.CostUSD)
		r.Status, r.Kind = annals.RunStatus(status), annals.RunKind(kind)
		r.StartedAt = fromNano(started)
		r.EndedAt = fromNullNano(ended)
		out = append(out, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("find runs", err)
	}
	return out, nil
}
