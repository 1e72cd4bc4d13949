package history

import (
	"context"
	"errors"
	"sort"

	"github.com/annals-dev/annals"
)

// The remote side of replication (docs/REPLICATION.md): remote apply is one more caller of the
// history. A host's operations are checked here — who may replicate, into which tenant, in
// which order, against which digest — then bound like any capture and handed to the store,
// which applies each with the record of its id in one transaction.

// Replica is what a remote answers hosts with; a transport reaches it only through the door
// (Caller.Replica).
type Replica interface {
	// ApplyReplicated applies one lane's operations in order, stopping at the first refused.
	ApplyReplicated(ctx context.Context, req *annals.ReplicateRequest) (*annals.ReplicateResult, error)
	// ReplicaHeads returns the remote's head of each named lane in the caller's tenant.
	ReplicaHeads(ctx context.Context, req *annals.ReplicaHeadsRequest) (*annals.ReplicaHeads, error)
	// ReplicaFeed returns a page of the change feed of the caller's tenant.
	ReplicaFeed(ctx context.Context, req *annals.ReplicaFeedRequest) (*annals.ReplicaFeed, error)
}

// Request bounds.
const (
	// MaxReplicateOps bounds the operations of one request.
	MaxReplicateOps = 1000
	// MaxReplicaHeads bounds the lanes of one heads request.
	MaxReplicaHeads = 10000
	// OriginHostAttr is the chat attribute a replicated chat carries: the host id that created
	// it (the host of origin).
	OriginHostAttr = "annals.origin_host"
)

var _ Replica = (*Service)(nil)

func (s *Service) replicaStore() (annals.ReplicaStore, error) {
	rs, ok := s.store.(annals.ReplicaStore)
	if !ok {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this store cannot be a replication remote")
	}
	return rs, nil
}

// replicator refuses callers who may not replicate: a host writes whole chats of every user and
// agent it recorded, which a member key may not (it writes only its own chats); an operator
// replicates into its own tenant, an admin into the tenant each chat names.
func replicator(ctx context.Context) (*annals.Principal, error) {
	p := annals.PrincipalFromContext(ctx)
	if p == nil || (p.Role != annals.RoleOperator && p.Role != annals.RoleAdmin) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "replication needs an operator key of the tenant the host writes for (or an admin key); a member key writes only its own chats")
	}
	return p, nil
}

