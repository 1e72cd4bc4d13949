package history_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// writesCounted is a history service that counts the writes that reach it.
type writesCounted struct {
	annals.HistoryService
	writes int
}

func (w *writesCounted) RenameChat(context.Context, annals.ChatSelector, string) (*annals.Chat, error) {
	w.writes++
	return &annals.Chat{}, nil
}

func (w *writesCounted) RecapChat(context.Context, annals.ChatSelector) (*annals.Recap, error) {
	w.writes++
	return &annals.Recap{}, nil
}

func (w *writesCounted) DeleteChat(context.Context, annals.ChatSelector) error {
	w.writes++
	return nil
}

func TestReadOnlyServiceRefusesEveryWriteBeforeItIsSent(t *testing.T) {
	inner := &writesCounted{}
	ro := history.ReadOnlyService(inner)
	ctx := context.Background()
	sel := annals.ChatSelector{ID: "c1"}
	checks := map[string]error{}
	_, checks["rename"] = ro.RenameChat(ctx, sel, "x")
	_, checks["annotate"] = ro.AnnotateChat(ctx, sel, annals.Annotation{})
	_, checks["pin"] = ro.PinChat(ctx, sel, true)
	_, checks["archive"] = ro.ArchiveChat(ctx, sel, true)
	_, checks["recap"] = ro.RecapChat(ctx, sel)
	checks["delete"] = ro.DeleteChat(ctx, sel)
	_, checks["capture"] = ro.Capture(ctx, nil)
	_, checks["create"] = ro.CreateChat(ctx, &annals.Chat{ID: "c2"})
	_, checks["append"] = ro.AppendEntries(ctx, "c1", nil)
	_, checks["truncate"] = ro.TruncateChat(ctx, "c1", annals.TruncatePoint{})
	_, checks["run"] = ro.RecordRun(ctx, &annals.Run{})
	for op, err := range checks {
		if annals.ErrorCode(err) != annals.EFORBIDDEN {
			t.Errorf("%s through the read-only view: %v, want forbidden", op, err)
		}
	}
	// An envelope's write op is refused the same way.
	if _, err := envelope.Dispatch(ctx, ro, &envelope.Request{Op: history.OpRecap, SessionID: "c1"}); annals.ErrorCode(err) != annals.EFORBIDDEN {
		t.Errorf("envelope recap: %v", err)
	}
	if inner.writes != 0 {
		t.Fatalf("%d writes reached the service behind the read-only view", inner.writes)
	}
}
