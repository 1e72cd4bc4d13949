package llmlogs

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// llmMsg is one messages row of the content-addressed generation.
type llmMsg struct {
	hash, parent, role string
	meta               string
}

// llmThreadData is what every thread is read from: the messages, their parts and attachments,
// the turns, and which turn produced or prompted each message.
type llmThreadData struct {
	msgs        map[string]*llmMsg
	parts       map[string][]map[string]any
	partAttach  map[int64][]string
	attachments map[string]map[string]any
	turns       []*llmTurn
	byThread    map[string][]*llmTurn
	producedBy  map[string]*llmTurn
	promptOf    map[string]*llmTurn
}

// threads imports the content-addressed generation: one chat per thread.
func (r *llmReader) threads(ctx context.Context, threadIDs, turnIDs map[string]bool) error {
	d, err := r.threadData(ctx, turnIDs)
	if err != nil {
		return err
	}
	threadRows, err := reader.QueryMaps(ctx, r.db, `SELECT * FROM threads ORDER BY datetime_utc, id`)
	if err != nil {
		return fmt.Errorf("llm: reading threads: %w", err)
	}
	// Forks after their origin, so a parent chat exists before the chats pointing to it.
	sort.SliceStable(threadRows, func(i, j int) bool {
		return reader.ColString(threadRows[i], "forked_from") == "" && reader.ColString(threadRows[j], "forked_from") != ""
	})
	for _, th := range threadRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		tid := reader.ColString(th, "id")
		threadIDs[tid] = true
		if err := r.thread(tid, th, d); err != nil {
			return err
		}
	}
	return nil
}

// threadData reads the messages, parts, attachments and turns, and attributes the messages to turns.
func (r *llmReader) threadData(ctx context.Context, turnIDs map[string]bool) (*llmThreadData, error) {
	msgRows, err := reader.QueryMaps(ctx, r.db, `SELECT rowid AS rid, * FROM messages`)
	if err != nil {
		return nil, fmt.Errorf("llm: reading messages: %w", err)
	}
	d := &llmThreadData{msgs: make(map[string]*llmMsg, len(msgRows)), parts: map[string][]map[string]any{}, partAttach: map[int64][]string{}}
	for _, m := range msgRows {
		h := reader.ColString(m, "hash")
		d.msgs[h] = &llmMsg{hash: h, parent: reader.ColString(m, "parent_hash"), role: reader.ColString(m, "role"), meta: reader.ColString(m, "provider_metadata")}
	}
	partRows, err := reader.QueryMaps(ctx, r.db, `SELECT * FROM parts ORDER BY message_hash, position, id`)
	if err != nil {
		return nil, fmt.Errorf("llm: reading parts: %w", err)
	}
	for _, p := range partRows {
		h := reader.ColString(p, "message_hash")
		d.parts[h] = append(d.parts[h], p)
	}
	if r.tables["part_attachments"] {
		rows, err := reader.QueryMaps(ctx, r.db, `SELECT part_id, attachment_id FROM part_attachments ORDER BY part_id, "order"`)
		if err == nil {
			for _, m := range rows {
				d.partAttach[reader.ColInt(m, "part_id")] = append(d.partAttach[reader.ColInt(m, "part_id")], reader.ColString(m, "attachment_id"))
			}
		}
	}
	d.attachments = r.attachments(ctx)
	if err := r.readTurns(ctx, d, turnIDs); err != nil {
		return nil, err
	}
	d.attribute()
	return d, nil
}

// readTurns reads the turns rows, in time order, into d.
func (r *llmReader) readTurns(ctx context.Context, d *llmThreadData, turnIDs map[string]bool) error {
	turnRows, err := reader.QueryMaps(ctx, r.db, `SELECT * FROM turns ORDER BY datetime_utc, id`)
	if err != nil {
		return fmt.Errorf("llm: reading turns: %w", err)
	}
	d.byThread = map[string][]*llmTurn{}
	for _, m := range turnRows {
		t := &llmTurn{id: reader.ColString(m, "id"), thread: reader.ColString(m, "thread_id"), parent: reader.ColString(m, "parent_message_hash"),
			tip: reader.ColString(m, "tip_message_hash"), model: reader.FirstNonEmpty(reader.ColString(m, "resolved_model"), reader.ColString(m, "model")),
			when: llmTime(reader.ColString(m, "datetime_utc")), durMS: reader.ColInt(m, "duration_ms"), in: reader.ColInt(m, "input_tokens"), outTok: reader.ColInt(m, "output_tokens")}
		t.extra = map[string]any{}
		if v := reader.ColString(m, "options_json"); v != "" && v != "{}" {
			t.extra["options"] = reader.RawJSON(v)
		}
		if v := reader.ColString(m, "token_details"); v != "" {
			t.extra["token_details"] = reader.RawJSON(v)
		}
		if v := reader.ColString(m, "schema_id"); v != "" {
			t.extra["schema_id"] = v
		}
		if m := reader.ColString(m, "model"); m != t.model {
			t.extra["requested_model"] = m
		}
		d.turns = append(d.turns, t)
		d.byThread[t.thread] = append(d.byThread[t.thread], t)
		turnIDs[t.id] = true
	}
	return nil
}