// ReplicaHeads returns the remote's head of each named lane the caller's tenant holds; see
// Replica.
func (s *Service) ReplicaHeads(ctx context.Context, req *annals.ReplicaHeadsRequest) (*annals.ReplicaHeads, error) {
	p, err := replicator(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := s.replicaStore()
	if err != nil {
		return nil, err
	}
	if len(req.ChatIDs) > MaxReplicaHeads {
		return nil, annals.Errorf(annals.EINVALID, "chat_ids has %d ids (at most %d per request)", len(req.ChatIDs), MaxReplicaHeads)
	}
	for _, id := range req.ChatIDs {
		if err := annals.ValidateID("chat_ids[]", id); err != nil {
			return nil, err
		}
	}
	if len(req.IDsOf) > len(req.ChatIDs) {
		return nil, annals.Errorf(annals.EINVALID, "ids_of has %d ids (at most as many as chat_ids, %d)", len(req.IDsOf), len(req.ChatIDs))
	}
	idsOf := make(map[string]bool, len(req.IDsOf))
	for _, id := range req.IDsOf {
		if err := annals.ValidateID("ids_of[]", id); err != nil {
			return nil, err
		}
		idsOf[id] = true
	}
	out := &annals.ReplicaHeads{Lanes: []*annals.ReplicaLane{}}
	if len(req.ChatIDs) == 0 {
		return out, nil
	}
	lanes, err := rs.ReplicaLanes(ctx, req.ChatIDs)
	if err != nil {
		return nil, err
	}
	for _, l := range lanes {
		if p.IsAdmin() || l.TenantID == p.TenantID {
			out.Lanes = append(out.Lanes, l)
		}
	}
	if err := s.replicaCopies(ctx, out.Lanes, idsOf); err != nil {
		return nil, err
	}
	sort.Slice(out.Lanes, func(i, j int) bool {
		a, b := out.Lanes[i], out.Lanes[j]
		return a.ChatID < b.ChatID || (a.ChatID == b.ChatID && a.Host < b.Host)
	})
	return out, nil
}

// ApplyReplicated applies one lane's operations in order; see Replica. Each is applied once
// (a redelivered id is acknowledged again and changes nothing), only right after its
// predecessor (else out_of_order, with the head to resend from), only when the digest the host
// sent is the one its payload chains to from the remote's head. A refused operation ends the
// request with its code; a failure of the remote itself (unavailable, internal) is the
// request's error, and the host retries.
func (s *Service) ApplyReplicated(ctx context.Context, req *annals.ReplicateRequest) (*annals.ReplicateResult, error) {
	p, err := replicator(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := s.replicaStore()
	if err != nil {
		return nil, err
	}
	chatID, err := checkReplicateRequest(req)
	if err != nil {
		return nil, err
	}
	if err := enableFeed(ctx, s.store); err != nil {
		return nil, err
	}
	all, err := rs.ReplicaLanes(ctx, []string{chatID})
	if err != nil {
		return nil, err
	}
	lanes := &chatLanes{chatID: chatID, byHost: map[string]*annals.ReplicaLane{}}
	for _, l := range all {
		if l.Seq > 0 && !p.IsAdmin() && l.TenantID != p.TenantID {
			return nil, errConflict(chatID)
		}
		lanes.byHost[l.Host] = l
	}
	res := &annals.ReplicateResult{ChatID: chatID, Acked: []string{}}
	batcher, _ := rs.(annals.ReplicaBatchStore)
	var head *annals.ReplicaLane
	for i := 0; i < len(req.Ops); {
		head = lanes.of(req.Ops[i].Host)
		n, next, err := 0, (*annals.ReplicaLane)(nil), error(nil)
		if run := captureRun(lanes, req.Ops[i:]); batcher != nil && len(run) > 1 {
			n, next, err = s.applyRun(ctx, batcher, lanes, run)
		}
		if n == 0 && err == nil {
			if next, err = s.applyOne(ctx, rs, p, lanes, req.Ops[i]); err == nil {
				n = 1
			}
		}
		for _, op := range req.Ops[i : i+n] {
			res.Acked = append(res.Acked, op.ID)
		}
		if i += n; n > 0 {
			head = next
		}
		if err != nil {
			switch annals.ErrorCode(err) {
			case annals.EUNAVAILABLE, annals.EINTERNAL, annals.ENOTIMPLEMENTED:
				return nil, err
			}
			head = lanes.of(req.Ops[i].Host)
			res.Error = &annals.ReplicateRefusal{Code: annals.ErrorCode(err), Message: annals.ErrorMessage(err), OpID: req.Ops[i].ID}
			break
		}
	}
	res.Head = head
	if len(res.Acked) > 0 {
		s.changedByID(ctx, chatID)
	}
	return res, nil
}

// chatLanes are the remote's lanes of one chat, one per host that wrote it.
type chatLanes struct {
	chatID string
	byHost map[string]*annals.ReplicaLane
}

// of returns host's lane of the chat (a zero lane when it has none).
func (c *chatLanes) of(host string) *annals.ReplicaLane {
	if l := c.byHost[host]; l != nil {
		return l
	}
	return &annals.ReplicaLane{ChatID: c.chatID, Host: host}
}

// deleted reports whether any host's lane of the chat holds its tombstone.
func (c *chatLanes) deleted() bool {
	for _, l := range c.byHost {
		if l.Deleted {
			return true
		}
	}
	return false
}

// continued returns the lane of another host whose head op continues (op is the next of that
// lane under a new host id: a copied database that took one, or operations recorded while the
// host id was moved), or nil.
func (c *chatLanes) continued(op *annals.ReplicationOp) *annals.ReplicaLane {
	for host, l := range c.byHost {
		if host != op.Host && l.Seq == op.LaneSeq-1 && annals.LaneDigest(l.Digest, op.ChatID, op.LaneSeq, op.Kind, op.Payload) == op.Digest {
			return l
		}
	}
	return nil
}

// moved records the lane's new head (and the end of the lane it was handed over from).
func (c *chatLanes) moved(from string, l *annals.ReplicaLane) {
	if from != "" && from != l.Host {
		delete(c.byHost, from)
	}
	c.byHost[l.Host] = l
}

// checkReplicateRequest checks the request's shape: one lane, ids of hosts, lane sequences
// following each other. It returns the lane.
func checkReplicateRequest(req *annals.ReplicateRequest) (string, error) {
	if len(req.Ops) == 0 || len(req.Ops) > MaxReplicateOps {
		return "", annals.Errorf(annals.EINVALID, "ops has %d operations (from 1 to %d per request)", len(req.Ops), MaxReplicateOps)
	}
	chatID := ""
	for i, op := range req.Ops {
		if op == nil {
			return "", annals.Errorf(annals.EINVALID, "ops[%d] is null", i)
		}
		host, seq, err := annals.ParseOpID(op.ID)
		if err != nil {
			return "", annals.Errorf(annals.EINVALID, "ops[%d].id: %s", i, annals.ErrorMessage(err))
		}
		if host != op.Host || seq != op.Seq {
			return "", annals.Errorf(annals.EINVALID, "ops[%d].id %q does not match its host %q and seq %d", i, op.ID, op.Host, op.Seq)
		}
		if err := annals.ValidateID("ops[].chat_id", op.ChatID); err != nil {
			return "", err
		}
		if i == 0 {
			chatID = op.ChatID
		} else if op.ChatID != chatID || op.LaneSeq != req.Ops[i-1].LaneSeq+1 {
			return "", annals.Errorf(annals.EINVALID, "ops[%d] is not the next operation of lane %q: a request carries one lane's operations in order", i, chatID)
		}
		if op.LaneSeq <= 0 {
			return "", annals.Errorf(annals.EINVALID, "ops[%d].lane_seq is %d (lanes count from 1)", i, op.LaneSeq)
		}
	}
	return chatID, nil
}

// applyOne applies one operation on its host's lane of the chat (or on the lane it continues)
// and returns the lane's new head.
func (s *Service) applyOne(ctx context.Context, rs annals.ReplicaStore, p *annals.Principal, lanes *chatLanes, op *annals.ReplicationOp) (*annals.ReplicaLane, error) {
	c, err := s.checkOp(ctx, rs, lanes, op)
	if err != nil {
		return nil, err
	}
	if c.dup {
		return c.head, nil
	}
	ch, err := s.replicaChange(ctx, p, c.head, op, c.payload)
	if err != nil {
		return nil, remoteRefusal(op.ChatID, err)
	}
	c.fill(ch, op)
	outcome, lane, err := rs.ApplyReplica(ctx, ch)
	if err != nil {
		return nil, remoteRefusal(op.ChatID, err)
	}
	if outcome == annals.ReplicaMoved {
		return nil, errLaneMoved(op)
	}
	lanes.moved(c.from, lane)
	return lane, nil
}

func errLaneMoved(op *annals.ReplicationOp) error {
	return annals.Errorf(annals.EUNAVAILABLE, "lane %q moved while operation %s was applied (another delivery); try again", op.ChatID, op.ID)
}

// checkedOp is an operation checked against its lane's head: the head it goes on (the lane it
// continues, from), its decoded payload and the digest it chains to; dup when it was applied
// already (head is then the lane's).
type checkedOp struct {
	head    *annals.ReplicaLane
	from    string
	payload *annals.OpPayload
	digest  string
	reset   bool
	dup     bool
}

// fill gives ch the operation's identity and where in its lane it goes.
func (c *checkedOp) fill(ch *annals.ReplicaChange, op *annals.ReplicationOp) {
	ch.OpID, ch.Host, ch.ChatID, ch.LaneSeq, ch.PrevDigest, ch.Digest, ch.From = op.ID, op.Host, op.ChatID, op.LaneSeq, c.head.Digest, c.digest, c.from
	ch.Reset, ch.FromSeq = c.reset, c.head.Seq
}

// checkOp checks one operation against its host's lane of the chat (or the lane it continues):
// applied already, in order, chaining to the head's digest, not after a tombstone.
func (s *Service) checkOp(ctx context.Context, rs annals.ReplicaStore, lanes *chatLanes, op *annals.ReplicationOp) (*checkedOp, error) {
	head := lanes.of(op.Host)
	if op.LaneSeq != head.Seq+1 {
		done, err := rs.ReplicaOpsApplied(ctx, []string{op.ID})
		if err != nil {
			return nil, err
		}
		if done[op.ID] {
			return &checkedOp{head: head, dup: true}, nil
		}
	}
	from := ""
	if head.Seq == 0 && op.LaneSeq > 1 {
		if l := lanes.continued(op); l != nil {
			from, head = l.Host, l
		}
	}
	if op.LaneSeq <= head.Seq {
		return nil, annals.Errorf(annals.ECONFLICT, "lane %q already holds another operation at seq %d (the remote is at %d): two databases write this chat (a copied host database?)", op.ChatID, op.LaneSeq, head.Seq)
	}
	reset := op.Kind == annals.OpReset
	if op.LaneSeq > head.Seq+1 && !reset {
		return nil, annals.Errorf(annals.EOUTOFORDER, "operation %s is seq %d of lane %q, and the remote has applied up to seq %d: resend the lane from seq %d", op.ID, op.LaneSeq, op.ChatID, head.Seq, head.Seq+1)
	}
	payload, err := annals.DecodePayload(op.Payload)
	if err != nil {
		return nil, err
	}
	if payload.ChatID() != op.ChatID || payload.Kind() != op.Kind {
		return nil, annals.Errorf(annals.EINVALID, "operation %s says kind %q of chat %q, and its payload holds %q of chat %q", op.ID, op.Kind, op.ChatID, payload.Kind(), payload.ChatID())
	}
	prev := head.Digest
	if reset {
		prev = payload.Reset.PrevDigest // a reset chains to the host's lane, wherever the remote's is
	}
	digest := annals.LaneDigest(prev, op.ChatID, op.LaneSeq, op.Kind, op.Payload)
	if digest != op.Digest {
		return nil, annals.Errorf(annals.ECONFLICT, "operation %s does not chain to the remote's lane %q at seq %d (digest %s, the host sent %s): the lane differs from the host's; replicate verify finds where", op.ID, op.ChatID, head.Seq, shortDigest(digest), shortDigest(op.Digest))
	}
	if lanes.deleted() && op.Kind != annals.OpDelete && !(reset && payload.Reset.Deleted) {
		return nil, annals.Errorf(annals.ECONFLICT, "chat %q was deleted (the remote keeps its tombstone): later operations for it are refused", op.ChatID)
	}
	return &checkedOp{head: head, from: from, payload: payload, digest: digest, reset: reset}, nil
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// remoteRefusal turns the error of a change the remote cannot apply into the lane's permanent
// refusal: a chat or truncation point the remote does not hold is a conflict between the lanes
// (the host's lane says it is there), never a not-found the host would retry.
func remoteRefusal(chatID string, err error) error {
	var be *annals.BatchError
	if errors.As(err, &be) {
		err = be.Err
	}
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return annals.Errorf(annals.ECONFLICT, "the remote cannot apply this operation of chat %q: %s", chatID, annals.ErrorMessage(err))
	}
	return err
}

// replicaChange checks one decoded operation as the caller would be checked making the change
// itself, and binds it: a chat is created in the caller's tenant (an admin's: the one it
// names) with the host of origin as an attribute, an entry over MaxReplicaEntryBytes is cut in
// its middle, text is redacted as capture redacts it, and curation and deletes reach only a
// chat of the lane's tenant the caller may change.
func (s *Service) replicaChange(ctx context.Context, p *annals.Principal, head *annals.ReplicaLane, op *annals.ReplicationOp, pl *annals.OpPayload) (*annals.ReplicaChange, error) {
	ch := &annals.ReplicaChange{TenantID: head.TenantID}
	switch op.Kind {
	case annals.OpCurate, annals.OpDelete, annals.OpAgent:
		return s.replicaChatChange(ctx, p, op.Host, pl, ch)
	case annals.OpReset:
		return s.replicaReset(ctx, p, op, pl.Reset, ch)
	}
	capture, ok := captureOf(op, pl)
	if !ok {
		return nil, annals.Errorf(annals.EINVALID, "operation %s has unknown kind %q", op.ID, op.Kind)
	}
	return s.replicaCapture(ctx, capture, ch)
}

// captureOf is the capture op of a chat, append, truncate or run operation (entries over
// MaxReplicaEntryBytes cut in their middle), before the guard binds it; false for other kinds.
func captureOf(op *annals.ReplicationOp, pl *annals.OpPayload) (annals.CaptureOp, bool) {
	var capture annals.CaptureOp
	switch op.Kind {
	case annals.OpChat:
		capture.Chat = originChat(pl.Chat, op.Host)
	case annals.OpAppend:
		a := &annals.AppendOp{ChatID: pl.Append.ChatID, Entries: make([]*annals.Entry, len(pl.Append.Entries))}
		for i, e := range pl.Append.Entries {
			a.Entries[i] = TrimEntry(e, MaxReplicaEntryBytes)
		}
		capture.Append = a
	case annals.OpTruncate:
		t := pl.Truncate
		point := annals.TruncatePoint{EntryID: t.EntryID}
		if t.EntryID == "" {
			point = annals.TruncatePoint{Seq: t.Seq}
		}
		capture.Truncate = &annals.TruncateOp{ChatID: t.ChatID, Point: point}
	case annals.OpRun:
		capture.Run = pl.Run
	default:
		return capture, false
	}
	return capture, true
}

// replicaCapture binds one capture op as the caller's own capture would be: guarded, scrubbed.
func (s *Service) replicaCapture(ctx context.Context, capture annals.CaptureOp, ch *annals.ReplicaChange) (*annals.ReplicaChange, error) {
	guarded, err := s.guard(ctx, []annals.CaptureOp{capture})
	if err != nil {
		return nil, err
	}
	ch.Capture = s.capture.Scrub(guarded)
	if c := ch.Capture[0].Chat; c != nil {
		ch.TenantID = c.TenantID
	}
	return ch, nil
}

// replicaAgentChange binds the agent a host gave a chat it had imported without one: only a
// chat that has no agent on the remote either, and only to an owner the caller could have
// created the chat with.
func replicaAgentChange(p *annals.Principal, owner annals.Owner, chat *annals.Chat, ag *annals.AgentChange, ch *annals.ReplicaChange) (*annals.ReplicaChange, error) {
	if chat.AgentID != "" {
		return nil, annals.Errorf(annals.ECONFLICT, "chat %q already has agent %q on the remote; only a chat without an agent is given one", chat.ID, chat.AgentID)
	}
	adopted := *chat
	adopted.AgentID = ag.AgentID
	if !owner.Matches(&adopted) || !CanModify(p, &adopted) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "giving chat %q agent %q would put it outside what this key may write", chat.ID, ag.AgentID)
	}
	ch.Agent = ag.AgentID
	return ch, nil
}

