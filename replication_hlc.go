package annals

import (
	"time"
)

// The curation conflict rule (docs/REPLICATION.md, "Curation from several hosts"): each field of
// a chat's human layer — title, description, tags, pinned, archived, summary — is a register
// that keeps the value of the change with the greatest stamp. A stamp is the hybrid logical
// clock (HLC) the host gave the change, then the host id to break ties, so every replica that
// applies the same changes, in any order, keeps the same values.

// An HLC is a hybrid logical clock packed in 64 bits: the wall clock in milliseconds since the
// Unix epoch in the high 48 bits, a logical counter in the low 16. It never goes backwards on a
// host: NextHLC is past both the wall clock and the last HLC given.
const hlcLogicalBits = 16

// HLCOf is the HLC of a wall-clock time with a logical counter of zero.
func HLCOf(t time.Time) int64 { return t.UnixMilli() << hlcLogicalBits }

// NextHLC is the HLC a host gives its next change: the wall clock now, or one past the last HLC
// it gave when that is later (the wall clock stood still or went back).
func NextHLC(last int64, now time.Time) int64 { return max(last+1, HLCOf(now)) }

// HLCTime is the wall-clock part of an HLC.
func HLCTime(hlc int64) time.Time { return time.UnixMilli(hlc >> hlcLogicalBits).UTC() }

// FieldStamp orders the changes of one field: by HLC, then by host id.
type FieldStamp struct {
	HLC  int64  `json:"hlc"`
	Host string `json:"host"`
}

// After reports whether s orders after o: its HLC is greater, or equal with a greater host id.
func (s FieldStamp) After(o FieldStamp) bool {
	if s.HLC != o.HLC {
		return s.HLC > o.HLC
	}
	return s.Host > o.Host
}

// Stamp is the stamp of a curation made by host: its HLC, or for a version 1 payload (no HLC)
// the HLC of the time it was stamped with.
func (c *CurateChange) Stamp(host string) FieldStamp {
	if c.HLC != 0 {
		return FieldStamp{HLC: c.HLC, Host: host}
	}
	return FieldStamp{HLC: HLCOf(c.At), Host: host}
}

// The fields of a chat's human layer the conflict rule keeps apart, besides FieldTitle,
// FieldDescription, FieldTags and FieldSummary.
const (
	FieldPinned   = "pinned"
	FieldArchived = "archived"
)

// NewerFields keeps of upd the fields whose change, stamped s, orders after the stamp each field
// already has (have; a field absent from it was never set by a stamped change and takes any).
// It returns the update with only those fields and their names, in a fixed order.
func NewerFields(upd ChatUpdate, s FieldStamp, have map[string]FieldStamp) (ChatUpdate, []string) {
	var out ChatUpdate
	var names []string
	keep := func(name string, set bool) bool {
		if !set {
			return false
		}
		if cur, ok := have[name]; ok && !s.After(cur) {
			return false
		}
		names = append(names, name)
		return true
	}
	if keep(FieldTitle, upd.Title != nil) {
		out.Title, out.TitleGenerated = upd.Title, upd.TitleGenerated
	}
	if keep(FieldDescription, upd.Description != nil) {
		out.Description = upd.Description
	}
	if keep(FieldTags, upd.Tags != nil) {
		out.Tags = upd.Tags
	}
	if keep(FieldPinned, upd.Pinned != nil) {
		out.Pinned = upd.Pinned
	}
	if keep(FieldArchived, upd.Archived != nil) {
		out.Archived = upd.Archived
	}
	if keep(FieldSummary, upd.Summary != nil) {
		out.Summary = upd.Summary
	}
	return out, names
}

// Update is the change as a ChatUpdate (its fields as given, unredacted).
func (c *CurateChange) Update() ChatUpdate {
	return ChatUpdate{Title: c.Title, Description: c.Description, Tags: c.Tags, Pinned: c.Pinned, Archived: c.Archived, Summary: c.Summary}
}

// Fields names the fields of the human layer the change sets, in NewerFields's order.
func (c *CurateChange) Fields() []string {
	_, names := NewerFields(c.Update(), FieldStamp{}, nil)
	return names
}

// humanFields are the fields of a chat's human layer, in NewerFields's order.
var humanFields = [...]string{FieldTitle, FieldDescription, FieldTags, FieldPinned, FieldArchived, FieldSummary}

// MergeHumanLayer is the conflict rule applied to a reset (OpReset), which replaces a remote's
// copy of a chat with a host's state: chat is the host's, stamps the host's stamps of its
// fields; remote is the copy the reset replaces (nil: none) and have its stamps. Each field
// whose stamp on the remote orders after the host's — or that a stamped curation set on the
// remote and never on the host — keeps the remote's value, copied into chat; every other
// field keeps the host's. It returns the host's stamps of the fields the host's values won,
// which the remote records.
func MergeHumanLayer(chat *Chat, stamps map[string]FieldStamp, remote *Chat, have map[string]FieldStamp) map[string]FieldStamp {
	won := map[string]FieldStamp{}
	for _, f := range humanFields {
		r, onRemote := have[f]
		h, onHost := stamps[f]
		if remote != nil && onRemote && (!onHost || r.After(h)) {
			copyHumanField(chat, remote, f)
			continue
		}
		if onHost {
			won[f] = h
		}
	}
	return won
}

// copyHumanField sets one field of dst's human layer to src's.
func copyHumanField(dst, src *Chat, field string) {
	switch field {
	case FieldTitle:
		dst.Title = src.Title
	case FieldDescription:
		dst.Description = src.Description
	case FieldTags:
		dst.Tags = append([]string(nil), src.Tags...)
	case FieldPinned:
		dst.Pinned = src.Pinned
	case FieldArchived:
		dst.ArchivedAt = src.ArchivedAt
	case FieldSummary:
		dst.Summary, dst.SummaryUpdatedAt = src.Summary, src.SummaryUpdatedAt
	}
}
