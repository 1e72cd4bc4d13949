package storecore

import (
	"context"
	"errors"

	"github.com/annals-dev/annals"
)

// Reader is what ReadBack reads a committed op back with: the store's own reads.
type Reader interface {
	FindChatByID(ctx context.Context, id string) (*annals.Chat, error)
	FindRuns(ctx context.Context, chatID string) ([]*annals.Run, error)
}

// ReadBack fills res.Chat or res.Run for a committed batch of one chat op or one run op: the
// chat or the run as stored, which the single-op answers (annals.CreateChat, annals.RecordRun)
// return. Larger batches are left as they are.
func ReadBack(ctx context.Context, r Reader, ops []annals.CaptureOp, res *annals.CaptureResult) error {
	if len(ops) != 1 {
		return nil
	}
	switch op := ops[0]; {
	case op.Chat != nil:
		c, err := r.FindChatByID(ctx, op.Chat.ID)
		if err != nil {
			return err
		}
		res.Chat = c
	case op.Run != nil:
		runs, err := r.FindRuns(ctx, op.Run.ChatID)
		if err != nil {
			return err
		}
		for _, run := range runs {
			if run.ID == op.Run.ID {
				res.Run = run
				return nil
			}
		}
		return annals.Internal("record run", errors.New("run vanished after commit"))
	}
	return nil
}
