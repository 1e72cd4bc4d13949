package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/strictjson"
)

// bodyGuard is what every route reads its body through, whatever decoder it hands the body to:
// JSON nested deeper than strictjson.MaxDepth fails the read before a decoder sees it, and a body
// still arriving at the request's deadline fails with the timeout rather than a JSON error.
type bodyGuard struct {
	depth   *strictjson.DepthReader
	closer  io.Closer
	ctx     context.Context
	timeout time.Duration
	err     error // the first refusal: too deep, or the deadline
}

func newBodyGuard(ctx context.Context, body io.ReadCloser, timeout time.Duration) *bodyGuard {
	return &bodyGuard{depth: strictjson.NewDepthReader(body, strictjson.MaxDepth), closer: body, ctx: ctx, timeout: timeout}
}

func (g *bodyGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.ctx.Err() != nil {
		g.err = stoppedAt(g.ctx, g.timeout)
		return 0, g.err
	}
	n, err := g.depth.Read(p)
	switch {
	case g.depth.Err() != nil:
		g.err = g.depth.Err()
	case err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || g.ctx.Err() != nil):
		// The connection's read deadline (the request timeout) passed mid-body.
		g.err = timedOut(g.timeout)
	}
	if g.err != nil {
		return n, g.err
	}
	return n, err
}

func (g *bodyGuard) Close() error { return g.closer.Close() }

// timedOut is the error of a request stopped at the server's request timeout.
func timedOut(timeout time.Duration) error {
	return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("the request was stopped at the server's request timeout (%s, --request-timeout) before it was done", timeout), Err: context.DeadlineExceeded}
}

// stoppedAt is the error of work cut short because ctx ended: the timeout's when the deadline
// passed, a cancellation's when the client went away.
func stoppedAt(ctx context.Context, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return timedOut(timeout)
	}
	return &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was cancelled before it was done", Err: ctx.Err()}
}
