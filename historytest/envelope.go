package historytest

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

// service is a history service with the op envelope's calls beside its typed ones, for the
// suite's envelope cases: each runs its request through envelope.Dispatch, the one path every
// transport that speaks the envelope takes, with the request's op set to the call's.
type service struct{ *history.Service }

func newService(cfg history.Config) service { return service{history.New(cfg)} }

// dispatch runs req as op against svc and returns the op's answer.
func dispatch[T any](ctx context.Context, svc annals.HistoryService, op string, req *envelope.Request) (T, error) {
	var zero T
	if req == nil {
		return zero, annals.Errorf(annals.EINVALID, "the request is empty")
	}
	r := *req
	r.Op = op
	out, err := envelope.Dispatch(ctx, svc, &r)
	if err != nil {
		return zero, err
	}
	return out.(T), nil
}

// Do dispatches req on its own op.
func (s service) Do(ctx context.Context, req *envelope.Request) (any, error) {
	return envelope.Dispatch(ctx, s.Service, req)
}

func (s service) List(ctx context.Context, req *envelope.Request) (*envelope.ListResponse, error) {
	return dispatch[*envelope.ListResponse](ctx, s.Service, history.OpList, req)
}

func (s service) Search(ctx context.Context, req *envelope.Request) (*envelope.SearchResponse, error) {
	return dispatch[*envelope.SearchResponse](ctx, s.Service, history.OpSearch, req)
}

func (s service) Related(ctx context.Context, req *envelope.Request) (*envelope.RelatedResponse, error) {
	return dispatch[*envelope.RelatedResponse](ctx, s.Service, history.OpRelated, req)
}

func (s service) Get(ctx context.Context, req *envelope.Request) (*envelope.GetResponse, error) {
	return dispatch[*envelope.GetResponse](ctx, s.Service, history.OpGet, req)
}

func (s service) Rename(ctx context.Context, req *envelope.Request) (*envelope.ChatResponse, error) {
	return dispatch[*envelope.ChatResponse](ctx, s.Service, history.OpRename, req)
}

func (s service) Annotate(ctx context.Context, req *envelope.Request) (*envelope.ChatResponse, error) {
	return dispatch[*envelope.ChatResponse](ctx, s.Service, history.OpAnnotate, req)
}

func (s service) Pin(ctx context.Context, req *envelope.Request) (*envelope.ChatResponse, error) {
	return dispatch[*envelope.ChatResponse](ctx, s.Service, history.OpPin, req)
}

func (s service) Archive(ctx context.Context, req *envelope.Request) (*envelope.ChatResponse, error) {
	return dispatch[*envelope.ChatResponse](ctx, s.Service, history.OpArchive, req)
}

func (s service) Recap(ctx context.Context, req *envelope.Request) (*envelope.RecapResponse, error) {
	return dispatch[*envelope.RecapResponse](ctx, s.Service, history.OpRecap, req)
}

func (s service) Resume(ctx context.Context, req *envelope.Request) (*envelope.ResumeResponse, error) {
	return dispatch[*envelope.ResumeResponse](ctx, s.Service, history.OpResume, req)
}

func (s service) Delete(ctx context.Context, req *envelope.Request) (*envelope.DeleteResponse, error) {
	return dispatch[*envelope.DeleteResponse](ctx, s.Service, history.OpDelete, req)
}

// Runs is the runs of the request's chat (GET /v1/sessions/{id}/runs).
func (s service) Runs(ctx context.Context, req *envelope.Request) ([]*annals.Run, error) {
	return s.FindChatRuns(ctx, req.Selector())
}
