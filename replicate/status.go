package replicate

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
)

// Status is what `annals replicate status` shows: the host, the queue per lane, the
// quarantined lanes with their diagnostic, the operations given up by `retry --drop`, and the
// last acknowledged push.
type Status struct {
	Endpoint string `json:"endpoint,omitempty"`
	// Host is the host id and whether it may push (nil before the outbox was ever on).
	Host *annals.HostCheck `json:"host"`
	// PendingOps and PendingBytes total the queue; OldestAt is its oldest operation.
	PendingOps   int       `json:"pending_ops"`
	PendingBytes int64     `json:"pending_bytes"`
	OldestAt     time.Time `json:"oldest_at,omitzero"`
	// Lanes are the lanes with queued operations.
	Lanes       []*annals.LaneStatus     `json:"lanes"`
	Quarantined []*annals.LaneQuarantine `json:"quarantined"`
	// GivenUp are the marks of operations given up by `retry --drop`, by chat and lane seq:
	// the remote never receives them, and verify never sends them again.
	GivenUp  []*annals.GivenUpOp `json:"given_up"`
	LastPush time.Time           `json:"last_push,omitzero"`
}

// ReadStatus reads the push state of a host's database; it sends nothing.
func ReadStatus(ctx context.Context, s Store, endpoint string) (*Status, error) {
	st := &Status{Endpoint: endpoint}
	check, err := s.CheckHost(ctx)
	switch {
	case annals.ErrorCode(err) == annals.ENOTFOUND:
	case err != nil:
		return nil, err
	default:
		st.Host = check
	}
	if st.Lanes, err = s.OutboxLanes(ctx, true); err != nil {
		return nil, err
	}
	for _, l := range st.Lanes {
		st.PendingOps += l.Pending
		st.PendingBytes += l.PendingBytes
		if !l.OldestAt.IsZero() && (st.OldestAt.IsZero() || l.OldestAt.Before(st.OldestAt)) {
			st.OldestAt = l.OldestAt
		}
	}
	if st.Quarantined, err = s.Quarantined(ctx); err != nil {
		return nil, err
	}
	st.GivenUp = []*annals.GivenUpOp{}
	if gs, ok := s.(annals.OutboxGivenUp); ok {
		if st.GivenUp, err = gs.GivenUp(ctx, ""); err != nil {
			return nil, err
		}
	}
	if st.LastPush, err = s.LastPush(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// ReplicationGauges reads the push state of the host's database for /metrics: operations
// queued, lanes quarantined, operations given up, and the lag — how long the oldest queued
// operation has waited (0 with none).
func (p *Pusher) ReplicationGauges(ctx context.Context) (pending, quarantined, givenUp int, lag time.Duration, err error) {
	st, err := ReadStatus(ctx, p.cfg.Store, p.cfg.Endpoint)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if !st.OldestAt.IsZero() {
		lag = max(p.cfg.Now().Sub(st.OldestAt), 0)
	}
	return st.PendingOps, len(st.Quarantined), len(st.GivenUp), lag, nil
}
