package storecore

import (
	"time"

	"github.com/annals-dev/annals"
)

// Changes collects the replication payloads of one write transaction, in the order the changes
// were applied. A store adds one per change that a remote would need (an append that appended
// nothing and a chat create that found its chat adds none), then writes them with WriteOutbox
// before it commits.
type Changes struct {
	list []*annals.OpPayload
}

// Add records one change.
func (c *Changes) Add(p *annals.OpPayload) { c.list = append(c.list, p) }

// Reserve keeps the place of a change whose payload is known only later in the transaction (a
// statement queued with others), so the lane keeps the order the changes were applied in. Fill
// gives it; a place never filled (the change changed nothing) records nothing.
func (c *Changes) Reserve() int {
	c.list = append(c.list, nil)
	return len(c.list) - 1
}

// Fill gives the payload of a reserved place.
func (c *Changes) Fill(i int, p *annals.OpPayload) { c.list[i] = p }

// Len returns how many changes were recorded.
func (c *Changes) Len() int { return len(c.list) }

// OutboxHost is the host row as the write path reads it inside its transaction.
type OutboxHost struct {
	ID     string
	Origin annals.Fingerprint
	On     bool
}

// OutboxTx is what WriteOutbox needs of a store inside its write transaction.
type OutboxTx interface {
	// LaneHead returns the lane's last sequence and digest (0 and "" for a new lane), holding
	// the lane against concurrent writers until the transaction ends.
	LaneHead(chatID string) (int64, string, error)
	// SetLaneHead stores the lane's new last sequence and digest.
	SetLaneHead(chatID string, seq int64, digest string) error
	// InsertOp queues one operation; host is "" when it has none (see annals.ReplicationOp).
	InsertOp(op *annals.ReplicationOp) error
	// NextHLC gives the host's next hybrid logical clock, annals.NextHLC of the last one it
	// gave and the wall clock (given as an HLC), and keeps it, holding the host row until the
	// transaction ends so that no two changes get the same.
	NextHLC(wall int64) (int64, error)
	// FieldStamps and SetFieldStamps read and write the stamps of a chat's human layer, as
	// ReplicaTx's: a host keeps the stamps of its own curations beside the ones it applied, so
	// that a reset carries them (annals.MergeHumanLayer).
	FieldStamps(chatID string) (map[string]annals.FieldStamp, error)
	SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error
	// ForgetGivenUpRun removes the given-up marks of a run (annals.GivenUpOp with its RunID)
	// of the chat: a later operation of the run is queued, which carries the run to the
	// remote, so a repair must no longer withhold it.
	ForgetGivenUpRun(chatID, runID string) error
}

// WriteOutbox writes the operations of changes through tx: each payload encoded, numbered in its
// lane after the lane's head, chained to the previous digest, and stamped with the host id, or
// with none when the database's host id was created at another origin than here. A curation
// gets the host's next hybrid logical clock (the conflict rule, annals.FieldStamp). With no host
// row or the outbox off it writes nothing.
func WriteOutbox(tx OutboxTx, host *OutboxHost, here annals.Fingerprint, now time.Time, changes *Changes) error {
	if host == nil || !host.On || changes.Len() == 0 {
		return nil
	}
	hostID := host.ID
	if ok, _ := annals.SameOrigin(host.Origin, here); !ok {
		hostID = ""
	}
	type head struct {
		seq    int64
		digest string
	}
	heads := map[string]*head{}
	var order []string
	for _, p := range changes.list {
		if p == nil {
			continue
		}
		chatID := p.ChatID()
		h, ok := heads[chatID]
		if !ok {
			seq, digest, err := tx.LaneHead(chatID)
			if err != nil {
				return err
			}
			h = &head{seq: seq, digest: digest}
			heads[chatID] = h
			order = append(order, chatID)
		}
		if err := stampChange(tx, host.ID, now, p, h.digest); err != nil {
			return err
		}
		payload, err := annals.EncodePayload(p)
		if err != nil {
			return err
		}
		h.seq++
		h.digest = annals.LaneDigest(h.digest, chatID, h.seq, p.Kind(), payload)
		op := &annals.ReplicationOp{Host: hostID, ChatID: chatID, LaneSeq: h.seq, Kind: p.Kind(),
			Payload: payload, Digest: h.digest, CreatedAt: now}
		if err := tx.InsertOp(op); err != nil {
			return err
		}
		if p.Run != nil {
			// A run given up by `retry --drop` and recorded again reaches the remote with
			// this operation: its mark must not make verify withhold it (docs/REPLICATION.md).
			if err := tx.ForgetGivenUpRun(chatID, p.Run.ID); err != nil {
				return err
			}
		}
	}
	for _, chatID := range order {
		if err := tx.SetLaneHead(chatID, heads[chatID].seq, heads[chatID].digest); err != nil {
			return err
		}
	}
	return nil
}

