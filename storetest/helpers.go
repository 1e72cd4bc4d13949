package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	annals "github.com/annals-dev/annals"
)

// The must* helpers stop the subtest on an unexpected error: the checks after them would only
// report noise. They are written against annals.Store so every backend is driven the same way.

func mustCreateChat(t *testing.T, s Store, c *annals.Chat) *annals.Chat {
	t.Helper()
	got, err := annals.CreateChat(t.Context(), s, c)
	if err != nil {
		t.Fatalf("CreateChat(%q): %v", c.ID, err)
	}
	if got == nil {
		t.Fatalf("CreateChat(%q) returned a nil chat and no error", c.ID)
	}
	return got
}

func mustAppend(t *testing.T, s Store, chatID string, entries ...*annals.Entry) *annals.AppendResult {
	t.Helper()
	res, err := annals.AppendEntries(t.Context(), s, chatID, entries)
	if err != nil {
		t.Fatalf("AppendEntries(%q, %d entries): %v", chatID, len(entries), err)
	}
	if res == nil {
		t.Fatalf("AppendEntries(%q) returned a nil result and no error", chatID)
	}
	return res
}

func mustTruncate(t *testing.T, s Store, chatID string, p annals.TruncatePoint) *annals.TruncateResult {
	t.Helper()
	res, err := annals.TruncateChat(t.Context(), s, chatID, p)
	if err != nil {
		t.Fatalf("TruncateChat(%q, %+v): %v", chatID, p, err)
	}
	if res == nil {
		t.Fatalf("TruncateChat(%q) returned a nil result and no error", chatID)
	}
	return res
}

func mustRecordRun(t *testing.T, s Store, r *annals.Run) *annals.Run {
	t.Helper()
	got, err := annals.RecordRun(t.Context(), s, r)
	if err != nil {
		t.Fatalf("RecordRun(%q, status %q): %v", r.ID, r.Status, err)
	}
	if got == nil {
		t.Fatalf("RecordRun(%q) returned a nil run and no error", r.ID)
	}
	return got
}

// refOf returns the write reference of a stored chat, as a caller that fetched it holds it.
func refOf(t *testing.T, s Store, id string) annals.ChatRef {
	t.Helper()
	return mustChat(t, s, id).Ref()
}

func mustUpdate(t *testing.T, s Store, id string, upd annals.ChatUpdate) *annals.Chat {
	t.Helper()
	got, err := s.UpdateChat(t.Context(), refOf(t, s, id), upd)
	if err != nil {
		t.Fatalf("UpdateChat(%q): %v", id, err)
	}
	if got == nil {
		t.Fatalf("UpdateChat(%q) returned a nil chat and no error", id)
	}
	return got
}

func mustChat(t *testing.T, s Store, id string) *annals.Chat {
	t.Helper()
	c, err := s.FindChatByID(t.Context(), id)
	if err != nil {
		t.Fatalf("FindChatByID(%q): %v", id, err)
	}
	if c == nil {
		t.Fatalf("FindChatByID(%q) returned a nil chat and no error", id)
	}
	return c
}

func mustEntries(t *testing.T, s Store, chatID string) []*annals.Entry {
	t.Helper()
	return mustFindEntries(t, s, annals.EntryFilter{ChatID: chatID})
}

func mustFindEntries(t *testing.T, s Store, f annals.EntryFilter) []*annals.Entry {
	t.Helper()
	es, err := s.FindEntries(t.Context(), f)
	if err != nil {
		t.Fatalf("FindEntries(%+v): %v", f, err)
	}
	return es
}

func mustRuns(t *testing.T, s Store, chatID string) []*annals.Run {
	t.Helper()
	rs, err := s.FindRuns(t.Context(), chatID)
	if err != nil {
		t.Fatalf("FindRuns(%q): %v", chatID, err)
	}
	return rs
}

func mustFindChats(t *testing.T, s Store, f annals.ChatFilter) ([]*annals.Chat, int) {
	t.Helper()
	cs, total, err := s.FindChats(t.Context(), f)
	if err != nil {
		t.Fatalf("FindChats(owner %s): %v", f.Owner, err)
	}
	return cs, total
}

// findChatIDs returns the ids FindChats gives for f, in order, and checks that the total is at
// least the page length (a total smaller than what was returned is always wrong).
func findChatIDs(t *testing.T, s Store, f annals.ChatFilter) ([]string, int) {
	t.Helper()
	cs, total := mustFindChats(t, s, f)
	ids := chatIDs(cs)
	if total < len(ids) {
		t.Errorf("FindChats(owner %s) total = %d, smaller than the %d chats returned", f.Owner, total, len(ids))
	}
	return ids, total
}

