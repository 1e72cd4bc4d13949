package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// ReadOnlyService returns svc with every operation that writes refused before it reaches svc:
// rename, annotate, pin, archive, recap (which stores a summary), delete and the capture path.
// Reads pass through unchanged. It wraps any history service — the local one or the HTTP
// client of a server — so a transport that was told not to offer writes (an MCP session
// without --allow-writes) hands its callers this view, and the refusal is the service layer's,
// also for the envelope's write ops.
func ReadOnlyService(svc annals.HistoryService) annals.HistoryService {
	return readOnlyService{svc}
}

type readOnlyService struct{ annals.HistoryService }

func errReadOnlyView(op string) error {
	return annals.Errorf(annals.EFORBIDDEN, "this session is read-only: %s writes and is refused (writes need annals mcp --allow-writes, or an operator key); list, search, get, related, resume and stored recaps still work", op)
}

func (readOnlyService) RenameChat(context.Context, annals.ChatSelector, string) (*annals.Chat, error) {
	return nil, errReadOnlyView(OpRename)
}

func (readOnlyService) AnnotateChat(context.Context, annals.ChatSelector, annals.Annotation) (*annals.Chat, error) {
	return nil, errReadOnlyView(OpAnnotate)
}

func (readOnlyService) PinChat(context.Context, annals.ChatSelector, bool) (*annals.Chat, error) {
	return nil, errReadOnlyView(OpPin)
}

func (readOnlyService) ArchiveChat(context.Context, annals.ChatSelector, bool) (*annals.Chat, error) {
	return nil, errReadOnlyView(OpArchive)
}

func (readOnlyService) RecapChat(context.Context, annals.ChatSelector) (*annals.Recap, error) {
	return nil, errReadOnlyView(OpRecap)
}

func (readOnlyService) DeleteChat(context.Context, annals.ChatSelector) error {
	return errReadOnlyView(OpDelete)
}

func (readOnlyService) Capture(context.Context, []annals.CaptureOp) (*annals.CaptureResult, error) {
	return nil, errReadOnlyView("capture")
}

func (readOnlyService) CreateChat(context.Context, *annals.Chat) (*annals.Chat, error) {
	return nil, errReadOnlyView("capture")
}

func (readOnlyService) AppendEntries(context.Context, string, []*annals.Entry) (*annals.AppendResult, error) {
	return nil, errReadOnlyView("capture")
}

func (readOnlyService) TruncateChat(context.Context, string, annals.TruncatePoint) (*annals.TruncateResult, error) {
	return nil, errReadOnlyView("capture")
}

func (readOnlyService) RecordRun(context.Context, *annals.Run) (*annals.Run, error) {
	return nil, errReadOnlyView("capture")
}
