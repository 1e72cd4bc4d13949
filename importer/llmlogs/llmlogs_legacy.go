package llmlogs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// llmLegacyData is what every legacy conversation is read from: the rows hanging off each
// response, keyed by response id.
type llmLegacyData struct {
	calls, results  map[string][]map[string]any
	frags, sysFrags map[string][]llmFragmentRef
	attachByResp    map[string][]string
	attachments     map[string]map[string]any
}

// legacy imports the responses generation: one chat per conversation that has no thread.
func (r *llmReader) legacy(ctx context.Context, threadIDs, turnIDs map[string]bool) error {
	cols, err := reader.TableColumns(ctx, r.db, "responses")
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	convs := map[string]map[string]any{}
	if r.tables["conversations"] {
		rows, err := reader.QueryMaps(ctx, r.db, `SELECT * FROM conversations`)
		if err != nil {
			return fmt.Errorf("llm: reading conversations: %w", err)
		}
		for _, m := range rows {
			convs[reader.ColString(m, "id")] = m
		}
	}
	byConv, convOrder, err := r.legacyResponses(ctx, cols, threadIDs, turnIDs)
	if err != nil {
		return err
	}
	d := r.legacyData(ctx)
	for _, cid := range convOrder {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.conversation(cid, convs[cid], byConv[cid], d); err != nil {
			return err
		}
	}
	return nil
}

// legacyResponses reads the responses not already read from the threads, grouped by
// conversation, and the conversations in the order they first appear.
func (r *llmReader) legacyResponses(ctx context.Context, cols map[string]bool, threadIDs, turnIDs map[string]bool) (map[string][]map[string]any, []string, error) {
	order := "id"
	if cols["datetime_utc"] {
		order = "datetime_utc, id"
	}
	rows, err := reader.QueryMaps(ctx, r.db, `SELECT * FROM responses ORDER BY `+order)
	if err != nil {
		return nil, nil, fmt.Errorf("llm: reading responses: %w", err)
	}
	byConv := map[string][]map[string]any{}
	var convOrder []string
	for _, m := range rows {
		id := reader.ColString(m, "id")
		if turnIDs[id] {
			continue // the same model call, already read from the turns
		}
		cid := reader.ColString(m, "conversation_id")
		if cid == "" {
			cid = id // a response outside any conversation is a chat of its own
		}
		if threadIDs[cid] {
			continue // the thread holds this conversation, including these messages
		}
		if _, ok := byConv[cid]; !ok {
			convOrder = append(convOrder, cid)
		}
		byConv[cid] = append(byConv[cid], m)
	}
	return byConv, convOrder, nil
}

func (r *llmReader) legacyData(ctx context.Context) *llmLegacyData {
	d := &llmLegacyData{
		calls:        r.byResponse(ctx, "tool_calls"),
		results:      r.byResponse(ctx, "tool_results"),
		frags:        r.responseFragments(ctx, "prompt_fragments"),
		sysFrags:     r.responseFragments(ctx, "system_fragments"),
		attachByResp: map[string][]string{},
	}
	if r.tables["prompt_attachments"] {
		if rows, err := reader.QueryMaps(ctx, r.db, `SELECT response_id, attachment_id FROM prompt_attachments ORDER BY response_id, "order"`); err == nil {
			for _, m := range rows {
				d.attachByResp[reader.ColString(m, "response_id")] = append(d.attachByResp[reader.ColString(m, "response_id")], reader.ColString(m, "attachment_id"))
			}
		}
	}
	d.attachments = r.attachments(ctx)
	return d
}

// llmConv is one legacy conversation being read.
type llmConv struct {
	chatID     string
	open       map[string]*annals.Entry
	entries    []*annals.Entry
	runs       []*annals.Run
	lastSystem string
}

