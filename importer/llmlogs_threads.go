package importer

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/annals-dev/annals"
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
	threadRows, err := queryMaps(ctx, r.db, `SELECT * FROM threads ORDER BY datetime_utc, id`)
	if err != nil {
		return fmt.Errorf("llm: reading threads: %w", err)
	}
	// Forks after their origin, so a parent chat exists before the chats pointing to it.
	sort.SliceStable(threadRows, func(i, j int) bool {
		return colString(threadRows[i], "forked_from") == "" && colString(threadRows[j], "forked_from") != ""
	})
	for _, th := range threadRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		tid := colString(th, "id")
		threadIDs[tid] = true
		if err := r.thread(tid, th, d); err != nil {
			return err
		}
	}
	return nil
}

// threadData reads the messages, parts, attachments and turns, and attributes the messages to turns.
func (r *llmReader) threadData(ctx context.Context, turnIDs map[string]bool) (*llmThreadData, error) {
	msgRows, err := queryMaps(ctx, r.db, `SELECT rowid AS rid, * FROM messages`)
	if err != nil {
		return nil, fmt.Errorf("llm: reading messages: %w", err)
	}
	d := &llmThreadData{msgs: make(map[string]*llmMsg, len(msgRows)), parts: map[string][]map[string]any{}, partAttach: map[int64][]string{}}
	for _, m := range msgRows {
		h := colString(m, "hash")
		d.msgs[h] = &llmMsg{hash: h, parent: colString(m, "parent_hash"), role: colString(m, "role"), meta: colString(m, "provider_metadata")}
	}
	partRows, err := queryMaps(ctx, r.db, `SELECT * FROM parts ORDER BY message_hash, position, id`)
	if err != nil {
		return nil, fmt.Errorf("llm: reading parts: %w", err)
	}
	for _, p := range partRows {
		h := colString(p, "message_hash")
		d.parts[h] = append(d.parts[h], p)
	}
	if r.tables["part_attachments"] {
		rows, err := queryMaps(ctx, r.db, `SELECT part_id, attachment_id FROM part_attachments ORDER BY part_id, "order"`)
		if err == nil {
			for _, m := range rows {
				d.partAttach[colInt(m, "part_id")] = append(d.partAttach[colInt(m, "part_id")], colString(m, "attachment_id"))
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
	turnRows, err := queryMaps(ctx, r.db, `SELECT * FROM turns ORDER BY datetime_utc, id`)
	if err != nil {
		return fmt.Errorf("llm: reading turns: %w", err)
	}
	d.byThread = map[string][]*llmTurn{}
	for _, m := range turnRows {
		t := &llmTurn{id: colString(m, "id"), thread: colString(m, "thread_id"), parent: colString(m, "parent_message_hash"),
			tip: colString(m, "tip_message_hash"), model: firstNonEmpty(colString(m, "resolved_model"), colString(m, "model")),
			when: llmTime(colString(m, "datetime_utc")), durMS: colInt(m, "duration_ms"), in: colInt(m, "input_tokens"), outTok: colInt(m, "output_tokens")}
		t.extra = map[string]any{}
		if v := colString(m, "options_json"); v != "" && v != "{}" {
			t.extra["options"] = rawJSON(v)
		}
		if v := colString(m, "token_details"); v != "" {
			t.extra["token_details"] = rawJSON(v)
		}
		if v := colString(m, "schema_id"); v != "" {
			t.extra["schema_id"] = v
		}
		if m := colString(m, "model"); m != t.model {
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
	chatID := ChatID(r.f.Name(), tid)
	chain := r.chain(tid, colString(th, "tip_message_hash"), d)
	attrs := annals.Attributes{"source": r.f.Name()}
	if ff := colString(th, "forked_from"); ff != "" {
		attrs["parent"] = ChatID(r.f.Name(), ff)
	}
	own := d.byThread[tid]
	for _, t := range own {
		if t.model != "" {
			attrs["model"] = t.model
			break
		}
	}
	created := llmTime(colString(th, "datetime_utc"))
	if err := r.out.Emit(annals.CaptureOp{Chat: cleanChat(&annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: colString(th, "name")})}); err != nil {
		return err
	}
	if err := emitEntries(chatID, r.threadEntries(chain, own, created, d), r.out); err != nil {
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
				e.Metadata = mergeMeta(e.Metadata, map[string]any{"turn": t.extra})
			}
			entries = append(entries, e)
		}
		if m.meta != "" && len(entries) > 0 {
			pm, _ := scrubOpaque(rawJSON(m.meta))
			entries[len(entries)-1].Metadata = mergeMeta(entries[len(entries)-1].Metadata, map[string]any{"provider_metadata": pm})
		}
	}
	return entries
}

// part maps one parts row to an entry; a tool result lands on its call's entry (and returns
// nil) when the call is in open.
func (r *llmReader) part(role, hash string, p map[string]any, when time.Time, open map[string]*annals.Entry, partAttach map[int64][]string, attachments map[string]map[string]any) *annals.Entry {
	pos := int(colInt(p, "position"))
	e := &annals.Entry{ID: EntryID(hash, pos), Time: when, SourceIDs: []string{SafeID(hash, annals.MaxIDBytes)}}
	payload, _ := decodeObject([]byte(colString(p, "payload")))
	text := colString(p, "text")
	if text == "" && payload != nil {
		text = r.textRef(payload.arr("text_ref"))
	}
	kind := annals.KindUser
	switch role {
	case "assistant":
		kind = annals.KindAssistant
	case "system":
		kind = annals.KindSystem
	}
	typ := colString(p, "type")
	switch typ {
	case "text":
		e.Kind = kind
		e.Text = Truncated(ValidText(text), annals.MaxEntryBytes/2)
		e.Metadata = safeMeta(map[string]any{"payload": extras(payload, "text_ref")})
	case "reasoning":
		e.Kind = annals.KindAssistant
		e.Reasoning = Truncated(ValidText(text), annals.MaxEntryBytes/2)
		ex, dropped := scrubOpaque(rawJSON(colString(p, "payload")))
		redacted := payload.boolean("redacted")
		meta := map[string]any{"redacted_thinking": boolOrNil(redacted), "encrypted_reasoning": boolOrNil(dropped)}
		if exo, err := decodeObject(ex); err == nil {
			meta["payload"] = extras(exo, "redacted")
		}
		e.Metadata = Metadata(meta)
	case "tool_call":
		e.Kind = annals.KindTool
		e.Tool = &annals.ToolCall{
			Name:      copilotToolName(firstNonEmpty(colString(p, "tool_name"), payload.str("name"))),
			CallID:    SafeID(payload.str("tool_call_id"), annals.MaxIDBytes),
			Arguments: copilotArgs(payload.raw("arguments")),
		}
		e.Metadata = safeMeta(map[string]any{"payload": extras(payload, "name", "arguments", "tool_call_id")})
		if e.Tool.CallID != "" {
			open[e.Tool.CallID] = e
		}
	case "tool_result":
		callID := payload.str("tool_call_id")
		res, outcome, meta := llmToolResult(textOf(payload.raw("output")), payload.str("exception"))
		if call := open[callID]; callID != "" && call != nil {
			call.Tool.Result, call.Tool.Outcome = res, outcome
			if meta != nil {
				call.Metadata = mergeMeta(call.Metadata, meta)
			}
			delete(open, callID)
			return nil
		}
		e.Kind = annals.KindTool
		e.Tool = &annals.ToolCall{Name: copilotToolName(firstNonEmpty(colString(p, "tool_name"), payload.str("name"))), CallID: SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
		e.Metadata = mergeMeta(safeMeta(map[string]any{"orphan_result": true, "payload": extras(payload, "name", "output", "tool_call_id", "exception")}), meta)
	case "attachment":
		e.Kind = annals.KindEvent
		e.Channel = "llm/attachment"
		ids := partAttach[colInt(p, "id")]
		if aid := payload.str("attachment_id"); aid != "" && len(ids) == 0 {
			ids = []string{aid}
		}
		e.Text, e.Metadata = llmAttachmentText(ids, attachments, payload)
	default:
		e.Kind = annals.KindEvent
		e.Channel = "llm/" + sanitizeChannel(firstNonEmpty(typ, "unknown"))
		e.Text = ValidText(text)
		e.Metadata = safeMeta(map[string]any{"payload": extras(payload), "tool_name": colString(p, "tool_name")})
	}
	return e
}
