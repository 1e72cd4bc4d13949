package replicate

import (
	"context"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
)

// Operations given up by `retry --drop` (annals.GivenUpOp) are never sent again by verify: a
// lane that has them is compared with the host's chat less what they carried, and a repair of
// it withholds that; a lane that gave up a change a repair cannot leave out (a creation, a
// rewind, a curation, a delete, an agent, a reset) is never reset by verify on its own. Only
// `verify --reset CHAT` forgets a lane's marks and sends the chat whole (docs/REPLICATION.md).

// GivenUpLane is a lane with operations given up, as verify reports it.
type GivenUpLane struct {
	ChatID string              `json:"chat_id"`
	Ops    []*annals.GivenUpOp `json:"ops"`
	// Withheld counts what this host holds of the chat that the given-up operations carried
	// (nil when what they carried cannot be left out of a repair).
	Withheld *annals.ReplicaCopy `json:"withheld,omitempty"`
	Note     string              `json:"note"`
}

// givenUp reads the marks of every lane by chat (none from a store that keeps none).
func (p *Pusher) givenUp(ctx context.Context) (map[string][]*annals.GivenUpOp, error) {
	gs, ok := p.cfg.Store.(annals.OutboxGivenUp)
	if !ok {
		return nil, nil
	}
	marks, err := gs.GivenUp(ctx, "")
	if err != nil {
		return nil, err
	}
	out := map[string][]*annals.GivenUpOp{}
	for _, g := range marks {
		out[g.ChatID] = append(out[g.ChatID], g)
	}
	return out, nil
}

// forgetGivenUp removes a lane's marks, before a reset a person asked for sends the chat whole.
func (p *Pusher) forgetGivenUp(ctx context.Context, chatID string) error {
	gs, ok := p.cfg.Store.(annals.OutboxGivenUp)
	if !ok {
		return nil
	}
	_, err := gs.ForgetGivenUp(ctx, chatID)
	return err
}

// withholdable reports whether a repair can leave out everything the marks carried.
func withholdable(marks []*annals.GivenUpOp) bool {
	for _, g := range marks {
		if !g.Withholdable() {
			return false
		}
	}
	return true
}

// withhold is snap without the entries and runs the marks carried; it keeps the seq of the
// chat's last entry as read, so the store still checks the chat against what was read.
func withhold(snap *annals.ChatSnapshot, marks []*annals.GivenUpOp) *annals.ChatSnapshot {
	if snap == nil || len(marks) == 0 {
		return snap
	}
	entries, runs := map[string]bool{}, map[string]bool{}
	for _, g := range marks {
		for _, id := range g.EntryIDs {
			entries[id] = true
		}
		if g.RunID != "" {
			runs[g.RunID] = true
		}
	}
	out := &annals.ChatSnapshot{Chat: snap.Chat, ReadSeq: snap.ReadSeq}
	if len(snap.Entries) > 0 && out.ReadSeq == 0 {
		out.ReadSeq = snap.Entries[len(snap.Entries)-1].Seq
	}
	for _, e := range snap.Entries {
		if !entries[e.ID] {
			out.Entries = append(out.Entries, e)
		}
	}
	for _, r := range snap.Runs {
		if !runs[r.ID] {
			out.Runs = append(out.Runs, r)
		}
	}
	return out
}

// withheldCopy counts what of the chat here the marks carried (nil: no chat here), and names
// the chat's rows and those withheld, for the comparison by identity.
func withheldCopy(ctx context.Context, r snapshotReader, chatID string, marks []*annals.GivenUpOp) (*annals.ReplicaCopy, *heldIDs, error) {
	snap, err := readSnapshot(ctx, r, chatID)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	kept := withhold(snap, marks)
	ids := &heldIDs{entries: map[string]bool{}, runs: map[string]bool{}}
	for _, e := range snap.Entries {
		ids.entries[e.ID] = true
	}
	for _, e := range kept.Entries {
		ids.entries[e.ID] = false
	}
	for _, r := range snap.Runs {
		ids.runs[r.ID] = true
	}
	for _, r := range kept.Runs {
		ids.runs[r.ID] = false
	}
	return &annals.ReplicaCopy{Entries: int64(len(snap.Entries) - len(kept.Entries)), Runs: int64(len(snap.Runs) - len(kept.Runs))}, ids, nil
}

// heldIDs are the host's entry and run ids of a chat with given-up operations, each true when
// the marks withheld it.
type heldIDs struct {
	entries, runs map[string]bool
}

// lacksOnlyWithheldIDs reports whether the remote's copy holds exactly the host's entries less
// the withheld ones, and the host's runs less the withheld ones with or without any of those.
func (h *heldIDs) lacksOnlyWithheldIDs(remote *annals.ReplicaCopyIDs) bool {
	kept := 0
	for _, held := range h.entries {
		if !held {
			kept++
		}
	}
	if len(remote.Entries) != kept {
		return false
	}
	for _, id := range remote.Entries {
		if held, ok := h.entries[id]; !ok || held {
			return false
		}
	}
	has := make(map[string]bool, len(remote.Runs))
	for _, id := range remote.Runs {
		if _, ok := h.runs[id]; !ok {
			return false
		}
		has[id] = true
	}
	for id, held := range h.runs {
		if !held && !has[id] {
			return false
		}
	}
	return true
}

// givenUpLane describes a lane's marks for the report.
func givenUpLane(chatID string, marks []*annals.GivenUpOp, withheld *annals.ReplicaCopy) *GivenUpLane {
	ops := make([]string, len(marks))
	for i, g := range marks {
		ops[i] = fmt.Sprintf("%s (%s, lane seq %d)", g.OpID, g.Kind, g.LaneSeq)
	}
	l := &GivenUpLane{ChatID: chatID, Ops: marks, Withheld: withheld}
	if withholdable(marks) {
		l.Note = fmt.Sprintf("given up by 'annals replicate retry --drop': %s; the remote never receives it: %s of this host's chat are left out of every comparison and repair; 'annals replicate verify --reset %s' sends the chat whole",
			strings.Join(ops, ", "), describeCopy(withheld), chatID)
	} else {
		l.Note = fmt.Sprintf("given up by 'annals replicate retry --drop': %s; the remote never receives it, and verify does not compare the chat's copies nor reset the lane on its own (a repair would send it again); 'annals replicate verify --reset %s' sends the chat whole",
			strings.Join(ops, ", "), chatID)
	}
	return l
}

// less is the host's copy less what was withheld from the remote.
func less(c, withheld *annals.ReplicaCopy) *annals.ReplicaCopy {
	if c == nil || withheld == nil {
		return c
	}
	return &annals.ReplicaCopy{Entries: c.Entries - withheld.Entries, Runs: c.Runs - withheld.Runs}
}
