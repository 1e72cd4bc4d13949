package annals

import (
	"context"
	"errors"
)

// CaptureOpsStore is what the single-op capture methods need of a store: its one write method,
// and the two reads that return what was written as stored.
type CaptureOpsStore interface {
	Capturer
	FindChatByID(ctx context.Context, id string) (*Chat, error)
	FindRuns(ctx context.Context, chatID string) ([]*Run, error)
}

// CaptureOps gives a store's one write method the single-op methods of CaptureStore, each one
// op through Capture: a store implements Capture (and its reads), and CaptureOps{Store: s} is a
// whole CaptureStore. Consumers that need only Capture declare Capturer.
type CaptureOps struct{ Store CaptureOpsStore }

var _ CaptureStore = CaptureOps{}

// Capture is the store's own.
func (c CaptureOps) Capture(ctx context.Context, ops []CaptureOp) (*CaptureResult, error) {
	return c.Store.Capture(ctx, ops)
}

// captureOne runs a single op and unwraps the batch error, since a one-op batch has no index
// worth reporting.
func captureOne(ctx context.Context, s Capturer, op CaptureOp) (*CaptureResult, error) {
	res, err := s.Capture(ctx, []CaptureOp{op})
	var be *BatchError
	if errors.As(err, &be) {
		return nil, be.Err
	}
	return res, err
}

// CreateChat creates the chat idempotently through Capture and returns it as stored.
func (c CaptureOps) CreateChat(ctx context.Context, chat *Chat) (*Chat, error) {
	s := c.Store
	if chat == nil {
		return nil, Errorf(EINVALID, "chat is required")
	}
	if _, err := captureOne(ctx, s, CaptureOp{Chat: chat}); err != nil {
		return nil, err
	}
	return s.FindChatByID(ctx, chat.ID)
}

// AppendEntries appends through Capture. The last seq is the one the append left inside its
// transaction, whatever a concurrent writer did next.
func (c CaptureOps) AppendEntries(ctx context.Context, chatID string, entries []*Entry) (*AppendResult, error) {
	s := c.Store
	res, err := captureOne(ctx, s, CaptureOp{Append: &AppendOp{ChatID: chatID, Entries: entries}})
	if err != nil {
		return nil, err
	}
	return &AppendResult{Appended: res.EntriesAppended, Skipped: res.EntriesSkipped, LastSeq: res.LastSeq}, nil
}

// TruncateChat rewinds a chat through Capture.
func (c CaptureOps) TruncateChat(ctx context.Context, chatID string, point TruncatePoint) (*TruncateResult, error) {
	s := c.Store
	res, err := captureOne(ctx, s, CaptureOp{Truncate: &TruncateOp{ChatID: chatID, Point: point}})
	if err != nil {
		return nil, err
	}
	return &TruncateResult{Removed: res.EntriesRemoved, LastSeq: res.LastSeq}, nil
}

// RecordRun upserts the run through Capture and returns it as stored.
func (c CaptureOps) RecordRun(ctx context.Context, run *Run) (*Run, error) {
	s := c.Store
	if run == nil {
		return nil, Errorf(EINVALID, "run is required")
	}
	if _, err := captureOne(ctx, s, CaptureOp{Run: run}); err != nil {
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
	return nil, Internal("record run", errors.New("run vanished after commit"))
}
