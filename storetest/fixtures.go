package storetest

import (
	"fmt"
	"time"

	annals "github.com/annals-dev/annals"
)

// BaseTime is the fixed instant fixture entries count from. It is in UTC and has millisecond
// precision, the precision every store must keep, so fixtures round-trip exactly.
var BaseTime = time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// NewChat returns a minimal valid chat: an id and a tenant, nothing else. Tests and other
// packages set the remaining fields they care about.
func NewChat(id, tenant string) *annals.Chat {
	return &annals.Chat{ID: id, TenantID: tenant}
}

// Entries returns n fresh valid entries with ids prefix-1 .. prefix-n, alternating user and
// assistant, with text "prefix entry i" and times one second apart from BaseTime. Every call
// returns new values, so a caller may hand the same batch to a store twice without sharing
// pointers the store might have written to.
func Entries(prefix string, n int) []*annals.Entry {
	out := make([]*annals.Entry, n)
	for i := range n {
		kind := annals.KindUser
		if i%2 == 1 {
			kind = annals.KindAssistant
		}
		out[i] = &annals.Entry{
			ID:   fmt.Sprintf("%s-%d", prefix, i+1),
			Kind: kind,
			Time: BaseTime.Add(time.Duration(i) * time.Second),
			Text: fmt.Sprintf("%s entry %d", prefix, i+1),
		}
	}
	return out
}

// TextEntry returns a valid non-tool entry of the given kind carrying text, stamped BaseTime.
func TextEntry(id string, kind annals.EntryKind, text string) *annals.Entry {
	return &annals.Entry{ID: id, Kind: kind, Time: BaseTime, Text: text}
}

// ToolEntry returns a valid succeeded tool entry. args must be valid JSON (or empty).
func ToolEntry(id, name, args, result string) *annals.Entry {
	return &annals.Entry{
		ID:   id,
		Kind: annals.KindTool,
		Time: BaseTime,
		Tool: &annals.ToolCall{
			Name:      name,
			CallID:    "call-" + id,
			Arguments: []byte(args),
			Result:    result,
			Outcome:   annals.OutcomeSucceeded,
		},
	}
}

// NewRun returns a valid run of a chat with the given status, started at start.
func NewRun(id, chatID string, status annals.RunStatus, start time.Time) *annals.Run {
	return &annals.Run{ID: id, ChatID: chatID, Status: status, StartedAt: start}
}
