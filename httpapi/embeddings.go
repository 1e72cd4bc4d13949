package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// EmbeddingsAnswer is the answer of POST /v1/admin/embeddings: what one call of the embedding
// backfill did. Complete is false when the request's time ran out first; the chats embedded
// so far stay embedded, and calling again goes on from there.
type EmbeddingsAnswer struct {
	history.BackfillProgress
	Complete bool `json:"complete"`
}

// handleEmbeddings runs the embedding backfill (annals reindex --embeddings over HTTP) for an
// admin, within the request's time: every chat without a current vector gets one. It stops
// a little before the request deadline so that the answer still reaches the caller.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Embeddings == nil {
		return annals.Errorf(annals.EUNAVAILABLE, "this server has no embedder; configure one under embedder: in its annals config")
	}
	c := history.CallerFromContext(r.Context())
	if c == nil {
		return annals.Internal("embeddings", errors.New("no caller in the request context"))
	}
	ctx := r.Context()
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-time.Until(dl)/10))
		defer cancel()
	}
	p, err := c.Embeddings(s.cfg.Embeddings).Backfill(ctx, nil)
	if err != nil && (ctx.Err() == nil || r.Context().Err() != nil) {
		return err
	}
	return writeJSON(w, http.StatusOK, EmbeddingsAnswer{BackfillProgress: p, Complete: err == nil})
}

// Backfill runs the server's embedding backfill (POST /v1/admin/embeddings, an admin key's
// operation) until it is complete, calling progress after each request.
func (c *Client) Backfill(ctx context.Context, progress func(history.BackfillProgress)) (history.BackfillProgress, error) {
	var total history.BackfillProgress
	for {
		var a EmbeddingsAnswer
		if err := c.call(ctx, http.MethodPost, "/v1/admin/embeddings", nil, "", &a); err != nil {
			return total, err
		}
		total.Model = a.Model
		total.Embedded += a.Embedded
		total.Failed += a.Failed
		if progress != nil {
			progress(total)
		}
		if a.Complete {
			return total, nil
		}
		if a.Embedded == 0 && a.Failed == 0 {
			return total, annals.Errorf(annals.EUNAVAILABLE, "the server embedded nothing within one request's time; try again, or run annals reindex --embeddings on the server's machine")
		}
	}
}
