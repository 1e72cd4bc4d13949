package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

// A run op upserts its run; the chat's run totals, status and last activity that follow from its
// runs are recounted once per chat at the end of the capture (recountRuns), not after every run:
// an ingest of 1,000 records holds hundreds of runs, and recounting the chat's runs after each
// one cost a statement per run over all the chat's runs (2.1 of 18.6 s of server time in a
// 5,000-entry ingest). Nothing the capture does in between reads those columns: an append moves
// last_activity by a maximum, so the order of the two writers does not matter; a truncate
// recounts entries only.

// runActivity is, for one chat, whether a run of its own (annals.RunKind "") was recorded and
// the latest start or end among the rows the upserts left, each as it was after its upsert: the
// recount after each run took the greatest of those, so the one recount takes the same.
type runActivity struct {
	own  bool
	last int64
}

func (w *writer) recordRun(run *annals.Run, expect *annals.ChatOwner, res *annals.CaptureResult) error {
	chat, err := w.findTarget(run.ChatID, expect)
	if err != nil {
		return err
	}
	started := run.StartedAt
	if started.IsZero() {
		started = w.now
	}
	var ended *int64
	if run.EndedAt != nil {
		e := unixNano(*run.EndedAt)
		ended = &e
	}
	if w.runChats == nil {
		w.runChats = map[int64]*runActivity{}
	}
	act := w.runChats[chat.pk]
	if act == nil {
		act = &runActivity{}
		w.runChats[chat.pk] = act
	}
	// On update, a zero StartedAt keeps the stored start: a run recorded as running and later as
	// completed often only knows its start the first time. The upsert is queued. Its WHERE keeps
	// a run id that belongs to another chat untouched, and then no row comes back: the op fails
	// as a conflict and the whole batch rolls back.
	slot := -1
	if w.changes != nil {
		slot = w.changes.Reserve()
	}
	conflict := func(br pgx.BatchResults) error {
		var pk, start, end int64
		var kind string
		err := br.QueryRow().Scan(&pk, &start, &kind, &end)
		if errors.Is(err, pgx.ErrNoRows) {
			return annals.Errorf(annals.ECONFLICT, "run %q already belongs to another chat", run.ID)
		}
		if err != nil {
			return err
		}
		// The status and last activity follow the chat's own runs only (annals.RunKind); a run
		// keeps the kind it was first recorded with (the upsert never changes it).
		if kind == "" {
			act.last = max(act.last, start, end)
			act.own = true
		}
		if slot >= 0 {
			// The start and kind as stored: the remote's upsert then keeps the same ones.
			cp := *run
			cp.StartedAt, cp.Kind = fromNano(start), annals.RunKind(kind)
			w.changes.Fill(slot, &annals.OpPayload{Run: &cp})
		}
		return nil
	}
	if err := w.queue(conflict, `INSERT INTO runs (id, tenant_id, chat_pk, status, model, started_at, ended_at, input_tokens, output_tokens,
			cache_read_tokens, cache_creation_tokens, context_tokens, cost_usd, kind)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status,
			model = CASE WHEN excluded.model <> '' THEN excluded.model ELSE runs.model END,
			started_at = CASE WHEN ?::boolean THEN excluded.started_at ELSE runs.started_at END,
			ended_at = coalesce(excluded.ended_at, runs.ended_at),
			input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
			cache_read_tokens = excluded.cache_read_tokens, cache_creation_tokens = excluded.cache_creation_tokens,
			context_tokens = excluded.context_tokens, cost_usd = excluded.cost_usd
		WHERE runs.chat_pk = excluded.chat_pk
		RETURNING pk, started_at, kind, coalesce(ended_at, 0)`,
		run.ID, chat.tenantID, chat.pk, string(run.Status), run.Model, unixNano(started), ended,
		run.InputTokens, run.OutputTokens, run.CacheReadTokens, run.CacheCreationTokens, run.ContextTokens,
		run.CostUSD, string(run.Kind), !run.StartedAt.IsZero()); err != nil {
		return err
	}
	res.RunsRecorded++
	return nil
}

// recountRuns brings the run totals, status and last activity of every chat the capture recorded
// runs for up to date, in one statement after the upserts (sent first: their results give the
// activity).
func (w *writer) recountRuns() error {
	if len(w.runChats) == 0 {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	pks := make([]int64, 0, len(w.runChats))
	lasts := make([]*int64, 0, len(w.runChats))
	for pk, act := range w.runChats {
		pks = append(pks, pk)
		if act.own {
			lasts = append(lasts, &act.last)
		} else {
			lasts = append(lasts, nil)
		}
	}
	w.runChats = nil
	return w.queue(execResult, `UPDATE chats SET
			run_count = (SELECT count(*) FROM runs WHERE chat_pk = chats.pk),
			run_input_tokens = (SELECT least(coalesce(sum(input_tokens), 0), 9223372036854775807) FROM runs WHERE chat_pk = chats.pk),
			run_output_tokens = (SELECT least(coalesce(sum(output_tokens), 0), 9223372036854775807) FROM runs WHERE chat_pk = chats.pk),
			cost_usd = (SELECT coalesce(sum(cost_usd), 0) FROM runs WHERE chat_pk = chats.pk),
			status = CASE WHEN EXISTS (SELECT 1 FROM runs WHERE chat_pk = chats.pk AND kind = '' AND status = 'running') THEN 'running'
				ELSE coalesce((SELECT status FROM runs WHERE chat_pk = chats.pk AND kind = '' ORDER BY started_at DESC, pk DESC LIMIT 1), '') END,
			last_activity = greatest(last_activity, x.last)
		FROM unnest(?::bigint[], ?::bigint[]) AS x(pk, last) WHERE chats.pk = x.pk`, pks, lasts)
}
