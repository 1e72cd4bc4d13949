package httpapi

import (
	"context"
	"math"
	"net/http"
	"strconv"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// The remote side of replication (docs/REPLICATION.md): POST /v1/replicate applies one lane's
// operations from a host's outbox, POST /v1/replicate/heads answers the remote's lane heads for
// replicate verify. Both decode, call the history through the caller's door and encode.

// replicaFor is the replication remote as the request's caller reaches it.
func (s *Server) replicaFor(ctx context.Context) (history.Replica, error) {
	if s.cfg.Replica == nil {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this server is not a replication remote (its store cannot apply replicated operations)")
	}
	c := history.CallerFromContext(ctx)
	if c == nil {
		c = history.For(s.svc, nil, history.Access{ReadOnly: true})
	}
	return c.Replica(s.cfg.Replica), nil
}

// handleReplicate serves POST /v1/replicate. An operation the history refused answers with
// the status of its code (out_of_order and conflict: 409, invalid: 400, forbidden: 403), and the
// body is the result all the same: the operations applied before it, and the lane's head.
func (s *Server) handleReplicate(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.replicaFor(r.Context())
	if err != nil {
		return err
	}
	var req annals.ReplicateRequest
	if err := decodeStrict(r.Context(), r.Body, &req); err != nil {
		return err
	}
	res, err := rep.ApplyReplicated(r.Context(), &req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Error != nil {
		status = StatusOf(res.Error.Code)
	}
	return writeJSON(w, status, res)
}

// handleReplicaHeads serves POST /v1/replicate/heads.
func (s *Server) handleReplicaHeads(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.replicaFor(r.Context())
	if err != nil {
		return err
	}
	var req annals.ReplicaHeadsRequest
	if err := decodeStrict(r.Context(), r.Body, &req); err != nil {
		return err
	}
	heads, err := rep.ReplicaHeads(r.Context(), &req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, heads)
}

// handleReplicaFeed serves GET /v1/replicate/feed?after=N&limit=N: a page of the change feed
// of the caller's tenant.
func (s *Server) handleReplicaFeed(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r, "after", "limit")
	if err != nil {
		return err
	}
	var req annals.ReplicaFeedRequest
	if req.After, err = int64Param(q.Get("after"), "after"); err != nil {
		return err
	}
	limit, err := int64Param(q.Get("limit"), "limit")
	if err != nil {
		return err
	}
	req.Limit = int(min(limit, math.MaxInt32))
	rep, err := s.replicaFor(r.Context())
	if err != nil {
		return err
	}
	feed, err := rep.ReplicaFeed(r.Context(), &req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, feed)
}

// int64Param reads an optional whole-number query parameter ("" is 0).
func int64Param(v, name string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, annals.Errorf(annals.EINVALID, "%s must be a whole number, got %q", name, v)
	}
	return n, nil
}