// replicaChatChange binds a curation, a delete or an agent to the chat of the lane, as it is on the
// remote.
func (s *Service) replicaChatChange(ctx context.Context, p *annals.Principal, host string, pl *annals.OpPayload, ch *annals.ReplicaChange) (*annals.ReplicaChange, error) {
	res, err := Resolve(ctx, "")
	if err != nil {
		return nil, err
	}
	chat, err := s.inScope(ctx, res, pl.ChatID())
	if err != nil {
		return nil, err
	}
	if chat != nil && !CanModify(p, chat) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "changing chat %q needs an operator or admin, or the chat's own user or agent", chat.ID)
	}
	if chat != nil {
		ref := chat.Ref()
		ch.Ref = &ref
		ch.TenantID = chat.TenantID
	}
	if pl.Delete != nil {
		ch.Tombstone = true
		if ch.TenantID == "" {
			ch.TenantID = p.TenantID // a tombstone of a chat never held here: the caller's
		}
		return ch, nil
	}
	if chat == nil {
		return nil, annals.NotFound(pl.ChatID())
	}
	if pl.Agent != nil {
		return replicaAgentChange(p, res.Owner, chat, pl.Agent, ch)
	}
	cur := pl.Curate
	upd := annals.ChatUpdate{Title: cur.Title, TitleGenerated: cur.Title != nil && cur.TitleGenerated,
		Description: cur.Description, Pinned: cur.Pinned, Archived: cur.Archived, Summary: cur.Summary}
	if cur.Title != nil {
		t := s.redactText(*cur.Title)
		upd.Title = &t
	}
	if cur.Description != nil {
		d := s.redactText(*cur.Description)
		upd.Description = &d
	}
	if cur.Summary != nil {
		v := s.redactText(*cur.Summary)
		upd.Summary = &v
	}
	if cur.Tags != nil {
		tags := annals.RedactTags(s.redactor, *cur.Tags)
		if tags == nil {
			tags = []string{}
		}
		upd.Tags = &tags
	}
	ch.Curate, ch.At, ch.Stamp = &upd, cur.At, cur.Stamp(host)
	return ch, nil
}
