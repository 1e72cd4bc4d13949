package replicate

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
)

// DropPlan is what `annals replicate retry --drop` shows before it drops: the quarantined
// lane, its diagnostic, the operation the remote refused, and how many queued after it will be
// renumbered onto the remote's head.
type DropPlan struct {
	ChatID     string                 `json:"chat_id"`
	Quarantine *annals.LaneQuarantine `json:"quarantine"`
	Op         DroppedOp              `json:"op"`
	// Later is how many operations queued after it stay, renumbered; RemoteSeq is the remote's
	// head they follow.
	Later     int   `json:"later"`
	RemoteSeq int64 `json:"remote_seq"`
	remoteDig string
}

// DroppedOp describes an operation without its payload.
type DroppedOp struct {
	ID        string        `json:"id"`
	LaneSeq   int64         `json:"lane_seq"`
	Kind      annals.OpKind `json:"kind"`
	Bytes     int           `json:"bytes"`
	CreatedAt time.Time     `json:"created_at"`
}

// DropResult is what the drop did: the plan carried out and the push that followed.
type DropResult struct {
	*DropPlan
	Push *Report `json:"push"`
}

// PlanDrop reads what dropping a quarantined lane's refused operation would do; it changes
// nothing. The lane must be quarantined, the refused operation the oldest queued, and the
// remote's head right before it (else verify is what the lane needs).
func (p *Pusher) PlanDrop(ctx context.Context, chatID string) (*DropPlan, error) {
	qs, err := p.cfg.Store.Quarantined(ctx)
	if err != nil {
		return nil, err
	}
	plan := &DropPlan{ChatID: chatID}
	for _, q := range qs {
		if q.ChatID == chatID {
			plan.Quarantine = q
		}
	}
	if plan.Quarantine == nil {
		return nil, annals.Errorf(annals.ENOTFOUND, "lane %q is not quarantined (see 'annals replicate status'); only a refused operation is dropped", chatID)
	}
	ops, err := p.cfg.Store.PendingOps(ctx, annals.OutboxRead{ChatID: chatID})
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 || ops[0].ID != plan.Quarantine.OpID {
		return nil, annals.Errorf(annals.ECONFLICT, "the refused operation %s is not the oldest queued of lane %q any more: run 'annals replicate verify' (or release the lane with 'annals replicate retry --chat %s')", plan.Quarantine.OpID, chatID, chatID)
	}
	op := ops[0]
	plan.Op = DroppedOp{ID: op.ID, LaneSeq: op.LaneSeq, Kind: op.Kind, Bytes: len(op.Payload), CreatedAt: op.CreatedAt}
	plan.Later = len(ops) - 1
	heads, a, err := p.c.heads(ctx, []string{chatID}, nil)
	if err != nil {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "cannot read the remote's head of lane %q from %s: %v", chatID, p.cfg.Endpoint, err)
	}
	if heads == nil {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "the remote %s answered %d %s: %s", p.cfg.Endpoint, a.status, a.code, a.message)
	}
	for _, l := range heads.Lanes {
		plan.RemoteSeq, plan.remoteDig = l.Seq, l.Digest
	}
	if plan.RemoteSeq != op.LaneSeq-1 {
		return nil, annals.Errorf(annals.ECONFLICT, "the remote's lane %q is at seq %d and the refused operation is seq %d: dropping it would not join the lanes; run 'annals replicate verify'", chatID, plan.RemoteSeq, op.LaneSeq)
	}
	return plan, nil
}

// Drop carries a plan out: the refused operation dropped, the later ones renumbered onto the
// remote's head, the lane released, and a push. The remote's copy then lacks the dropped
// change, for good: verify reports what that leaves different.
func (p *Pusher) Drop(ctx context.Context, plan *DropPlan) (*DropResult, error) {
	ds, ok := p.cfg.Store.(annals.OutboxDrop)
	if !ok {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot drop an operation")
	}
	if _, err := ds.DropOp(ctx, plan.ChatID, plan.Op.ID, plan.RemoteSeq, plan.remoteDig); err != nil {
		return nil, err
	}
	if _, err := p.cfg.Store.ReleaseLane(ctx, plan.ChatID); err != nil {
		return nil, err
	}
	p.cfg.Logger.Warn("replication: refused operation dropped", "chat_id", plan.ChatID, "op_id", plan.Op.ID, "kind", plan.Op.Kind, "renumbered", plan.Later)
	rep, err := p.PushOnce(ctx)
	if err != nil {
		return nil, err
	}
	return &DropResult{DropPlan: plan, Push: rep}, nil
}
