package replicate

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
)

// Status is what `annals replicate status` shows: the host, the queue per lane, the
// quarantined lanes with their diagnostic, and the last acknowledged push.
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
	LastPush    time.Time                `json:"last_push,omitzero"`
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
	if st.LastPush, err = s.LastPush(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// Difference is one lane on which the host and the remote disagree.
type Difference struct {
	ChatID string `json:"chat_id"`
	// HostSeq is the host's head, RemoteSeq the remote's (0: the remote has no such lane);
	// Pending the host's queued operations of the lane.
	HostSeq      int64  `json:"host_seq"`
	RemoteSeq    int64  `json:"remote_seq"`
	Pending      int    `json:"pending"`
	HostDigest   string `json:"host_digest"`
	RemoteDigest string `json:"remote_digest,omitempty"`
	Reason       string `json:"reason"`
}

// Verification is what `annals replicate verify` reports.
type Verification struct {
	// Lanes is how many lanes the host has; InSync how many the remote holds exactly.
	Lanes  int `json:"lanes"`
	InSync int `json:"in_sync"`
	// Pending are lanes whose queued operations the remote has not yet applied (after the
	// push that verify makes first: quarantined or waiting lanes).
	Pending     int           `json:"pending"`
	Differences []*Difference `json:"differences"`
	Push        *Report       `json:"push"`
}

// headsChunk is how many lanes one heads request asks.
const headsChunk = 1000

// Verify pushes what is queued (one pass), then compares the head of every lane of the host
// with the remote's: a lane with nothing queued must be at the same seq and digest; a lane with
// operations queued must be exactly where the queue starts.
func (p *Pusher) Verify(ctx context.Context) (*Verification, error) {
	push, err := p.PushOnce(ctx)
	if err != nil {
		return nil, err
	}
	lanes, err := p.cfg.Store.OutboxLanes(ctx, false)
	if err != nil {
		return nil, err
	}
	v := &Verification{Lanes: len(lanes), Differences: []*Difference{}, Push: push}
	for start := 0; start < len(lanes); start += headsChunk {
		part := lanes[start:min(start+headsChunk, len(lanes))]
		ids := make([]string, len(part))
		for i, l := range part {
			ids[i] = l.ChatID
		}
		heads, a, err := p.c.heads(ctx, ids)
		if err != nil {
			return nil, annals.Errorf(annals.EUNAVAILABLE, "cannot read the remote's heads from %s: %v", p.cfg.Endpoint, err)
		}
		if heads == nil {
			return nil, annals.Errorf(annals.EUNAVAILABLE, "the remote %s answered %d %s: %s", p.cfg.Endpoint, a.status, a.code, a.message)
		}
		remote := map[string]*annals.ReplicaLane{}
		for _, l := range heads.Lanes {
			remote[l.ChatID] = l
		}
		for _, l := range part {
			compareLane(v, l, remote[l.ChatID])
		}
	}
	return v, nil
}

func compareLane(v *Verification, l *annals.LaneStatus, r *annals.ReplicaLane) {
	d := &Difference{ChatID: l.ChatID, HostSeq: l.HeadSeq, HostDigest: l.HeadDigest, Pending: l.Pending}
	if r != nil {
		d.RemoteSeq, d.RemoteDigest = r.Seq, r.Digest
	}
	applied := l.HeadSeq - int64(l.Pending)
	switch {
	case l.Pending == 0 && d.RemoteSeq == l.HeadSeq && d.RemoteDigest == l.HeadDigest:
		v.InSync++
		return
	case l.Pending > 0 && d.RemoteSeq == applied:
		v.Pending++
		return
	case d.RemoteSeq < applied:
		d.Reason = "the remote is behind what this host had acknowledged (restored from an older backup, or another remote)"
	case d.RemoteSeq > l.HeadSeq:
		d.Reason = "the remote's lane is ahead of this host's (another database writes this chat)"
	case l.Pending > 0:
		d.Reason = "the remote holds some of this host's queued operations under other ids"
	default:
		d.Reason = "the lanes' digests differ: the remote applied other operations at the same places"
	}
	v.Differences = append(v.Differences, d)
}

// ReplicationGauges reads the push state of the host's database for /metrics: operations
// queued, lanes quarantined, and the lag — how long the oldest queued operation has waited (0
// with none).
func (p *Pusher) ReplicationGauges(ctx context.Context) (pending, quarantined int, lag time.Duration, err error) {
	st, err := ReadStatus(ctx, p.cfg.Store, p.cfg.Endpoint)
	if err != nil {
		return 0, 0, 0, err
	}
	if !st.OldestAt.IsZero() {
		lag = max(p.cfg.Now().Sub(st.OldestAt), 0)
	}
	return st.PendingOps, len(st.Quarantined), lag, nil
}