// attribute records which turn produced each message: the messages after a turn's parent up
// to its tip are its output, and the parent itself is its prompt (unless an earlier turn
// produced it).
func (d *llmThreadData) attribute() {
	d.producedBy = map[string]*llmTurn{}
	d.promptOf = map[string]*llmTurn{}
	for _, t := range d.turns {
		seen := 0
		for h := t.tip; h != "" && h != t.parent && seen < 100000; seen++ {
			if _, ok := d.producedBy[h]; !ok {
				d.producedBy[h] = t
			}
			m := d.msgs[h]
			if m == nil {
				break
			}
			h = m.parent
		}
		if t.parent != "" {
			if _, ok := d.promptOf[t.parent]; !ok {
				d.promptOf[t.parent] = t
			}
		}
	}
}

// thread emits one thread: its chat, its entries and the runs of its own turns.
func (r *llmReader) thread(tid string, th map[string]any, d *llmThreadData) error {
	chatID := reader.ChatID(r.f.Name(), tid)
	chain := r.chain(tid, reader.ColString(th, "tip_message_hash"), d)
	attrs := annals.Attributes{"source": r.f.Name()}
	if ff := reader.ColString(th, "forked_from"); ff != "" {
		attrs["parent"] = reader.ChatID(r.f.Name(), ff)
	}
	own := d.byThread[tid]
	for _, t := range own {
		if t.model != "" {
			attrs["model"] = t.model
			break
		}
	}
	created := llmTime(reader.ColString(th, "datetime_utc"))
	if err := r.out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: reader.ColString(th, "name")})}); err != nil {
		return err
	}
	if err := reader.EmitEntries(chatID, r.threadEntries(chain, own, created, d), r.out); err != nil {
		return err
	}
	for _, t := range own {
		if err := r.out.Emit(annals.CaptureOp{Run: t.run(r, chatID)}); err != nil {
			return err
		}
	}
	return nil
}

