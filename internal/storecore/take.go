package storecore

import (
	"time"

	"github.com/annals-dev/annals"
)

// CurationTx is what TakeCuration needs of a store inside its write transaction.
type CurationTx interface {
	// ChatRef returns the ref of the chat held with this id (nil: none).
	ChatRef(chatID string) (*annals.ChatRef, error)
	// FieldStamps and SetFieldStamps read and keep the stamps of a chat's fields.
	FieldStamps(chatID string) (map[string]annals.FieldStamp, error)
	SetFieldStamps(chatID string, fields []string, s annals.FieldStamp) error
	// SetHuman changes the chat's human layer as an update would, stamping archived_at and
	// summary_updated_at with at, without recording a replication operation.
	SetHuman(ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error
	// SeenHLC moves the host's hybrid logical clock to at least hlc.
	SeenHLC(hlc int64) error
}

// TakeCuration applies a remote chat's human layer to the chat held here, field by field, by
// the conflict rule (annals.CurationTaker): a field takes the remote's value when the remote's
// stamp orders after its own.
func TakeCuration(tx CurationTx, remote *annals.Chat, stamps map[string]annals.FieldStamp, now time.Time) (bool, error) {
	ref, err := tx.ChatRef(remote.ID)
	if err != nil || ref == nil {
		return false, err
	}
	have, err := tx.FieldStamps(remote.ID)
	if err != nil {
		return false, err
	}
	newer := func(field string) bool {
		rs, ok := stamps[field]
		if !ok {
			return false
		}
		hs, ok := have[field]
		return !ok || rs.After(hs)
	}
	var upd annals.ChatUpdate
	var taken []string
	take := func(field string) bool {
		if !newer(field) {
			return false
		}
		taken = append(taken, field)
		return true
	}
	if take(annals.FieldTitle) {
		upd.Title = &remote.Title
	}
	if take(annals.FieldDescription) {
		upd.Description = &remote.Description
	}
	if take(annals.FieldTags) {
		tags := append([]string{}, remote.Tags...)
		upd.Tags = &tags
	}
	if take(annals.FieldPinned) {
		upd.Pinned = &remote.Pinned
	}
	if upd != (annals.ChatUpdate{}) {
		if err := tx.SetHuman(*ref, upd, now); err != nil {
			return false, err
		}
	}
	if take(annals.FieldSummary) {
		at := now
		if remote.SummaryUpdatedAt != nil {
			at = *remote.SummaryUpdatedAt
		}
		if err := tx.SetHuman(*ref, annals.ChatUpdate{Summary: &remote.Summary}, at); err != nil {
			return false, err
		}
	}
	if take(annals.FieldArchived) {
		if err := takeArchived(tx, *ref, remote.ArchivedAt); err != nil {
			return false, err
		}
	}
	if len(taken) == 0 {
		return false, nil
	}
	var seen int64
	for _, f := range taken {
		if err := tx.SetFieldStamps(remote.ID, []string{f}, stamps[f]); err != nil {
			return false, err
		}
		seen = max(seen, stamps[f].HLC)
	}
	return true, tx.SeenHLC(seen)
}

// takeArchived sets the archive as the remote holds it: archived at the remote's time, or not.
func takeArchived(tx CurationTx, ref annals.ChatRef, at *time.Time) error {
	off, on := false, true
	if err := tx.SetHuman(ref, annals.ChatUpdate{Archived: &off}, time.Time{}); err != nil {
		return err
	}
	if at == nil {
		return nil
	}
	return tx.SetHuman(ref, annals.ChatUpdate{Archived: &on}, *at)
}