func mustMatchEntries(t *testing.T, s Store, owner annals.Owner, terms ...string) []annals.EntryRef {
	t.Helper()
	refs, err := s.MatchEntries(t.Context(), annals.TextMatch{Owner: owner, Terms: terms})
	if err != nil {
		t.Fatalf("MatchEntries(owner %s, terms %q): %v", owner, terms, err)
	}
	return refs
}

func mustMatchChats(t *testing.T, s Store, owner annals.Owner, terms ...string) []string {
	t.Helper()
	ids, err := s.MatchChats(t.Context(), annals.TextMatch{Owner: owner, Terms: terms})
	if err != nil {
		t.Fatalf("MatchChats(owner %s, terms %q): %v", owner, terms, err)
	}
	return ids
}

// wantCode reports an error unless err carries code. what describes the call for the message.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := annals.ErrorCode(err); got != code {
		t.Errorf("%s: error code = %q (err %v), want %q", what, got, err, code)
	}
}

// wantBatchError checks that err is a *annals.BatchError naming op index with the given code.
func wantBatchError(t *testing.T, err error, index int, code string) {
	t.Helper()
	var be *annals.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("Capture error = %v (%T), want a *annals.BatchError", err, err)
	}
	if got, _ := annals.BatchIndex(err); got != index {
		t.Errorf("BatchIndex = %d, want %d (err: %v)", got, index, err)
	}
	if got := annals.ErrorCode(err); got != code {
		t.Errorf("Capture error code = %q, want %q (err: %v)", got, code, err)
	}
}

// wantChatSet checks FindChats returns exactly the ids (in any order) and a matching total.
func wantChatSet(t *testing.T, s Store, what string, f annals.ChatFilter, want ...string) {
	t.Helper()
	ids, total := findChatIDs(t, s, f)
	if !sameSet(ids, want) {
		t.Errorf("%s: FindChats = %q, want %q", what, ids, want)
	}
	if total != len(want) {
		t.Errorf("%s: total = %d, want %d", what, total, len(want))
	}
}

// wantIDs compares two id lists in order.
func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func wantRefs(t *testing.T, what string, got, want []annals.EntryRef) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// wantTranscript checks that entries carry exactly the ids given, in order, with seq 1..n.
func wantTranscript(t *testing.T, entries []*annals.Entry, ids ...string) {
	t.Helper()
	gotIDs := entryIDs(entries)
	if !slices.Equal(gotIDs, ids) && !(len(gotIDs) == 0 && len(ids) == 0) {
		t.Errorf("transcript ids = %q, want %q", gotIDs, ids)
	}
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Errorf("entry %d (%q) seq = %d, want %d (seq must be contiguous from 1)", i, e.ID, e.Seq, i+1)
		}
	}
}

func wantTotals(t *testing.T, what string, got, want annals.Totals) {
	t.Helper()
	if d := diffTotals(got, want); len(d) > 0 {
		t.Errorf("%s totals differ:\n  %s", what, strings.Join(d, "\n  "))
	}
}

