// Package connect serves the annals history over Connect, gRPC and gRPC-Web from one handler
// (proto/annals/v1, docs/CONNECT.md), and is the Go client of that API.
//
// The Handler is a thin adapter like every transport: it decodes the protobuf request, calls
// the history the HTTP server's door bound to the request's caller (history.CallerFromContext:
// the same API keys, scopes and refusals as the HTTP API) and encodes the answer. The op
// envelope is decoded and run by package envelope, the capture ops checked by the history
// service. Errors go out with the Connect/gRPC code of their annals code (CodeOf, the one
// mapping) and an ErrorInfo detail with the annals code itself.
package connect

import (
	"context"
	"encoding/json"
	"net/http"

	rpc "connectrpc.com/connect"

	"github.com/annals-dev/annals"
	v1 "github.com/annals-dev/annals/connect/annalsv1"
	"github.com/annals-dev/annals/connect/annalsv1/annalsv1connect"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
)

// Handler serves annals.v1.HistoryService. It is mounted by the HTTP server (httpapi.Config.RPC)
// behind its authentication, which puts the caller's door in each request's context.
type Handler struct {
	path   string
	h      http.Handler
	errors *rpc.ErrorWriter
}

var _ annalsv1connect.HistoryServiceHandler = service{}

// NewHandler returns the handler of annals.v1.HistoryService.
func NewHandler() *Handler {
	path, h := annalsv1connect.NewHistoryServiceHandler(service{}, rpc.WithInterceptors(errorInterceptor{}))
	return &Handler{path: path, h: h, errors: rpc.NewErrorWriter()}
}

// Prefix is the path the handler serves: "/annals.v1.HistoryService/".
func (h *Handler) Prefix() string { return h.path }

// ServeHTTP serves one call (Connect, gRPC or gRPC-Web).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// service implements the RPCs over the caller in the context.
type service struct{}

// caller is the history bound to the request's caller by the HTTP server's door
// (errorInterceptor refuses a call that arrives without one).
func caller(ctx context.Context) *history.Caller { return history.CallerFromContext(ctx) }

func (service) History(ctx context.Context, req *rpc.Request[v1.HistoryRequest]) (*rpc.Response[v1.HistoryResponse], error) {
	env := envelopeOf(req.Msg)
	out, err := envelope.Dispatch(ctx, caller(ctx), env)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, annals.Internal("encode the answer", err)
	}
	return rpc.NewResponse(&v1.HistoryResponse{Op: env.Op, AnswerJson: string(b)}), nil
}

func (service) ChatRuns(ctx context.Context, req *rpc.Request[v1.ChatRunsRequest]) (*rpc.Response[v1.ChatRunsResponse], error) {
	runs, err := caller(ctx).FindChatRuns(ctx, annals.ChatSelector{Scope: annals.Scope(req.Msg.GetScope()), ID: req.Msg.GetSessionId()})
	if err != nil {
		return nil, err
	}
	out := &v1.ChatRunsResponse{Runs: make([]*v1.Run, len(runs))}
	for i, r := range runs {
		out.Runs[i] = runMsg(r)
	}
	return rpc.NewResponse(out), nil
}

func (service) Capture(ctx context.Context, req *rpc.Request[v1.CaptureRequest]) (*rpc.Response[v1.CaptureResponse], error) {
	if len(req.Msg.GetOps()) == 0 {
		return nil, annals.Errorf(annals.EINVALID, "ops must hold at least one capture op")
	}
	ops := make([]annals.CaptureOp, len(req.Msg.GetOps()))
	for i, m := range req.Msg.GetOps() {
		ops[i] = opOf(m)
	}
	res, err := caller(ctx).Capture(ctx, ops)
	if err != nil {
		return nil, err
	}
	return rpc.NewResponse(resultMsg(res)), nil
}

func (service) CreateChat(ctx context.Context, req *rpc.Request[v1.CreateChatRequest]) (*rpc.Response[v1.CreateChatResponse], error) {
	if req.Msg.GetChat() == nil {
		return nil, annals.Errorf(annals.EINVALID, "chat is required")
	}
	res, err := caller(ctx).Capture(ctx, []annals.CaptureOp{{Chat: chatOf(req.Msg.GetChat())}})
	if err != nil {
		return nil, annals.Unbatch(err)
	}
	return rpc.NewResponse(&v1.CreateChatResponse{Chat: chatMsg(res.Chat), Created: res.ChatsCreated > 0}), nil
}

func (service) AppendEntries(ctx context.Context, req *rpc.Request[v1.AppendEntriesRequest]) (*rpc.Response[v1.AppendEntriesResponse], error) {
	res, err := annals.AppendEntries(ctx, caller(ctx), req.Msg.GetChatId(), entriesOf(req.Msg.GetEntries()))
	if err != nil {
		return nil, err
	}
	return rpc.NewResponse(&v1.AppendEntriesResponse{Appended: int64(res.Appended), Skipped: int64(res.Skipped), LastSeq: res.LastSeq}), nil
}

func (service) TruncateChat(ctx context.Context, req *rpc.Request[v1.TruncateChatRequest]) (*rpc.Response[v1.TruncateChatResponse], error) {
	res, err := annals.TruncateChat(ctx, caller(ctx), req.Msg.GetChatId(), pointOf(req.Msg.GetPoint()))
	if err != nil {
		return nil, err
	}
	return rpc.NewResponse(&v1.TruncateChatResponse{Removed: int64(res.Removed), LastSeq: res.LastSeq}), nil
}

func (service) RecordRun(ctx context.Context, req *rpc.Request[v1.RecordRunRequest]) (*rpc.Response[v1.RecordRunResponse], error) {
	run, err := annals.RecordRun(ctx, caller(ctx), runOf(req.Msg.GetRun()))
	if err != nil {
		return nil, err
	}
	return rpc.NewResponse(&v1.RecordRunResponse{Run: runMsg(run)}), nil
}

func (service) Version(context.Context, *rpc.Request[v1.VersionRequest]) (*rpc.Response[v1.VersionResponse], error) {
	return rpc.NewResponse(&v1.VersionResponse{ApiVersion: annals.APIVersion}), nil
}

// errorInterceptor refuses a call without a caller and turns every error an RPC returns into
// the Connect error of its annals code.
type errorInterceptor struct{}

func (errorInterceptor) WrapUnary(next rpc.UnaryFunc) rpc.UnaryFunc {
	return func(ctx context.Context, req rpc.AnyRequest) (rpc.AnyResponse, error) {
		if caller(ctx) == nil {
			// Mounted without the HTTP server's authentication: nobody may call.
			return nil, rpcError(annals.Errorf(httpapi.CodeUnauthorized, "a valid API key is required"))
		}
		res, err := next(ctx, req)
		if err != nil {
			return nil, rpcError(err)
		}
		return res, nil
	}
}

func (errorInterceptor) WrapStreamingClient(next rpc.StreamingClientFunc) rpc.StreamingClientFunc {
	return next
}

func (errorInterceptor) WrapStreamingHandler(next rpc.StreamingHandlerFunc) rpc.StreamingHandlerFunc {
	return next
}
