package annals_test

import (
	"context"
	"errors"
	"testing"

	"github.com/annals-dev/annals"
)

// oneMethodStore implements only Capture, answering a one-op batch with what it stored.
type oneMethodStore struct {
	ops  []annals.CaptureOp
	fail error
}

func (s *oneMethodStore) Capture(_ context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if s.fail != nil {
		return nil, &annals.BatchError{Index: 0, Err: s.fail}
	}
	s.ops = append(s.ops, ops...)
	res := &annals.CaptureResult{EntriesAppended: 2, LastSeq: 7}
	switch {
	case ops[0].Chat != nil:
		res.Chat = &annals.Chat{ID: ops[0].Chat.ID, Title: "as stored"}
	case ops[0].Run != nil:
		res.Run = &annals.Run{ID: ops[0].Run.ID, ChatID: ops[0].Run.ChatID, Status: annals.StatusCompleted}
	}
	return res, nil
}

func TestSingleOpFunctionsWorkOverAnyCaptureStore(t *testing.T) {
	s := &oneMethodStore{}
	var cs annals.CaptureStore = s
	ctx := context.Background()
	chat, err := annals.CreateChat(ctx, cs, &annals.Chat{ID: "c1"})
	if err != nil || chat.Title != "as stored" {
		t.Fatalf("create: %+v %v", chat, err)
	}
	app, err := annals.AppendEntries(ctx, cs, "c1", []*annals.Entry{{ID: "e1"}, {ID: "e2"}})
	if err != nil || app.Appended != 2 || app.LastSeq != 7 {
		t.Fatalf("append: %+v %v", app, err)
	}
	run, err := annals.RecordRun(ctx, cs, &annals.Run{ID: "r1", ChatID: "c1"})
	if err != nil || run.Status != annals.StatusCompleted {
		t.Fatalf("run: %+v %v", run, err)
	}
	if len(s.ops) != 3 || s.ops[0].Chat == nil || s.ops[1].Append == nil || s.ops[2].Run == nil {
		t.Fatalf("each call is one op through Capture: %+v", s.ops)
	}
	// A one-op batch's error comes back without the batch wrapper.
	s.fail = annals.Errorf(annals.ENOTFOUND, "no chat c9")
	_, err = annals.TruncateChat(ctx, cs, "c9", annals.TruncatePoint{})
	var be *annals.BatchError
	if annals.ErrorCode(err) != annals.ENOTFOUND || errors.As(err, &be) {
		t.Fatalf("truncate error: %v", err)
	}
}