// conversation emits one legacy conversation: its chat, its entries, and a run per response.
func (r *llmReader) conversation(cid string, conv map[string]any, resps []map[string]any, d *llmLegacyData) error {
	c := &llmConv{chatID: reader.ChatID(r.f.Name(), cid), open: map[string]*annals.Entry{}}
	attrs := annals.Attributes{"source": r.f.Name()}
	if m := reader.FirstNonEmpty(reader.ColString(conv, "model"), reader.ColString(resps[0], "model")); m != "" {
		attrs["model"] = m
	}
	created := llmTime(reader.ColString(resps[0], "datetime_utc"))
	if err := r.out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: c.chatID, Attributes: attrs, CreatedAt: created, Title: reader.ColString(conv, "name")})}); err != nil {
		return err
	}
	for _, m := range resps {
		r.response(c, m, d)
	}
	if err := reader.EmitEntries(c.chatID, c.entries, r.out); err != nil {
		return err
	}
	for _, run := range c.runs {
		if err := r.out.Emit(annals.CaptureOp{Run: run}); err != nil {
			return err
		}
	}
	return nil
}

// response adds one responses row to c: the system prompt when it changed, the prompt, its
// attachments and tool results, the reply and its tool calls, and its run.
func (r *llmReader) response(c *llmConv, m map[string]any, d *llmLegacyData) {
	rid := reader.ColString(m, "id")
	when := llmTime(reader.ColString(m, "datetime_utc"))
	runID := r.runID(rid)
	src := []string{reader.SafeID(rid, annals.MaxIDBytes)}
	mk := func(suffix string, kind annals.EntryKind) *annals.Entry {
		return &annals.Entry{ID: reader.SafeID(rid, annals.MaxIDBytes-len(suffix)-1) + "#" + suffix, Kind: kind, RunID: runID, SourceIDs: src, Time: when}
	}
	system := joinNonEmpty(r.fragmentTexts(d.sysFrags[rid]), reader.ColString(m, "system"))
	if system != "" && system != c.lastSystem {
		e := mk("system", annals.KindSystem)
		e.Text = reader.Truncated(reader.ValidText(system), annals.MaxEntryBytes/2)
		c.entries = append(c.entries, e)
	}
	c.lastSystem = system
	if prompt := joinNonEmpty(r.fragmentTexts(d.frags[rid]), reader.ColString(m, "prompt")); prompt != "" {
		e := mk("prompt", annals.KindUser)
		e.Text = reader.Truncated(reader.ValidText(prompt), annals.MaxEntryBytes/2)
		if fr := d.frags[rid]; len(fr) > 0 {
			e.Metadata = reader.SafeMeta(map[string]any{"fragments": fr})
		}
		c.entries = append(c.entries, e)
	}
	for i, aid := range d.attachByResp[rid] {
		e := mk(fmt.Sprintf("attachment%d", i), annals.KindEvent)
		e.Channel = "llm/attachment"
		e.Text, e.Metadata = llmAttachmentText([]string{aid}, d.attachments, nil)
		c.entries = append(c.entries, e)
	}
	c.toolResults(d.results[rid], mk)
	text, reasoning := reader.ColString(m, "response"), reader.ColString(m, "reasoning")
	if text != "" || reasoning != "" {
		e := mk("response", annals.KindAssistant)
		e.Text = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/2)
		e.Reasoning = reader.Truncated(reader.ValidText(reasoning), annals.MaxEntryBytes/4)
		c.entries = append(c.entries, e)
	}
	for i, tc := range d.calls[rid] {
		e := mk(fmt.Sprintf("call%d", i), annals.KindTool)
		callID := reader.ColString(tc, "tool_call_id")
		e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.ColString(tc, "name")), CallID: reader.SafeID(callID, annals.MaxIDBytes), Arguments: reader.RawJSON(reader.ColString(tc, "arguments"))}
		c.entries = append(c.entries, e)
		if callID != "" {
			c.open[callID] = e
		}
	}
	c.finishResponse(m, runID, when)
}

