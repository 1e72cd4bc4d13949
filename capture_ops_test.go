package annals_test

import (
	"context"
	"errors"
	"testing"

	"github.com/annals-dev/annals"
)

// oneMethodStore implements only Capture and the two reads; CaptureOps makes it a CaptureStore.
type oneMethodStore struct {
	ops  []annals.CaptureOp
	fail error
}

func (s *oneMethodStore) Capture(_ context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if s.fail != nil {
		return nil, &annals.BatchError{Index: 0, Err: s.fail}
	}
	s.ops = append(s.ops, ops...)
	return &annals.CaptureResult{EntriesAppended: 2, LastSeq: 7}, nil
}

func (s *oneMethodStore) FindChatByID(_ context.Context, id string) (*annals.Chat, error) {
	return &annals.Chat{ID: id, Title: "as stored"}, nil
}

func (s *oneMethodStore) FindRuns(_ context.Context, chatID string) ([]*annals.Run, error) {
	return []*annals.Run{{ID: "r1", ChatID: chatID, Status: annals.StatusCompleted}}, nil
}

func TestCaptureOpsMakeAnyCapturerACaptureStore(t *testing.T) {
	s := &oneMethodStore{}
	var cs annals.CaptureStore = annals.CaptureOps{Store: s}
	ctx := context.Background()
	chat, err := cs.CreateChat(ctx, &annals.Chat{ID: "c1"})
	if err != nil || chat.Title != "as stored" {
		t.Fatalf("create: %+v %v", chat, err)
	}
	app, err := cs.AppendEntries(ctx, "c1", []*annals.Entry{{ID: "e1"}, {ID: "e2"}})
	if err != nil || app.Appended != 2 || app.LastSeq != 7 {
		t.Fatalf("append: %+v %v", app, err)
	}
	run, err := cs.RecordRun(ctx, &annals.Run{ID: "r1", ChatID: "c1"})
	if err != nil || run.Status != annals.StatusCompleted {
		t.Fatalf("run: %+v %v", run, err)
	}
	if len(s.ops) != 3 || s.ops[0].Chat == nil || s.ops[1].Append == nil || s.ops[2].Run == nil {
		t.Fatalf("each call is one op through Capture: %+v", s.ops)
	}
	// A one-op batch's error comes back without the batch wrapper.
	s.fail = annals.Errorf(annals.ENOTFOUND, "no chat c9")
	_, err = cs.TruncateChat(ctx, "c9", annals.TruncatePoint{})
	var be *annals.BatchError
	if annals.ErrorCode(err) != annals.ENOTFOUND || errors.As(err, &be) {
		t.Fatalf("truncate error: %v", err)
	}
}