// stampChange completes a payload with what its place in the lane and the host's clock give it:
// a reset the lane's digest before it (the chain a remote at any head checks it by) and the
// host's stamps of the chat's human layer; a curation the host's next HLC, recorded as the stamp
// of the fields it sets.
func stampChange(tx OutboxTx, hostID string, now time.Time, p *annals.OpPayload, digest string) error {
	if p.Reset != nil {
		p.Reset.PrevDigest = digest
		if p.Reset.Chat != nil {
			stamps, err := tx.FieldStamps(p.Reset.ChatID)
			if err != nil {
				return err
			}
			if len(stamps) > 0 {
				p.Reset.Stamps = stamps
			}
		}
	}
	if p.Curate == nil {
		return nil
	}
	if p.Curate.HLC == 0 {
		hlc, err := tx.NextHLC(annals.HLCOf(now))
		if err != nil {
			return err
		}
		p.Curate.HLC = hlc
	}
	if fields := p.Curate.Fields(); len(fields) > 0 {
		return tx.SetFieldStamps(p.Curate.ChatID, fields, annals.FieldStamp{HLC: p.Curate.HLC, Host: hostID})
	}
	return nil
}

// ChatPayload is the payload of a chat creation as the store applied it: the creation data with
// the times the store stamped, without what the store derives (totals, status, last activity).
func ChatPayload(c *annals.Chat, created time.Time) *annals.OpPayload {
	cp := annals.Chat{ID: c.ID, TenantID: c.TenantID, UserID: c.UserID, AgentID: c.AgentID, Attributes: c.Attributes,
		CreatedAt: created.UTC(), Title: c.Title, TitleGenerated: c.Title != "" && c.TitleGenerated, Description: c.Description, Tags: c.Tags, Pinned: c.Pinned,
		ArchivedAt: c.ArchivedAt, Summary: c.Summary, SummaryUpdatedAt: c.SummaryUpdatedAt}
	if cp.Summary != "" && cp.SummaryUpdatedAt == nil {
		t := cp.CreatedAt
		cp.SummaryUpdatedAt = &t
	}
	return &annals.OpPayload{Chat: &cp}
}

// AppendedEntry is an entry as an append stored it: a copy with its seq and its time as stamped.
func AppendedEntry(e *annals.Entry, chatID string, seq int64, t time.Time) *annals.Entry {
	cp := *e
	cp.ChatID = chatID
	cp.Seq = seq
	cp.Time = t.UTC()
	return &cp
}

// Snapshot bounds: one append operation of a backfilled chat holds at most this many entries
// and about this many bytes of them.
const (
	snapshotEntries = 200
	snapshotBytes   = 2 << 20
)

// SnapshotChanges are the changes that recreate a chat as read (annals.OutboxBackfill): its
// creation with its human layer, its entries in bounded appends, its runs.
func SnapshotChanges(snap *annals.ChatSnapshot) *Changes {
	var c Changes
	c.Add(ChatPayload(snap.Chat, snap.Chat.CreatedAt))
	addSnapshotRows(&c, snap)
	return &c
}

// ResetChanges are the changes that repair a chat's lane on a remote (annals.OutboxRepair): a
// reset carrying its creation with its human layer, then its entries and runs as
// SnapshotChanges has them; with snap nil (the chat is deleted here), a reset to its tombstone.
func ResetChanges(chatID string, snap *annals.ChatSnapshot) *Changes {
	var c Changes
	if snap == nil {
		c.Add(&annals.OpPayload{Reset: &annals.ResetChange{ChatID: chatID, Deleted: true}})
		return &c
	}
	c.Add(&annals.OpPayload{Reset: &annals.ResetChange{ChatID: chatID, Chat: ChatPayload(snap.Chat, snap.Chat.CreatedAt).Chat}})
	addSnapshotRows(&c, snap)
	return &c
}

// addSnapshotRows adds a snapshot's entries, in bounded appends, and its runs.
func addSnapshotRows(c *Changes, snap *annals.ChatSnapshot) {
	var batch []*annals.Entry
	size := 0
	flush := func() {
		if len(batch) > 0 {
			c.Add(&annals.OpPayload{Append: &annals.AppendOp{ChatID: snap.Chat.ID, Entries: batch}})
			batch, size = nil, 0
		}
	}
	for _, e := range snap.Entries {
		if len(batch) >= snapshotEntries || (len(batch) > 0 && size+e.Size() > snapshotBytes) {
			flush()
		}
		batch = append(batch, AppendedEntry(e, snap.Chat.ID, e.Seq, e.Time))
		size += e.Size()
	}
	flush()
	for _, r := range snap.Runs {
		cp := *r
		c.Add(&annals.OpPayload{Run: &cp})
	}
}

// LastSeq is the seq of the last entry of a snapshot as read (0 with none).
func LastSeq(snap *annals.ChatSnapshot) int64 {
	if snap.ReadSeq != 0 {
		return snap.ReadSeq
	}
	if len(snap.Entries) == 0 {
		return 0
	}
	return snap.Entries[len(snap.Entries)-1].Seq
}
