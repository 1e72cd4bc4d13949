package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	rpc "connectrpc.com/connect"

	"github.com/annals-dev/annals"
	v1 "github.com/annals-dev/annals/connect/annalsv1"
	"github.com/annals-dev/annals/connect/annalsv1/annalsv1connect"
	"github.com/annals-dev/annals/envelope"
)

// Protocol is the wire protocol a Client speaks; the server answers all three on one port.
type Protocol int

// Protocols.
const (
	// ProtocolConnect is the Connect protocol (HTTP/1.1 or HTTP/2).
	ProtocolConnect Protocol = iota
	// ProtocolGRPC is gRPC, over HTTP/2 (h2c on http:// URLs).
	ProtocolGRPC
	// ProtocolGRPCWeb is gRPC-Web.
	ProtocolGRPCWeb
)

// Client is the annals history over the Connect API: it implements annals.HistoryService (so
// annals.CaptureStore too), like the HTTP client, so a program written against the root
// interface runs unchanged over either. Errors are *annals.Error with the server's code and
// message (a batch's failed op as *annals.BatchError); a server that lacks a call this client
// makes is named with both API versions.
type Client struct {
	// Remote sends the envelope's operations as the History RPC.
	envelope.Remote
	base string
	rpc  annalsv1connect.HistoryServiceClient
}

var _ annals.HistoryService = (*Client)(nil)

// NewClient returns a client of the server at baseURL (http://host:port), authenticating with
// key (empty for a server in local mode), speaking protocol.
func NewClient(baseURL, key string, protocol Protocol) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, annals.Errorf(annals.EINVALID, "server URL %q must be http://host:port or https://host:port", baseURL)
	}
	if key != "" && !annals.WellFormedKeySecret(key) {
		return nil, annals.Errorf(annals.EINVALID, "the API key is not one 'annals keys create' made (it starts with %s)", annals.KeySecretPrefix)
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	opts := []rpc.ClientOption{rpc.WithInterceptors(clientInterceptor{key: key, base: u.String()})}
	switch protocol {
	case ProtocolGRPC:
		// gRPC needs HTTP/2: over http:// that is h2c, with prior knowledge.
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetUnencryptedHTTP2(true)
		tr.Protocols.SetHTTP2(true)
		opts = append(opts, rpc.WithGRPC())
	case ProtocolGRPCWeb:
		opts = append(opts, rpc.WithGRPCWeb())
	}
	base := strings.TrimRight(u.String(), "/")
	c := &Client{base: base, rpc: annalsv1connect.NewHistoryServiceClient(&http.Client{Transport: tr}, base, opts...)}
	c.Remote = envelope.Remote{Send: c.history}
	return c, nil
}

// URL returns the server's base URL.
func (c *Client) URL() string { return c.base }

// history sends one envelope as the History RPC and decodes its answer into out.
func (c *Client) history(ctx context.Context, req *envelope.Request, out any) error {
	res, err := c.rpc.History(ctx, rpc.NewRequest(historyRequestOf(req)))
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(res.Msg.GetAnswerJson()), out); err != nil {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("the server's answer to %s is not valid JSON", req.Op), Err: err}
	}
	return nil
}

// FindChatRuns returns a chat's runs, oldest first.
func (c *Client) FindChatRuns(ctx context.Context, sel annals.ChatSelector) ([]*annals.Run, error) {
	res, err := c.rpc.ChatRuns(ctx, rpc.NewRequest(&v1.ChatRunsRequest{Scope: string(sel.Scope), SessionId: sel.ID}))
	if err != nil {
		return nil, err
	}
	runs := make([]*annals.Run, len(res.Msg.GetRuns()))
	for i, m := range res.Msg.GetRuns() {
		runs[i] = runOf(m)
	}
	return runs, nil
}

// Capture applies ops in one transaction on the server. A batch of one op answers what it
// stored (the chat, the run, the last seq), so annals.CreateChat and the other single-op
// functions work over it.
func (c *Client) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if len(ops) == 0 {
		return &annals.CaptureResult{}, nil
	}
	msg := &v1.CaptureRequest{Ops: make([]*v1.CaptureOp, len(ops))}
	for i, op := range ops {
		msg.Ops[i] = opMsg(op)
	}
	res, err := c.rpc.Capture(ctx, rpc.NewRequest(msg))
	if err != nil {
		return nil, err
	}
	return resultOf(res.Msg), nil
}

// ServerVersion asks the server for its API version.
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	res, err := c.rpc.Version(ctx, rpc.NewRequest(&v1.VersionRequest{}))
	if err != nil {
		return "", err
	}
	return res.Msg.GetApiVersion(), nil
}

// clientInterceptor authenticates every call, names the client's API version, and turns the
// server's errors into *annals.Error.
type clientInterceptor struct {
	key, base string
}

func (i clientInterceptor) WrapUnary(next rpc.UnaryFunc) rpc.UnaryFunc {
	return func(ctx context.Context, req rpc.AnyRequest) (rpc.AnyResponse, error) {
		if i.key != "" {
			req.Header().Set("Authorization", "Bearer "+i.key)
		}
		req.Header().Set(annals.APIVersionHeader, annals.APIVersion)
		res, err := next(ctx, req)
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was cancelled or timed out", Err: err}
		}
		return nil, annalsError(req.Spec().Procedure, err)
	}
}

func (i clientInterceptor) WrapStreamingClient(next rpc.StreamingClientFunc) rpc.StreamingClientFunc {
	return next
}

func (i clientInterceptor) WrapStreamingHandler(next rpc.StreamingHandlerFunc) rpc.StreamingHandlerFunc {
	return next
}
