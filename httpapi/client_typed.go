package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/annals-dev/annals"
)

// The Client as an annals.HistoryService: the envelope's operations are envelope.Remote's, each
// typed call sent to POST /v1/history as the op envelope that means it, so a program written
// against the root interface runs unchanged against a local service or a server; the runs come
// from their own route.

var _ annals.HistoryService = (*Client)(nil)

// FindChatRuns returns a chat's runs, oldest first (GET /v1/sessions/{id}/runs).
func (c *Client) FindChatRuns(ctx context.Context, sel annals.ChatSelector) ([]*annals.Run, error) {
	q := url.Values{}
	if sel.Scope != "" {
		q.Set("scope", string(sel.Scope))
	}
	var out RunsAnswer
	if err := c.call(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(sel.ID)+"/runs"+encodeQuery(q), nil, "", &out); err != nil {
		return nil, err
	}
	return out.Runs, nil
}
