package connect

import (
	"encoding/json"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/annals-dev/annals"
	v1 "github.com/annals-dev/annals/connect/annalsv1"
	"github.com/annals-dev/annals/envelope"
)

// The protobuf messages as the root's types and back: field copies only. What a value means
// (times, enums, limits) is decided where the HTTP API decides it: the envelope parses the op
// request, the history service validates the capture ops.

// envelopeOf is the op envelope a HistoryRequest spells, field for field.
func envelopeOf(m *v1.HistoryRequest) *envelope.Request {
	r := &envelope.Request{
		Op: m.GetOp(), Scope: m.GetScope(), SessionID: m.GetSessionId(),
		Status: m.GetStatus(), From: m.GetFrom(), To: m.GetTo(), Tag: m.GetTag(),
		TitleContains: m.GetTitleContains(), IDPrefix: m.GetIdPrefix(), Agent: m.GetAgent(),
		PinnedOnly: m.GetPinnedOnly(), IncludeArchived: m.GetIncludeArchived(),
		Limit: int(m.GetLimit()), Offset: int(m.GetOffset()), Cursor: m.GetCursor(),
		Query: m.GetQuery(), In: m.GetIn(), Sort: m.GetSort(), Rank: m.GetRank(), Mode: m.GetMode(),
		MarkOpen: m.GetMarkOpen(), MarkClose: m.GetMarkClose(), Explain: m.GetExplain(),
		Format: m.GetFormat(), AfterSeq: m.GetAfterSeq(), AroundSeq: m.GetAroundSeq(),
		Zone: m.GetZone(), Top: int(m.GetTop()),
		Title: m.Title, Description: m.Description, Pinned: m.Pinned, Archived: m.Archived,
	}
	if m.Context != nil {
		n := int(m.GetContext())
		r.Context = &n
	}
	if m.Tags != nil {
		tags := append([]string{}, m.Tags.GetValues()...)
		r.Tags = &tags
	}
	if len(m.GetAttributes()) > 0 {
		r.Attributes = make(map[string]envelope.AttrValue, len(m.GetAttributes()))
		for k, v := range m.GetAttributes() {
			r.Attributes[k] = envelope.AttrValue{Value: v.GetValue(), Contains: v.GetContains()}
		}
	}
	return r
}

// historyRequestOf is the HistoryRequest that spells an envelope.
func historyRequestOf(r *envelope.Request) *v1.HistoryRequest {
	m := &v1.HistoryRequest{
		Op: r.Op, Scope: r.Scope, SessionId: r.SessionID,
		Status: r.Status, From: r.From, To: r.To, Tag: r.Tag,
		TitleContains: r.TitleContains, IdPrefix: r.IDPrefix, Agent: r.Agent,
		PinnedOnly: r.PinnedOnly, IncludeArchived: r.IncludeArchived,
		Limit: int32(r.Limit), Offset: int32(r.Offset), Cursor: r.Cursor,
		Query: r.Query, In: r.In, Sort: r.Sort, Rank: r.Rank, Mode: r.Mode,
		MarkOpen: r.MarkOpen, MarkClose: r.MarkClose, Explain: r.Explain,
		Format: r.Format, AfterSeq: r.AfterSeq, AroundSeq: r.AroundSeq,
		Zone: r.Zone, Top: int32(r.Top),
		Title: r.Title, Description: r.Description, Pinned: r.Pinned, Archived: r.Archived,
	}
	if r.Context != nil {
		n := int32(*r.Context)
		m.Context = &n
	}
	if r.Tags != nil {
		m.Tags = &v1.Tags{Values: append([]string{}, (*r.Tags)...)}
	}
	if len(r.Attributes) > 0 {
		m.Attributes = make(map[string]*v1.AttrMatch, len(r.Attributes))
		for k, v := range r.Attributes {
			m.Attributes[k] = &v1.AttrMatch{Value: v.Value, Contains: v.Contains}
		}
	}
	return m
}

func timeOf(t *timestamppb.Timestamp) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.AsTime()
}

func timePtrOf(t *timestamppb.Timestamp) *time.Time {
	if t == nil {
		return nil
	}
	v := t.AsTime()
	return &v
}

func stamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func stampPtr(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return stamp(*t)
}

// rawJSON is a JSON text carried as a string ("" is none).
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