// chain returns the messages from the root to tip, following parent hashes back from the tip.
func (r *llmReader) chain(tid, tip string, d *llmThreadData) []*llmMsg {
	var chain []*llmMsg
	seen := map[string]bool{}
	for h := tip; h != ""; {
		m := d.msgs[h]
		if m == nil {
			r.out.Warnf(0, "threads %s: message %s is missing; the transcript starts after it", tid, h)
			break
		}
		if seen[h] {
			r.out.Warnf(0, "threads %s: the message chain loops at %s", tid, h)
			break
		}
		seen[h] = true
		chain = append(chain, m)
		h = m.parent
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}

// threadEntries maps a thread's chain to entries; entries of the thread's own turns carry
// their run.
func (r *llmReader) threadEntries(chain []*llmMsg, own []*llmTurn, created time.Time, d *llmThreadData) []*annals.Entry {
	ownSet := map[*llmTurn]bool{}
	for _, t := range own {
		ownSet[t] = true
	}
	open := map[string]*annals.Entry{}
	extraDone := map[*llmTurn]bool{}
	var entries []*annals.Entry
	last := created
	for _, m := range chain {
		t := d.producedBy[m.hash]
		if t == nil {
			t = d.promptOf[m.hash]
		}
		when := last
		runID := ""
		if t != nil {
			if !t.when.IsZero() {
				when = t.when
				last = when
			}
			if ownSet[t] {
				runID = r.runID(t.id)
			}
		}
		for _, p := range d.parts[m.hash] {
			e := r.part(m.role, m.hash, p, when, open, d.partAttach, d.attachments)
			if e == nil {
				continue
			}
			e.RunID = runID
			if runID != "" && !extraDone[t] && len(t.extra) > 0 {
				// What the call was asked with rides on the first entry of its turn.
				extraDone[t] = true
				e.Metadata = reader.MergeMeta(e.Metadata, map[string]any{"turn": t.extra})
			}
			entries = append(entries, e)
		}
		if m.meta != "" && len(entries) > 0 {
			pm, _ := reader.ScrubOpaque(reader.RawJSON(m.meta))
			entries[len(entries)-1].Metadata = reader.MergeMeta(entries[len(entries)-1].Metadata, map[string]any{"provider_metadata": pm})
		}
	}
	return entries
}

// part maps one parts row to an entry; a tool result lands on its call's entry (and returns
// nil) when the call is in open.
func (r *llmReader) part(role, hash string, p map[string]any, when time.Time, open map[string]*annals.Entry, partAttach map[int64][]string, attachments map[string]map[string]any) *annals.Entry {
	pos := int(reader.ColInt(p, "position"))
	e := &annals.Entry{ID: reader.EntryID(hash, pos), Time: when, SourceIDs: []string{reader.SafeID(hash, annals.MaxIDBytes)}}
	payload, _ := reader.DecodeObject([]byte(reader.ColString(p, "payload")))
	text := reader.ColString(p, "text")
	if text == "" && payload != nil {
		text = r.textRef(payload.Arr("text_ref"))
	}
	kind := annals.KindUser
	switch role {
	case "assistant":
		kind = annals.KindAssistant
	case "system":
		kind = annals.KindSystem
	}
	typ := reader.ColString(p, "type")
	switch typ {
	case "text":
		e.Kind = kind
		e.Text = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/2)
		e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(payload, "text_ref")})
	case "reasoning":
		e.Kind = annals.KindAssistant
		e.Reasoning = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/2)
		ex, dropped := reader.ScrubOpaque(reader.RawJSON(reader.ColString(p, "payload")))
		redacted := payload.Boolean("redacted")
		meta := map[string]any{"redacted_thinking": reader.BoolOrNil(redacted), "encrypted_reasoning": reader.BoolOrNil(dropped)}
		if exo, err := reader.DecodeObject(ex); err == nil {
			meta["payload"] = reader.Extras(exo, "redacted")
		}
		e.Metadata = reader.Metadata(meta)
	case "tool_call":
		e.Kind = annals.KindTool
		e.Tool = &annals.ToolCall{
			Name:      reader.ToolName(reader.FirstNonEmpty(reader.ColString(p, "tool_name"), payload.Str("name"))),
			CallID:    reader.SafeID(payload.Str("tool_call_id"), annals.MaxIDBytes),
			Arguments: reader.CallArgs(payload.Raw("arguments")),
		}
		e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(payload, "name", "arguments", "tool_call_id")})
		if e.Tool.CallID != "" {
			open[e.Tool.CallID] = e
		}
	case "tool_result":
		callID := payload.Str("tool_call_id")
		res, outcome, meta := llmToolResult(reader.TextOf(payload.Raw("output")), payload.Str("exception"))
		if call := open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = res, outcome
			if meta != nil {
				call.Metadata = reader.MergeMeta(call.Metadata, meta)
			}
			delete(open, callID)
			return nil
		}
		e.Kind = annals.KindTool
		e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.FirstNonEmpty(reader.ColString(p, "tool_name"), payload.Str("name"))), CallID: reader.SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
		e.Metadata = reader.MergeMeta(reader.SafeMeta(map[string]any{"orphan_result": true, "payload": reader.Extras(payload, "name", "output", "tool_call_id", "exception")}), meta)
	case "attachment":
		e.Kind = annals.KindEvent
		e.Channel = "llm/attachment"
		ids := partAttach[reader.ColInt(p, "id")]
		if aid := payload.Str("attachment_id"); aid != "" && len(ids) == 0 {
			ids = []string{aid}
		}
		e.Text, e.Metadata = llmAttachmentText(ids, attachments, payload)
	default:
		e.Kind = annals.KindEvent
		e.Channel = "llm/" + reader.SanitizeChannel(reader.FirstNonEmpty(typ, "unknown"))
		e.Text = reader.ValidText(text)
		e.Metadata = reader.SafeMeta(map[string]any{"payload": reader.Extras(payload), "tool_name": reader.ColString(p, "tool_name")})
	}
	return e
}
