// Package storecore is what the SQLite and PostgreSQL stores share beyond their SQL: the
// single-op capture methods over a store's one write method, the migration runner's bookkeeping
// and the WHERE builder with the owner constraint. It imports only the root.
package storecore

import (
	"context"
	"errors"

	"github.com/annals-dev/annals"
)

// capturer is what the single-op methods need of a store: its one write method and two reads.
type capturer interface {
	Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error)
	FindChatByID(ctx context.Context, id string) (*annals.Chat, error)
	FindRuns(ctx context.Context, chatID string) ([]*annals.Run, error)
}

// captureOne runs a single op and unwraps the batch error, since a one-op batch has no index
// worth reporting.
func captureOne(ctx context.Context, s capturer, op annals.CaptureOp) (*annals.CaptureResult, error) {
	res, err := s.Capture(ctx, []annals.CaptureOp{op})
	var be *annals.BatchError
	if errors.As(err, &be) {
		return nil, be.Err
	}
	return res, err
}

// CreateChat is annals.CaptureStore.CreateChat over Capture: it creates the chat idempotently
// and returns it as stored.
func CreateChat(ctx context.Context, s capturer, chat *annals.Chat) (*annals.Chat, error) {
	if chat == nil {
		return nil, annals.Errorf(annals.EINVALID, "chat is required")
	}
	if _, err := captureOne(ctx, s, annals.CaptureOp{Chat: chat}); err != nil {
		return nil, err
	}
	return s.FindChatByID(ctx, chat.ID)
}

// AppendEntries is annals.CaptureStore.AppendEntries over Capture. The last seq is the one the
// append left inside its transaction, whatever a concurrent writer did next.
func AppendEntries(ctx context.Context, s capturer, chatID string, entries []*annals.Entry) (*annals.AppendResult, error) {
	res, err := captureOne(ctx, s, annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: entries}})
	if err != nil {
		return nil, err
	}
	return &annals.AppendResult{Appended: res.EntriesAppended, Skipped: res.EntriesSkipped, LastSeq: res.LastSeq}, nil
}

// TruncateChat is annals.CaptureStore.TruncateChat over Capture.
func TruncateChat(ctx context.Context, s capturer, chatID string, point annals.TruncatePoint) (*annals.TruncateResult, error) {
	res, err := captureOne(ctx, s, annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: chatID, Point: point}})
	if err != nil {
		return nil, err
	}
	return &annals.TruncateResult{Removed: res.EntriesRemoved, LastSeq: res.LastSeq}, nil
}

// RecordRun is annals.CaptureStore.RecordRun over Capture: it upserts the run and returns it as
// stored.
func RecordRun(ctx context.Context, s capturer, run *annals.Run) (*annals.Run, error) {
	if run == nil {
		return nil, annals.Errorf(annals.EINVALID, "run is required")
	}
	if _, err := captureOne(ctx, s, annals.CaptureOp{Run: run}); err != nil {
		return nil, err
	}
	runs, err := s.FindRuns(ctx, run.ChatID)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.ID == run.ID {
			return r, nil
		}
	}
	return nil, annals.Internal("record run", errors.New("run vanished after commit"))
}