func chatOf(m *v1.Chat) *annals.Chat {
	if m == nil {
		return nil
	}
	c := &annals.Chat{
		ID: m.GetId(), TenantID: m.GetTenantId(), UserID: m.GetUserId(), AgentID: m.GetAgentId(),
		CreatedAt: timeOf(m.GetCreatedAt()), LastActivity: timeOf(m.GetLastActivity()),
		Status: annals.RunStatus(m.GetStatus()), Title: m.GetTitle(), TitleGenerated: m.GetTitleGenerated(), Description: m.GetDescription(),
		Tags: m.GetTags(), Pinned: m.GetPinned(), ArchivedAt: timePtrOf(m.GetArchivedAt()),
		Summary: m.GetSummary(), SummaryUpdatedAt: timePtrOf(m.GetSummaryUpdatedAt()),
	}
	if len(m.GetAttributes()) > 0 {
		c.Attributes = annals.Attributes(m.GetAttributes())
	}
	if t := m.GetTotals(); t != nil {
		c.Totals = annals.Totals{Runs: t.GetRuns(), Entries: t.GetEntries(), InputTokens: t.GetInputTokens(),
			OutputTokens: t.GetOutputTokens(), CostUSD: t.GetCostUsd()}
	}
	return c
}

func chatMsg(c *annals.Chat) *v1.Chat {
	if c == nil {
		return nil
	}
	return &v1.Chat{
		Id: c.ID, TenantId: c.TenantID, UserId: c.UserID, AgentId: c.AgentID, Attributes: c.Attributes,
		CreatedAt: stamp(c.CreatedAt), LastActivity: stamp(c.LastActivity), Status: string(c.Status),
		Title: c.Title, TitleGenerated: c.TitleGenerated, Description: c.Description, Tags: c.Tags, Pinned: c.Pinned,
		ArchivedAt: stampPtr(c.ArchivedAt), Summary: c.Summary, SummaryUpdatedAt: stampPtr(c.SummaryUpdatedAt),
		Totals: &v1.Totals{Runs: c.Totals.Runs, Entries: c.Totals.Entries, InputTokens: c.Totals.InputTokens,
			OutputTokens: c.Totals.OutputTokens, CostUsd: c.Totals.CostUSD},
	}
}

func entryOf(m *v1.Entry) *annals.Entry {
	if m == nil {
		return nil
	}
	e := &annals.Entry{
		ChatID: m.GetChatId(), ID: m.GetId(), Seq: m.GetSeq(), Kind: annals.EntryKind(m.GetKind()),
		RunID: m.GetRunId(), SourceIDs: m.GetSourceIds(), Channel: m.GetChannel(),
		CorrelationID: m.GetCorrelationId(), Time: timeOf(m.GetTime()), Text: m.GetText(),
		Reasoning: m.GetReasoning(), InputTokens: m.GetInputTokens(), OutputTokens: m.GetOutputTokens(),
		Metadata: rawJSON(m.GetMetadataJson()),
	}
	if t := m.GetTool(); t != nil {
		e.Tool = &annals.ToolCall{Name: t.GetName(), CallID: t.GetCallId(), Arguments: rawJSON(t.GetArgumentsJson()),
			Result: t.GetResult(), Outcome: annals.Outcome(t.GetOutcome())}
	}
	return e
}

func entryMsg(e *annals.Entry) *v1.Entry {
	if e == nil {
		return nil
	}
	m := &v1.Entry{
		ChatId: e.ChatID, Id: e.ID, Seq: e.Seq, Kind: string(e.Kind), RunId: e.RunID, SourceIds: e.SourceIDs,
		Channel: e.Channel, CorrelationId: e.CorrelationID, Time: stamp(e.Time), Text: e.Text,
		Reasoning: e.Reasoning, InputTokens: e.InputTokens, OutputTokens: e.OutputTokens,
		MetadataJson: string(e.Metadata),
	}
	if t := e.Tool; t != nil {
		m.Tool = &v1.ToolCall{Name: t.Name, CallId: t.CallID, ArgumentsJson: string(t.Arguments), Result: t.Result, Outcome: string(t.Outcome)}
	}
	return m
}

func entriesOf(ms []*v1.Entry) []*annals.Entry {
	out := make([]*annals.Entry, len(ms))
	for i, m := range ms {
		out[i] = entryOf(m)
	}
	return out
}

func entryMsgs(es []*annals.Entry) []*v1.Entry {
	out := make([]*v1.Entry, len(es))
	for i, e := range es {
		out[i] = entryMsg(e)
	}
	return out
}

