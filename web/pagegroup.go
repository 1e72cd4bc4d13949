package web

import (
	"context"

	"github.com/annals-dev/annals"
)

// A page of the transcript never ends inside a group of tool calls (toolgroup.go): when the 100th
// entry is a tool call and the next ones are calls of the same run, the page reads on to the
// group's last call, so the group is drawn once, whole, and the next page starts after it. A page
// that starts inside a group (the page above a permalink's window) starts at the group's first
// call instead. Both reach at most groupSpill entries past the page's own bounds: a longer group
// is split there.
const groupSpill = 400

// sameGroup reports whether b continues a group of tool calls that a is part of.
func sameGroup(a, b *annals.Entry) bool {
	return a.Tool != nil && b.Tool != nil && a.RunID == b.RunID
}

// spillForward extends entries (the page, hasMore true when entries follow it) with the rest of
// the group its last entry is in; it returns the page and whether entries follow it still.
func spillForward(ctx context.Context, c annals.HistoryService, id string, entries []*annals.Entry, hasMore bool) ([]*annals.Entry, bool, error) {
	for read := 0; hasMore && len(entries) > 0 && entries[len(entries)-1].Tool != nil && read < groupSpill; {
		last := entries[len(entries)-1]
		v, err := c.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, AfterSeq: last.Seq, Limit: min(entryPageSize, groupSpill-read)})
		if err != nil {
			return nil, false, err
		}
		read += len(v.Entries)
		k := 0
		for k < len(v.Entries) && sameGroup(last, v.Entries[k]) {
			k++
		}
		entries = append(entries, v.Entries[:k]...)
		if k < len(v.Entries) {
			return entries, true, nil // the group ended inside what was read
		}
		if len(v.Entries) == 0 {
			return entries, false, nil
		}
		hasMore = v.HasMore
	}
	return entries, hasMore, nil
}

// spillBack is the calls of the group the page's first entry continues that come before the
// page (the page holds the entries after seq after), in order: the page starts on the group's
// first call instead.
func spillBack(ctx context.Context, c annals.HistoryService, id string, after int64, first *annals.Entry) ([]*annals.Entry, error) {
	if after <= 0 || first.Tool == nil {
		return nil, nil
	}
	from := max(after-groupSpill, 0)
	v, err := c.GetChat(ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, AfterSeq: from, Limit: int(after - from)})
	if err != nil {
		return nil, err
	}
	i, next := len(v.Entries), first
	for i > 0 && v.Entries[i-1].Seq <= after && sameGroup(v.Entries[i-1], next) {
		i--
		next = v.Entries[i]
	}
	return v.Entries[i:], nil
}
