package replicate

import (
	"context"
	"fmt"

	"github.com/annals-dev/annals"
)

// RepairStore is what verify needs of the host's database to compare the chats of its lanes
// with the remote's copies and to repair a lane: the chats read whole, and the outbox's reset.
type RepairStore interface {
	snapshotReader
	annals.OutboxRepair
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
	// FirstSeq is the first operation of the lane that the remote lacks or holds differently
	// (0: the lanes agree, and the remote's copy of the chat does not; or the place is unknown,
	// the digests differing at the same seq).
	FirstSeq int64 `json:"first_seq"`
	// Host and Remote count what each side holds of the chat (nil: no chat).
	Host   *annals.ReplicaCopy `json:"host"`
	Remote *annals.ReplicaCopy `json:"remote"`
	Reason string              `json:"reason"`
	// Repairable: a reset of the lane makes the remote converge (it is behind, or lost rows);
	// a remote ahead of the host, or holding other operations at the same places, means another
	// database writes the chat, and is left for a person.
	Repairable bool `json:"repairable"`
	// Fix, for a difference left for a person, says what each choice is and the command that
	// makes it.
	Fix string `json:"fix,omitempty"`
	// Withheld counts what of the host's chat operations given up by `retry --drop` carried:
	// the remote's copy is compared with the host's less it.
	Withheld *annals.ReplicaCopy `json:"withheld,omitempty"`
}

// Side counts the chats, entries and runs one side holds of the lanes compared.
type Side struct {
	Chats   int   `json:"chats"`
	Entries int64 `json:"entries"`
	Runs    int64 `json:"runs"`
}

// Verification is what `annals replicate verify` reports.
type Verification struct {
	// Lanes is how many lanes the host has; InSync how many the remote holds exactly.
	Lanes  int `json:"lanes"`
	InSync int `json:"in_sync"`
	// Pending are lanes whose queued operations the remote has not yet applied (after the
	// push that verify makes first: quarantined or waiting lanes).
	Pending int `json:"pending"`
	// Differences are the lanes that differ (after the repair, when verify repaired).
	Differences []*Difference `json:"differences"`
	// Repaired are the differences found first and repaired: their lanes were reset and pushed.
	Repaired []*Difference `json:"repaired"`
	// GivenUp are the lanes with operations given up by `retry --drop`, which verify never
	// sends again (they are not differences: the remote lacks them by a person's choice).
	GivenUp []*GivenUpLane `json:"given_up"`
	// Host and Remote count what each side holds of every lane's chat.
	Host   Side    `json:"host"`
	Remote Side    `json:"remote"`
	Push   *Report `json:"push"`
}

// headsChunk is how many lanes one heads request asks.
const headsChunk = 1000

// Verify pushes what is queued (one pass), then compares every lane of the host with the
// remote: a lane with nothing queued must be at the same seq and digest, and the remote's copy
// of its chat must count the host's entries and runs; a lane with operations queued must be
// exactly where the queue starts. With repair, each repairable difference is repaired — the
// lane reset to the host's state of the chat (its tombstone for a chat deleted here) and
// pushed — and the lanes are compared again: Differences are what is left, Repaired what was.
func (p *Pusher) Verify(ctx context.Context, repair bool) (*Verification, error) {
	return p.verify(ctx, nil, func(d *Difference) (bool, error) { return repair && d.Repairable, nil })
}

// VerifyReset is Verify with repair that also resets the lanes of the named chats whose
// difference verify leaves to a person (docs/REPLICATION.md, "Verify and repair"): the digests
// differ at the same places, or the remote holds this host's queued operations under other ids
// — another database writes the chat. The remote then replaces its copy with this host's chat
// (what the other database wrote to it there is dropped); that database's later operations of
// the chat are refused. A named chat whose remote lane is ahead of this host's is refused (a
// reset from here would be), before anything is reset. A named chat's operations given up by
// `retry --drop` are forgotten and sent with the chat, whole.
func (p *Pusher) VerifyReset(ctx context.Context, chats []string) (*Verification, error) {
	named := map[string]bool{}
	for _, id := range chats {
		named[id] = true
	}
	return p.verify(ctx, named, func(d *Difference) (bool, error) {
		if named[d.ChatID] && d.RemoteSeq > d.HostSeq {
			return false, annals.Errorf(annals.ECONFLICT, "chat %q: the remote's lane is at seq %d, past this host's %d, so a reset from here would be refused; run --reset on the database that wrote it", d.ChatID, d.RemoteSeq, d.HostSeq)
		}
		return d.Repairable || named[d.ChatID], nil
	})
}