// wantSameChat reports every field that differs between two reads of one chat.
func wantSameChat(t *testing.T, what string, got, want *annals.Chat) {
	t.Helper()
	if d := diffChat(got, want); len(d) > 0 {
		t.Errorf("%s differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}

// wantSameEntries compares two transcripts entry by entry, every field.
func wantSameEntries(t *testing.T, what string, got, want []*annals.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d entries %q, want %d %q", what, len(got), entryIDs(got), len(want), entryIDs(want))
		return
	}
	for i := range got {
		if d := diffEntry(got[i], want[i]); len(d) > 0 {
			t.Errorf("%s: entry %d (%q) differs:\n  %s", what, i, want[i].ID, strings.Join(d, "\n  "))
		}
	}
}

// wantRecent checks that a store-stamped time lies within [before, after], widened by a second
// on each side so a store that keeps only second precision still passes.
func wantRecent(t *testing.T, what string, got, before, after time.Time) {
	t.Helper()
	if got.IsZero() {
		t.Errorf("%s is zero, want the time of the write", what)
		return
	}
	if got.Before(before.Add(-time.Second)) || got.After(after.Add(time.Second)) {
		t.Errorf("%s = %v, want between %v and %v", what, got, before, after)
	}
}

func diffTotals(got, want annals.Totals) []string {
	var d []string
	if got.Runs != want.Runs {
		d = append(d, fmt.Sprintf("Runs: got %d, want %d", got.Runs, want.Runs))
	}
	if got.Entries != want.Entries {
		d = append(d, fmt.Sprintf("Entries: got %d, want %d", got.Entries, want.Entries))
	}
	if got.InputTokens != want.InputTokens {
		d = append(d, fmt.Sprintf("InputTokens: got %d, want %d", got.InputTokens, want.InputTokens))
	}
	if got.OutputTokens != want.OutputTokens {
		d = append(d, fmt.Sprintf("OutputTokens: got %d, want %d", got.OutputTokens, want.OutputTokens))
	}
	// Costs are sums of floats; a store may add them in another order (or in SQL).
	if math.Abs(got.CostUSD-want.CostUSD) > 1e-9 {
		d = append(d, fmt.Sprintf("CostUSD: got %v, want %v", got.CostUSD, want.CostUSD))
	}
	return d
}

// diffChat lists the fields that differ between two chats. Tags compare as sets (a store may
// keep them in any order); nil and empty attributes or tags are the same.
func diffChat(got, want *annals.Chat) []string {
	var d []string
	str := func(field, g, w string) {
		if g != w {
			d = append(d, fmt.Sprintf("%s: got %q, want %q", field, g, w))
		}
	}
	str("ID", got.ID, want.ID)
	str("TenantID", got.TenantID, want.TenantID)
	str("UserID", got.UserID, want.UserID)
	str("AgentID", got.AgentID, want.AgentID)
	if !sameAttributes(got.Attributes, want.Attributes) {
		d = append(d, fmt.Sprintf("Attributes: got %v, want %v", got.Attributes, want.Attributes))
	}
	if !got.CreatedAt.Equal(want.CreatedAt) {
		d = append(d, fmt.Sprintf("CreatedAt: got %v, want %v", got.CreatedAt, want.CreatedAt))
	}
	if !got.LastActivity.Equal(want.LastActivity) {
		d = append(d, fmt.Sprintf("LastActivity: got %v, want %v", got.LastActivity, want.LastActivity))
	}
	str("Status", string(got.Status), string(want.Status))
	str("Title", got.Title, want.Title)
	str("Description", got.Description, want.Description)
	if !sameSet(got.Tags, want.Tags) {
		d = append(d, fmt.Sprintf("Tags: got %q, want %q", got.Tags, want.Tags))
	}
	if got.Pinned != want.Pinned {
		d = append(d, fmt.Sprintf("Pinned: got %v, want %v", got.Pinned, want.Pinned))
	}
	if !sameTimePtr(got.ArchivedAt, want.ArchivedAt) {
		d = append(d, fmt.Sprintf("ArchivedAt: got %s, want %s", fmtTimePtr(got.ArchivedAt), fmtTimePtr(want.ArchivedAt)))
	}
	str("Summary", got.Summary, want.Summary)
	if !sameTimePtr(got.SummaryUpdatedAt, want.SummaryUpdatedAt) {
		d = append(d, fmt.Sprintf("SummaryUpdatedAt: got %s, want %s", fmtTimePtr(got.SummaryUpdatedAt), fmtTimePtr(want.SummaryUpdatedAt)))
	}
	for _, td := range diffTotals(got.Totals, want.Totals) {
		d = append(d, "Totals."+td)
	}
	return d
}

// diffEntry lists the fields that differ between two entries. JSON fields compare by value, not
// by bytes: a store may normalise whitespace or key order (PostgreSQL jsonb does).
func diffEntry(got, want *annals.Entry) []string {
	var d []string
	str := func(field, g, w string) {
		if g != w {
			d = append(d, fmt.Sprintf("%s: got %q, want %q", field, g, w))
		}
	}
	num := func(field string, g, w int64) {
		if g != w {
			d = append(d, fmt.Sprintf("%s: got %d, want %d", field, g, w))
		}
	}
	str("ChatID", got.ChatID, want.ChatID)
	str("ID", got.ID, want.ID)
	num("Seq", got.Seq, want.Seq)
	str("Kind", string(got.Kind), string(want.Kind))
	str("RunID", got.RunID, want.RunID)
	if !slices.Equal(got.SourceIDs, want.SourceIDs) && !(len(got.SourceIDs) == 0 && len(want.SourceIDs) == 0) {
		d = append(d, fmt.Sprintf("SourceIDs: got %q, want %q", got.SourceIDs, want.SourceIDs))
	}
	str("Channel", got.Channel, want.Channel)
	str("CorrelationID", got.CorrelationID, want.CorrelationID)
	if !got.Time.Equal(want.Time) {
		d = append(d, fmt.Sprintf("Time: got %v, want %v", got.Time, want.Time))
	}
	str("Text", got.Text, want.Text)
	str("Reasoning", got.Reasoning, want.Reasoning)
	switch {
	case got.Tool == nil && want.Tool != nil:
		d = append(d, fmt.Sprintf("Tool: got nil, want %+v", *want.Tool))
	case got.Tool != nil && want.Tool == nil:
		d = append(d, fmt.Sprintf("Tool: got %+v, want nil", *got.Tool))
	case got.Tool != nil:
		str("Tool.Name", got.Tool.Name, want.Tool.Name)
		str("Tool.CallID", got.Tool.CallID, want.Tool.CallID)
		if !sameJSON(got.Tool.Arguments, want.Tool.Arguments) {
			d = append(d, fmt.Sprintf("Tool.Arguments: got %s, want %s", got.Tool.Arguments, want.Tool.Arguments))
		}
		str("Tool.Result", got.Tool.Result, want.Tool.Result)
		str("Tool.Outcome", string(got.Tool.Outcome), string(want.Tool.Outcome))
	}
	num("InputTokens", got.InputTokens, want.InputTokens)
	num("OutputTokens", got.OutputTokens, want.OutputTokens)
	if !sameJSON(got.Metadata, want.Metadata) {
		d = append(d, fmt.Sprintf("Metadata: got %s, want %s", got.Metadata, want.Metadata))
	}
	return d
}

// diffRun lists the fields that differ between two runs.
func diffRun(got, want *annals.Run) []string {
	var d []string
	if got.ID != want.ID || got.ChatID != want.ChatID || got.Status != want.Status || got.Model != want.Model {
		d = append(d, fmt.Sprintf("identity: got (id %q, chat %q, status %q, model %q), want (id %q, chat %q, status %q, model %q)",
			got.ID, got.ChatID, got.Status, got.Model, want.ID, want.ChatID, want.Status, want.Model))
	}
	if !got.StartedAt.Equal(want.StartedAt) {
		d = append(d, fmt.Sprintf("StartedAt: got %v, want %v", got.StartedAt, want.StartedAt))
	}
	if !sameTimePtr(got.EndedAt, want.EndedAt) {
		d = append(d, fmt.Sprintf("EndedAt: got %s, want %s", fmtTimePtr(got.EndedAt), fmtTimePtr(want.EndedAt)))
	}
	if got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens {
		d = append(d, fmt.Sprintf("tokens: got %d/%d, want %d/%d", got.InputTokens, got.OutputTokens, want.InputTokens, want.OutputTokens))
	}
	if got.CacheReadTokens != want.CacheReadTokens || got.CacheCreationTokens != want.CacheCreationTokens || got.ContextTokens != want.ContextTokens {
		d = append(d, fmt.Sprintf("cache read/created, context: got %d/%d, %d, want %d/%d, %d", got.CacheReadTokens, got.CacheCreationTokens,
			got.ContextTokens, want.CacheReadTokens, want.CacheCreationTokens, want.ContextTokens))
	}
	if got.CacheReadTokens != want.CacheReadTokens || got.CacheCreationTokens != want.CacheCreationTokens || got.ContextTokens != want.ContextTokens {
		d = append(d, fmt.Sprintf("cache read/created, context: got %d/%d, %d, want %d/%d, %d", got.CacheReadTokens, got.CacheCreationTokens,
			got.ContextTokens, want.CacheReadTokens, want.CacheCreationTokens, want.ContextTokens))
	}
	if math.Abs(got.CostUSD-want.CostUSD) > 1e-9 {
		d = append(d, fmt.Sprintf("CostUSD: got %v, want %v", got.CostUSD, want.CostUSD))
	}
	if got.Kind != want.Kind {
		d = append(d, fmt.Sprintf("Kind: got %q, want %q", got.Kind, want.Kind))
	}
	return d
}

func sameJSON(a, b json.RawMessage) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

func sameAttributes(a, b annals.Attributes) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func sameTimePtr(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func fmtTimePtr(p *time.Time) string {
	if p == nil {
		return "nil"
	}
	return p.String()
}

func chatIDs(cs []*annals.Chat) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

func entryIDs(es []*annals.Entry) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// cloneEntry deep-copies an entry, so an expectation is never the value a store was handed
// (a store is allowed to set ChatID or Seq on its input).
func cloneEntry(e *annals.Entry) *annals.Entry {
	c := *e
	c.SourceIDs = slices.Clone(e.SourceIDs)
	c.Metadata = slices.Clone(e.Metadata)
	if e.Tool != nil {
		tc := *e.Tool
		tc.Arguments = slices.Clone(e.Tool.Arguments)
		c.Tool = &tc
	}
	return &c
}

func ref(chatID string, seq int64) annals.EntryRef { return annals.EntryRef{ChatID: chatID, Seq: seq} }

func tenant(id string) annals.Owner { return annals.Owner{TenantID: id} }

var allTenants = annals.Owner{AllTenants: true}

func ptr[T any](v T) *T { return &v }

// tick waits long enough for a wall clock read by the store to move on, for the few checks
// that need one write to be strictly later than another.
func tick() { time.Sleep(3 * time.Millisecond) }