func runOf(m *v1.Run) *annals.Run {
	if m == nil {
		return nil
	}
	return &annals.Run{
		ID: m.GetId(), ChatID: m.GetChatId(), Status: annals.RunStatus(m.GetStatus()), Model: m.GetModel(),
		StartedAt: timeOf(m.GetStartedAt()), EndedAt: timePtrOf(m.GetEndedAt()),
		InputTokens: m.GetInputTokens(), OutputTokens: m.GetOutputTokens(), CostUSD: m.GetCostUsd(),
		CacheReadTokens: m.GetCacheReadTokens(), CacheCreationTokens: m.GetCacheCreationTokens(), ContextTokens: m.GetContextTokens(),
		Kind: annals.RunKind(m.GetKind()),
	}
}

func runMsg(r *annals.Run) *v1.Run {
	if r == nil {
		return nil
	}
	return &v1.Run{
		Id: r.ID, ChatId: r.ChatID, Status: string(r.Status), Model: r.Model,
		StartedAt: stamp(r.StartedAt), EndedAt: stampPtr(r.EndedAt),
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUsd: r.CostUSD,
		CacheReadTokens: r.CacheReadTokens, CacheCreationTokens: r.CacheCreationTokens, ContextTokens: r.ContextTokens,
		Kind: string(r.Kind),
	}
}

func pointOf(m *v1.TruncatePoint) annals.TruncatePoint {
	return annals.TruncatePoint{EntryID: m.GetEntryId(), SourceID: m.GetSourceId(), Seq: m.GetSeq()}
}

func pointMsg(p annals.TruncatePoint) *v1.TruncatePoint {
	return &v1.TruncatePoint{EntryId: p.EntryID, SourceId: p.SourceID, Seq: p.Seq}
}

// opOf is a capture op; an op with none of its fields set stays empty, which the history
// service refuses naming what is allowed.
func opOf(m *v1.CaptureOp) annals.CaptureOp {
	switch o := m.GetOp().(type) {
	case *v1.CaptureOp_Chat:
		return annals.CaptureOp{Chat: chatOf(o.Chat)}
	case *v1.CaptureOp_Append:
		return annals.CaptureOp{Append: &annals.AppendOp{ChatID: o.Append.GetChatId(), Entries: entriesOf(o.Append.GetEntries())}}
	case *v1.CaptureOp_Truncate:
		return annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: o.Truncate.GetChatId(), Point: pointOf(o.Truncate.GetPoint())}}
	case *v1.CaptureOp_Run:
		return annals.CaptureOp{Run: runOf(o.Run)}
	}
	return annals.CaptureOp{}
}

func opMsg(op annals.CaptureOp) *v1.CaptureOp {
	switch {
	case op.Chat != nil:
		return &v1.CaptureOp{Op: &v1.CaptureOp_Chat{Chat: chatMsg(op.Chat)}}
	case op.Append != nil:
		return &v1.CaptureOp{Op: &v1.CaptureOp_Append{Append: &v1.AppendOp{ChatId: op.Append.ChatID, Entries: entryMsgs(op.Append.Entries)}}}
	case op.Truncate != nil:
		return &v1.CaptureOp{Op: &v1.CaptureOp_Truncate{Truncate: &v1.TruncateOp{ChatId: op.Truncate.ChatID, Point: pointMsg(op.Truncate.Point)}}}
	case op.Run != nil:
		return &v1.CaptureOp{Op: &v1.CaptureOp_Run{Run: runMsg(op.Run)}}
	}
	return &v1.CaptureOp{}
}

func resultMsg(r *annals.CaptureResult) *v1.CaptureResponse {
	return &v1.CaptureResponse{
		ChatsCreated: int64(r.ChatsCreated), ChatsUnchanged: int64(r.ChatsUnchanged),
		EntriesAppended: int64(r.EntriesAppended), EntriesSkipped: int64(r.EntriesSkipped),
		EntriesRemoved: int64(r.EntriesRemoved), RunsRecorded: int64(r.RunsRecorded),
		LastSeq: r.LastSeq, Chat: chatMsg(r.Chat), Run: runMsg(r.Run),
	}
}

func resultOf(m *v1.CaptureResponse) *annals.CaptureResult {
	return &annals.CaptureResult{
		ChatsCreated: int(m.GetChatsCreated()), ChatsUnchanged: int(m.GetChatsUnchanged()),
		EntriesAppended: int(m.GetEntriesAppended()), EntriesSkipped: int(m.GetEntriesSkipped()),
		EntriesRemoved: int(m.GetEntriesRemoved()), RunsRecorded: int(m.GetRunsRecorded()),
		LastSeq: m.GetLastSeq(), Chat: chatOf(m.GetChat()), Run: runOf(m.GetRun()),
	}
}