// verify pushes, compares, resets the lanes of the differences fix picks, pushes and compares
// again. The resend chats that gave operations up are compared as if they had not, and reset
// whole, their marks forgotten first (a reset that then fails leaves a lane verify repairs
// whole, never a remote copy that holds what the marks say it lacks).
func (p *Pusher) verify(ctx context.Context, resend map[string]bool, pick func(*Difference) (bool, error)) (*Verification, error) {
	push, err := p.PushOnce(ctx)
	if err != nil {
		return nil, err
	}
	given, err := p.givenUp(ctx)
	if err != nil {
		return nil, err
	}
	forced := map[string]bool{} // named chats with given-up operations: sent whole
	for id := range resend {
		if len(given[id]) > 0 {
			forced[id], given[id] = true, nil
		}
	}
	v, err := p.compare(ctx, given, forced)
	if err != nil {
		return nil, err
	}
	v.Push = push
	var fix []*Difference
	for _, d := range v.Differences {
		ok, err := pick(d)
		if err != nil {
			return nil, err
		}
		if ok {
			fix = append(fix, d)
		}
	}
	if len(fix) == 0 {
		return v, nil
	}
	rs, ok := p.cfg.Store.(RepairStore)
	if !ok {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot repair a lane")
	}
	for _, d := range fix {
		if forced[d.ChatID] {
			if err := p.forgetGivenUp(ctx, d.ChatID); err != nil {
				return nil, err
			}
		}
		if err := p.resetLane(ctx, rs, d.ChatID, given[d.ChatID]); err != nil {
			return nil, err
		}
		p.cfg.Logger.Warn("replication: lane reset to repair the remote", "chat_id", d.ChatID, "first_seq", d.FirstSeq, "reason", d.Reason)
	}
	again, err := p.PushOnce(ctx)
	if err != nil {
		return nil, err
	}
	if given, err = p.givenUp(ctx); err != nil {
		return nil, err
	}
	if v, err = p.compare(ctx, given, nil); err != nil {
		return nil, err
	}
	push.Pushed += again.Pushed
	push.Waiting, push.Quarantined = again.Waiting, again.Quarantined
	v.Push, v.Repaired = push, fix
	return v, nil
}

// resetLane queues a lane's reset to the chat as it is here (read again while it changes), less
// what the lane's given-up operations carried.
func (p *Pusher) resetLane(ctx context.Context, rs RepairStore, chatID string, marks []*annals.GivenUpOp) error {
	var err error
	for range backfillRetries {
		var snap *annals.ChatSnapshot
		if snap, err = readSnapshot(ctx, rs, chatID); annals.ErrorCode(err) == annals.ENOTFOUND {
			snap, err = nil, nil // deleted here: the remote gets the tombstone again
		}
		if err != nil {
			return err
		}
		err = rs.ResetLane(ctx, chatID, withhold(snap, marks))
		if annals.ErrorCode(err) != annals.ECONFLICT {
			break
		}
	}
	if err == nil {
		p.clearWait(chatID)
	}
	return err
}

