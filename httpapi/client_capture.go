package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/annals-dev/annals"
)

// The client's capture path: annals.CaptureStore's one method over HTTP.

// Capture applies ops: a batch of one op through that op's own route (POST /v1/sessions,
// /v1/sessions/{id}/entries, /v1/sessions/{id}/truncate, /v1/runs), which answers what the op
// stored, so the single-op functions (annals.CreateChat, ...) get the chat, the run or the last
// seq; any other batch through POST /v1/capture. A batch whose JSON exceeds MaxBatchBytes is
// split into several requests, each one transaction on the server: when a later part fails, the
// parts before it stay committed. The error of a failed op is an *annals.BatchError whose Index
// is the op's position in ops.
func (c *Client) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if len(ops) == 1 {
		return c.captureOne(ctx, &ops[0])
	}
	return c.captureBatch(ctx, ops)
}

// captureBatch applies ops through POST /v1/capture, split to fit MaxBatchBytes.
func (c *Client) captureBatch(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	total := &annals.CaptureResult{}
	limit := c.MaxBatchBytes
	if limit <= 0 {
		limit = DefaultClientBatchBytes
	}
	var (
		parts [][]byte
		start int
	)
	flush := func(end int) error {
		if len(parts) == 0 {
			return nil
		}
		body := append([]byte(`{"ops":[`), bytes.Join(parts, []byte(","))...)
		body = append(body, "]}"...)
		var res annals.CaptureResult
		err := c.call(ctx, http.MethodPost, "/v1/capture", body, "application/json", &res)
		if err != nil {
			var be *annals.BatchError
			if errors.As(err, &be) {
				return &annals.BatchError{Index: start + be.Index, Err: be.Err}
			}
			return err
		}
		total.Add(res)
		parts, start = nil, end
		return nil
	}
	size := 0
	for i := range ops {
		b, err := json.Marshal(&ops[i])
		if err != nil {
			return nil, &annals.BatchError{Index: i, Err: annals.Errorf(annals.EINVALID, "cannot encode op: %v", err)}
		}
		if len(parts) > 0 && size+len(b)+16 > limit {
			if err := flush(i); err != nil {
				return total, err
			}
			size = 0
		}
		parts = append(parts, b)
		size += len(b) + 1
	}
	if err := flush(len(ops)); err != nil {
		return total, err
	}
	return total, nil
}

// captureOne applies one op through its own route. An error the server gives the op is an
// *annals.BatchError with Index 0, as from POST /v1/capture.
func (c *Client) captureOne(ctx context.Context, op *annals.CaptureOp) (*annals.CaptureResult, error) {
	var (
		res *annals.CaptureResult
		err error
	)
	switch {
	case op.Chat != nil:
		res, err = c.createChat(ctx, op.Chat)
	case op.Append != nil:
		res, err = c.appendEntries(ctx, op.Append.ChatID, op.Append.Entries)
	case op.Truncate != nil:
		res, err = c.truncateChat(ctx, op.Truncate.ChatID, op.Truncate.Point)
	case op.Run != nil:
		res, err = c.recordRun(ctx, op.Run)
	default:
		return c.captureBatch(ctx, []annals.CaptureOp{*op}) // the server names what is wrong
	}
	switch annals.ErrorCode(err) {
	case annals.EINVALID, annals.ENOTFOUND, annals.ECONFLICT, annals.EFORBIDDEN:
		return nil, &annals.BatchError{Index: 0, Err: err}
	}
	return res, err
}

// createChat creates a chat through POST /v1/sessions.
func (c *Client) createChat(ctx context.Context, chat *annals.Chat) (*annals.CaptureResult, error) {
	rec := chatRecord{ID: chat.ID, TenantID: chat.TenantID, UserID: chat.UserID, AgentID: chat.AgentID,
		Attributes: chat.Attributes, Title: chat.Title, Description: chat.Description, Tags: chat.Tags}
	if !chat.CreatedAt.IsZero() {
		rec.CreatedAt = &chat.CreatedAt
	}
	var out ChatAnswer
	if err := c.postJSON(ctx, "/v1/sessions", rec, &out); err != nil {
		return nil, err
	}
	res := &annals.CaptureResult{Chat: out.Chat, ChatsUnchanged: 1}
	if out.Created {
		res.ChatsCreated, res.ChatsUnchanged = 1, 0
	}
	return res, nil
}

// appendEntries appends entries through POST /v1/sessions/{id}/entries.
func (c *Client) appendEntries(ctx context.Context, chatID string, entries []*annals.Entry) (*annals.CaptureResult, error) {
	recs := make([]entryRecord, len(entries))
	for i, e := range entries {
		if e == nil {
			return nil, annals.Errorf(annals.EINVALID, "entries[%d] is null", i)
		}
		recs[i] = entryRecord{ID: e.ID, Kind: string(e.Kind), RunID: e.RunID, SourceIDs: e.SourceIDs, Channel: e.Channel,
			CorrelationID: e.CorrelationID, Text: e.Text, Reasoning: e.Reasoning, Tool: e.Tool,
			InputTokens: e.InputTokens, OutputTokens: e.OutputTokens, Metadata: e.Metadata}
		if !e.Time.IsZero() {
			t := e.Time
			recs[i].Time = &t
		}
	}
	var out annals.AppendResult
	if err := c.postJSON(ctx, "/v1/sessions/"+url.PathEscape(chatID)+"/entries", map[string]any{"entries": recs}, &out); err != nil {
		return nil, err
	}
	return &annals.CaptureResult{EntriesAppended: out.Appended, EntriesSkipped: out.Skipped, LastSeq: out.LastSeq}, nil
}

// truncateChat rewinds a chat through POST /v1/sessions/{id}/truncate.
func (c *Client) truncateChat(ctx context.Context, chatID string, p annals.TruncatePoint) (*annals.CaptureResult, error) {
	var out annals.TruncateResult
	if err := c.postJSON(ctx, "/v1/sessions/"+url.PathEscape(chatID)+"/truncate", p, &out); err != nil {
		return nil, err
	}
	return &annals.CaptureResult{EntriesRemoved: out.Removed, LastSeq: out.LastSeq}, nil
}

// recordRun records a run through POST /v1/runs.
func (c *Client) recordRun(ctx context.Context, run *annals.Run) (*annals.CaptureResult, error) {
	rec := runRecord{ID: run.ID, ChatID: run.ChatID, Status: string(run.Status), Model: run.Model, EndedAt: run.EndedAt,
		InputTokens: run.InputTokens, OutputTokens: run.OutputTokens, CostUSD: run.CostUSD}
	if !run.StartedAt.IsZero() {
		rec.StartedAt = &run.StartedAt
	}
	var out RunAnswer
	if err := c.postJSON(ctx, "/v1/runs", rec, &out); err != nil {
		return nil, err
	}
	return &annals.CaptureResult{Run: out.Run, RunsRecorded: 1}, nil
}
