package annals

import (
	"context"
	"time"
)

// LaneQuarantine is a lane the push worker stopped on a permanent refusal by the remote: its
// operations stay queued and later ones wait behind it until `annals replicate retry` releases
// it. It keeps the one diagnostic (never the key).
type LaneQuarantine struct {
	ChatID string `json:"chat_id"`
	// OpID is the operation the remote refused; Status and Code its answer.
	OpID    string    `json:"op_id"`
	Status  int       `json:"status"`
	Code    string    `json:"code"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// PushStateStore keeps what the push worker must remember across restarts: the quarantined
// lanes and the time of the last successful push. Implemented by both stores.
type PushStateStore interface {
	// QuarantineLane records (or replaces) a lane's quarantine. Errors: forbidden,
	// unavailable, internal.
	QuarantineLane(ctx context.Context, q *LaneQuarantine) error
	// ReleaseLane removes a lane's quarantine and reports whether it had one.
	ReleaseLane(ctx context.Context, chatID string) (bool, error)
	// Quarantined returns the quarantined lanes by chat id.
	Quarantined(ctx context.Context) ([]*LaneQuarantine, error)
	// RecordPush stores the time of the last push the remote acknowledged; LastPush reads it
	// (zero when there was none).
	RecordPush(ctx context.Context, at time.Time) error
	LastPush(ctx context.Context) (time.Time, error)
}