// toolResults lands each result on its open call, or adds it as an orphan entry.
func (c *llmConv) toolResults(results []map[string]any, mk func(string, annals.EntryKind) *annals.Entry) {
	for i, tr := range results {
		callID := reader.ColString(tr, "tool_call_id")
		res, outcome, meta := llmToolResult(reader.ColString(tr, "output"), reader.ColString(tr, "exception"))
		if call := c.open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = res, outcome
			if meta != nil {
				call.Metadata = reader.MergeMeta(call.Metadata, meta)
			}
			delete(c.open, callID)
			continue
		}
		e := mk(fmt.Sprintf("result%d", i), annals.KindTool)
		e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.ColString(tr, "name")), CallID: reader.SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
		e.Metadata = reader.MergeMeta(reader.SafeMeta(map[string]any{"orphan_result": true}), meta)
		c.entries = append(c.entries, e)
	}
}

// finishResponse puts what the call was asked with, and what it cost, on its last entry, and
// adds its run.
func (c *llmConv) finishResponse(m map[string]any, runID string, when time.Time) {
	meta := map[string]any{}
	if v := reader.ColString(m, "options_json"); v != "" && v != "{}" {
		meta["options"] = reader.RawJSON(v)
	}
	if v := reader.ColString(m, "token_details"); v != "" {
		meta["token_details"] = reader.RawJSON(v)
	}
	if v := reader.ColString(m, "schema_id"); v != "" {
		meta["schema_id"] = v
	}
	if len(meta) > 0 && len(c.entries) > 0 && c.entries[len(c.entries)-1].RunID == runID {
		c.entries[len(c.entries)-1].Metadata = reader.MergeMeta(c.entries[len(c.entries)-1].Metadata, meta)
	}
	run := &annals.Run{ID: runID, ChatID: c.chatID, Status: annals.StatusCompleted, StartedAt: when,
		Model:       reader.SafeID(reader.FirstNonEmpty(reader.ColString(m, "resolved_model"), reader.ColString(m, "model")), annals.MaxIDBytes),
		InputTokens: reader.ColInt(m, "input_tokens"), OutputTokens: reader.ColInt(m, "output_tokens")}
	if d := reader.ColInt(m, "duration_ms"); d > 0 && !when.IsZero() {
		end := when.Add(time.Duration(d) * time.Millisecond)
		run.EndedAt = &end
	}
	c.runs = append(c.runs, run)
}

// byResponse reads a table keyed by response_id (tool_calls, tool_results), in id order.
func (r *llmReader) byResponse(ctx context.Context, table string) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	if !r.tables[table] {
		return out
	}
	rows, err := reader.QueryMaps(ctx, r.db, `SELECT * FROM `+table+` ORDER BY id`)
	if err != nil {
		r.out.Warnf(0, "%s: %v", table, err)
		return out
	}
	for _, m := range rows {
		out[reader.ColString(m, "response_id")] = append(out[reader.ColString(m, "response_id")], m)
	}
	return out
}

// llmFragmentRef is one fragment a prompt used.
type llmFragmentRef struct {
	ID     int64  `json:"id"`
	Hash   string `json:"hash,omitempty"`
	Source string `json:"source,omitempty"`
}

// responseFragments reads prompt_fragments or system_fragments: the fragments each response
// used, in order.
func (r *llmReader) responseFragments(ctx context.Context, table string) map[string][]llmFragmentRef {
	out := map[string][]llmFragmentRef{}
	if !r.tables[table] || !r.tables["fragments"] {
		return out
	}
	rows, err := reader.QueryMaps(ctx, r.db, `SELECT j.response_id, f.id, f.hash, f.source FROM `+table+` j JOIN fragments f ON f.id = j.fragment_id ORDER BY j.response_id, j."order"`)
	if err != nil {
		r.out.Warnf(0, "%s: %v", table, err)
		return out
	}
	for _, m := range rows {
		rid := reader.ColString(m, "response_id")
		out[rid] = append(out[rid], llmFragmentRef{ID: reader.ColInt(m, "id"), Hash: reader.ColString(m, "hash"), Source: reader.ColString(m, "source")})
	}
	return out
}

// fragmentTexts returns the contents of fragments, in order, joined by blank lines: llm sends
// a prompt's fragments ahead of the typed prompt, and that is what the model read.
func (r *llmReader) fragmentTexts(refs []llmFragmentRef) string {
	var parts []string
	for _, f := range refs {
		if c := r.fragments[f.ID]; c != "" {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, "\n\n")
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