// compare reads the remote's heads of every lane and compares them with the host's, less what
// the lanes' given-up operations carried (given, by chat); a resend chat's unchanged copy is a
// difference still, for its reset to send what it had given up.
func (p *Pusher) compare(ctx context.Context, given map[string][]*annals.GivenUpOp, resend map[string]bool) (*Verification, error) {
	lanes, err := p.cfg.Store.OutboxLanes(ctx, false)
	if err != nil {
		return nil, err
	}
	self := ""
	if check, err := p.cfg.Store.CheckHost(ctx); err == nil && check.Identity != nil {
		self = check.Identity.ID
	}
	v := &Verification{Lanes: len(lanes), Differences: []*Difference{}, Repaired: []*Difference{}, GivenUp: []*GivenUpLane{}}
	for start := 0; start < len(lanes); start += headsChunk {
		part := lanes[start:min(start+headsChunk, len(lanes))]
		ids := make([]string, len(part))
		for i, l := range part {
			ids[i] = l.ChatID
		}
		heads, a, err := p.c.heads(ctx, ids, withheldLanes(part, given))
		if err != nil {
			return nil, annals.Errorf(annals.EUNAVAILABLE, "cannot read the remote's heads from %s: %v", p.cfg.Endpoint, err)
		}
		if heads == nil {
			return nil, annals.Errorf(annals.EUNAVAILABLE, "the remote %s answered %d %s: %s", p.cfg.Endpoint, a.status, a.code, a.message)
		}
		remote := map[string][]*annals.ReplicaLane{}
		for _, l := range heads.Lanes {
			remote[l.ChatID] = append(remote[l.ChatID], l)
		}
		for _, l := range part {
			local, err := localCopy(ctx, p.cfg.Store, l.ChatID)
			if err != nil {
				return nil, err
			}
			r := ownLane(remote[l.ChatID], self, l)
			if r != nil && r.Copy != nil && r.Copy.Origin != "" && r.Copy.Origin != r.Host && r.Copy.Origin != self {
				local = r.Copy // a lane that curates another host's chat: the copy is that host's to compare
			}
			m := &laneMarks{ops: given[l.ChatID], resend: resend[l.ChatID]}
			if len(m.ops) > 0 && withholdable(m.ops) {
				if m.withheld, m.ids, err = withheldCopy(ctx, p.cfg.Store, l.ChatID, m.ops); err != nil {
					return nil, err
				}
			}
			if len(m.ops) > 0 {
				v.GivenUp = append(v.GivenUp, givenUpLane(l.ChatID, m.ops, m.withheld))
			}
			compareLane(v, l, r, local, m)
		}
	}
	return v, nil
}

// withheldLanes names the lanes of part whose given-up operations a comparison leaves out: the
// remote names their copies' rows, for compare to weigh them by identity.
func withheldLanes(part []*annals.LaneStatus, given map[string][]*annals.GivenUpOp) []string {
	var out []string
	for _, l := range part {
		if marks := given[l.ChatID]; len(marks) > 0 && withholdable(marks) {
			out = append(out, l.ChatID)
		}
	}
	return out
}

// ownLane picks, of the remote's lanes of a chat (one per host that wrote it), the one this
// host's lane is compared with: the lane of its host id, else one at its head (its operations
// were applied under an earlier host id), else the only one.
func ownLane(remote []*annals.ReplicaLane, self string, l *annals.LaneStatus) *annals.ReplicaLane {
	for _, r := range remote {
		if r.Host == self {
			return r
		}
	}
	for _, r := range remote {
		if r.Seq == l.HeadSeq && r.Digest == l.HeadDigest {
			return r
		}
	}
	if len(remote) == 1 {
		return remote[0]
	}
	return nil
}

// localCopy counts what the host holds of a chat (nil: none).
func localCopy(ctx context.Context, r snapshotReader, chatID string) (*annals.ReplicaCopy, error) {
	c, err := r.FindChatByID(ctx, chatID)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &annals.ReplicaCopy{Entries: c.Totals.Entries, Runs: c.Totals.Runs}, nil
}

// laneMarks are a lane's given-up operations as compare weighs them: withheld counts what they
// carried of the chat here, ids names the chat's rows and those withheld; resend, that a person
// asked for the chat to be sent whole.
type laneMarks struct {
	ops      []*annals.GivenUpOp
	withheld *annals.ReplicaCopy
	ids      *heldIDs
	resend   bool
}

