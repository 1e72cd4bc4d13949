package annals

import (
	"context"
	"errors"
)

// The single-op capture conveniences, written once over any CaptureStore: each is a batch of
// one op through Capture, answered from its CaptureResult.

// Unbatch returns the op's own error of a one-op batch: a *BatchError's cause (its index says
// nothing when there is one op), any other error as it is.
func Unbatch(err error) error {
	var be *BatchError
	if errors.As(err, &be) {
		return be.Err
	}
	return err
}

// captureOne runs a single op; its error is the op's own.
func captureOne(ctx context.Context, c CaptureStore, op CaptureOp) (*CaptureResult, error) {
	res, err := c.Capture(ctx, []CaptureOp{op})
	if err != nil {
		return nil, Unbatch(err)
	}
	if res == nil {
		res = &CaptureResult{}
	}
	return res, nil
}

// CreateChat creates chat through c, idempotently (see CaptureOp.Chat), and returns it as
// stored; as given when c does not report it (best-effort capture that recorded nothing).
func CreateChat(ctx context.Context, c CaptureStore, chat *Chat) (*Chat, error) {
	if chat == nil {
		return nil, Errorf(EINVALID, "chat is required")
	}
	res, err := captureOne(ctx, c, CaptureOp{Chat: chat})
	if err != nil {
		return nil, err
	}
	if res.Chat == nil {
		return chat, nil
	}
	return res.Chat, nil
}

// AppendEntries appends entries to a chat through c. The last seq is the one the append left
// inside its transaction, whatever a concurrent writer did next.
func AppendEntries(ctx context.Context, c CaptureStore, chatID string, entries []*Entry) (*AppendResult, error) {
	res, err := captureOne(ctx, c, CaptureOp{Append: &AppendOp{ChatID: chatID, Entries: entries}})
	if err != nil {
		return nil, err
	}
	return &AppendResult{Appended: res.EntriesAppended, Skipped: res.EntriesSkipped, LastSeq: res.LastSeq}, nil
}

// TruncateChat rewinds a chat through c.
func TruncateChat(ctx context.Context, c CaptureStore, chatID string, point TruncatePoint) (*TruncateResult, error) {
	res, err := captureOne(ctx, c, CaptureOp{Truncate: &TruncateOp{ChatID: chatID, Point: point}})
	if err != nil {
		return nil, err
	}
	return &TruncateResult{Removed: res.EntriesRemoved, LastSeq: res.LastSeq}, nil
}

// RecordRun inserts or updates a run through c and returns it as stored; as given when c does
// not report it.
func RecordRun(ctx context.Context, c CaptureStore, run *Run) (*Run, error) {
	if run == nil {
		return nil, Errorf(EINVALID, "run is required")
	}
	res, err := captureOne(ctx, c, CaptureOp{Run: run})
	if err != nil {
		return nil, err
	}
	if res.Run == nil {
		return run, nil
	}
	return res.Run, nil
}