func compareLane(v *Verification, l *annals.LaneStatus, r *annals.ReplicaLane, local *annals.ReplicaCopy, m *laneMarks) {
	d := &Difference{ChatID: l.ChatID, HostSeq: l.HeadSeq, HostDigest: l.HeadDigest, Pending: l.Pending, Host: local, Withheld: m.withheld}
	if r != nil {
		d.RemoteSeq, d.RemoteDigest, d.Remote = r.Seq, r.Digest, r.Copy
	}
	count(&v.Host, d.Host)
	count(&v.Remote, d.Remote)
	applied := l.HeadSeq - int64(l.Pending)
	switch {
	case l.Pending == 0 && d.RemoteSeq == l.HeadSeq && d.RemoteDigest == l.HeadDigest && m.resend && sameCopy(d.Host, d.Remote):
		d.Reason, d.Repairable = "the lanes agree, and this host gave up operations of the chat that a reset now sends whole", true
	case l.Pending == 0 && d.RemoteSeq == l.HeadSeq && d.RemoteDigest == l.HeadDigest:
		if lacksOnlyWithheld(d.Host, m.withheld, d.Remote, m.ids) || (len(m.ops) > 0 && !withholdable(m.ops)) {
			v.InSync++ // a copy that lacks what was given up is as it should be
			return
		}
		d.Reason, d.Repairable = fmt.Sprintf("the remote applied the whole lane, and its copy of the chat holds %s where this host holds %s (rows removed on the remote, or a partial restore)",
			describeCopy(d.Remote), describeCopy(d.Host)), true
		if m.withheld != nil {
			d.Reason = fmt.Sprintf("the remote applied the whole lane, and its copy of the chat holds %s where this host holds %s, %s of them given up (rows removed on the remote, or a partial restore)",
				describeCopy(d.Remote), describeCopy(d.Host), describeCopy(m.withheld))
		}
	case l.Pending > 0 && d.RemoteSeq == applied:
		v.Pending++
		return
	case d.RemoteSeq < applied:
		d.FirstSeq = d.RemoteSeq + 1
		d.Reason, d.Repairable = "the remote is behind what this host had acknowledged (restored from an older backup, or another remote)", true
	case d.RemoteSeq > l.HeadSeq:
		d.FirstSeq = l.HeadSeq + 1
		d.Reason = "the remote's lane is ahead of this host's (another database writes this chat)"
		d.Fix = fmt.Sprintf("to keep the remote's copy, leave it: this host's later operations of the chat are refused (quarantined); to make a database's copy the remote's, run 'annals replicate verify --reset %s' on the one that wrote the lane ahead", l.ChatID)
	case l.Pending > 0:
		d.FirstSeq = applied + 1
		d.Reason = "the remote holds some of this host's queued operations under other ids"
		d.Fix = resetFix(l.ChatID)
	default:
		d.Reason = "the lanes' digests differ: the remote applied other operations at the same places (another database writes this chat)"
		d.Fix = resetFix(l.ChatID)
	}
	if len(m.ops) > 0 && !withholdable(m.ops) && d.Repairable {
		d.Repairable = false // a reset would send the given-up change again
		d.Reason += "; the lane gave up a change a repair cannot leave out (see given_up)"
		d.Fix = fmt.Sprintf("to send this host's chat whole, the given-up change with it: 'annals replicate verify --reset %s'", l.ChatID)
	}
	v.Differences = append(v.Differences, d)
}

// resetFix is the choice a person has when another database writes a chat this host's lane
// differs on.
func resetFix(chatID string) string {
	return fmt.Sprintf("to make this host's copy the remote's (dropping what the other database wrote to the chat there): 'annals replicate verify --reset %s'; to keep the remote's copy, leave it: this host's later operations of the chat are refused (quarantined)", chatID)
}

func count(s *Side, c *annals.ReplicaCopy) {
	if c != nil {
		s.Chats++
		s.Entries += c.Entries
		s.Runs += c.Runs
	}
}

// lacksOnlyWithheld reports whether the remote's copy is the host's less what was given up: the
// given-up entries exactly (an entry is appended once), and a given-up run either way — an
// earlier operation of it may have been applied before the one given up, and a repair that
// withholds it is not needed for that alone. The rows are compared by id where the remote named
// them (equal counts can hide a copy that lacks another run than the given-up one); by count
// only with a remote too old to name them.
func lacksOnlyWithheld(host, withheld, remote *annals.ReplicaCopy, ids *heldIDs) bool {
	if withheld == nil || host == nil || remote == nil {
		return sameCopy(less(host, withheld), remote)
	}
	if ids != nil && remote.IDs != nil {
		return ids.lacksOnlyWithheldIDs(remote.IDs)
	}
	return remote.Entries == host.Entries-withheld.Entries && remote.Runs >= host.Runs-withheld.Runs && remote.Runs <= host.Runs
}

func sameCopy(a, b *annals.ReplicaCopy) bool {
	return (a == nil) == (b == nil) && (a == nil || (a.Entries == b.Entries && a.Runs == b.Runs))
}

func describeCopy(c *annals.ReplicaCopy) string {
	if c == nil {
		return "no chat"
	}
	return fmt.Sprintf("%d entries and %d runs", c.Entries, c.Runs)
}
