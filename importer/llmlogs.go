package importer

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// llmLogs imports the logs.db of simonw/llm, in both of its generations:
//
//   - legacy (llm up to 0.2x): a conversations table, and one responses row per model call
//     holding the prompt, the system prompt and the response text, with tool_calls on the
//     response that made them and tool_results on the response whose prompt carried them;
//     fragments and attachments hang off junction tables;
//   - content-addressed (llm 0.32+): threads point at the tip of a chain of messages (linked by
//     parent_hash), each message holds ordered parts (text, reasoning, tool_call, tool_result,
//     attachment), and turns record each model call (model, tokens, times) by the span of the
//     chain it produced. Forked threads share their prefix; forked_from names the origin.
//
// A thread reuses the id of the legacy conversation it continues, and its chain holds that
// conversation's messages again, so a conversation with a thread is read from the thread only;
// the legacy rows are read for conversations that have none. Each model call (legacy response
// or turn) becomes a run carrying its model, tokens and duration; usage is recorded on the runs
// only, so it is not counted twice.
type llmLogs struct{}

func (llmLogs) Name() string { return "llm" }

func (llmLogs) Detect(path string, head []byte) bool {
	if !isSQLite(head) {
		return false
	}
	return detectSQLiteTables(path, head, "conversations", "responses") ||
		detectSQLiteTables(path, head, "threads", "turns", "messages", "parts")
}

func (llmLogs) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".config", "io.datasette.llm", "logs.db"),
		filepath.Join(home, "Library", "Application Support", "io.datasette.llm", "logs.db"),
	}
}

// llmTime reads llm's timestamps ("2025-05-13T19:07:31.512345+00:00").
func llmTime(s string) time.Time { return ParseTime(s) }

func (f llmLogs) ParseFile(ctx context.Context, src *Source, out Output) error {
	db, err := openSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	defer db.Close()
	tables, err := sqliteTables(ctx, db)
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	r := &llmReader{f: f, db: db, tables: tables, out: out, fragments: map[int64]string{}}
	if tables["fragments"] {
		rows, err := queryMaps(ctx, db, `SELECT id, content FROM fragments`)
		if err != nil {
			return fmt.Errorf("llm: reading fragments: %w", err)
		}
		for _, m := range rows {
			r.fragments[colInt(m, "id")] = colString(m, "content")
		}
	}
	threadIDs := map[string]bool{}
	turnIDs := map[string]bool{}
	if tables["threads"] && tables["turns"] && tables["messages"] && tables["parts"] {
		if err := r.threads(ctx, threadIDs, turnIDs); err != nil {
			return err
		}
	}
	if tables["responses"] {
		if err := r.legacy(ctx, threadIDs, turnIDs); err != nil {
			return err
		}
	}
	return nil
}

type llmReader struct {
	f         llmLogs
	db        *sql.DB
	tables    map[string]bool
	out       Output
	fragments map[int64]string
}

func (r *llmReader) runID(id string) string { return SafeID(r.f.Name()+":"+id, annals.MaxIDBytes) }

// emitEntries appends entries in batches the store accepts.
func (r *llmReader) emitEntries(chatID string, entries []*annals.Entry) error {
	for len(entries) > 0 {
		n := min(len(entries), annals.MaxBatchEntries)
		if err := r.out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: entries[:n]}}); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}

// llmTurn is one turns row.
type llmTurn struct {
	id, thread, parent, tip string
	model                   string
	when                    time.Time
	durMS                   int64
	in, outTok              int64
	extra                   map[string]any
}

func (t *llmTurn) run(r *llmReader, chatID string) *annals.Run {
	run := &annals.Run{ID: r.runID(t.id), ChatID: chatID, Status: annals.StatusCompleted, Model: SafeID(t.model, annals.MaxIDBytes),
		StartedAt: t.when, InputTokens: t.in, OutputTokens: t.outTok}
	if !t.when.IsZero() && t.durMS > 0 {
		end := t.when.Add(time.Duration(t.durMS) * time.Millisecond)
		run.EndedAt = &end
	}
	return run
}

// threads imports the content-addressed generation: one chat per thread.
func (r *llmReader) threads(ctx context.Context, threadIDs, turnIDs map[string]bool) error {
	msgRows, err := queryMaps(ctx, r.db, `SELECT rowid AS rid, * FROM messages`)
	if err != nil {
		return fmt.Errorf("llm: reading messages: %w", err)
	}
	type msg struct {
		hash, parent, role string
		meta               string
	}
	msgs := make(map[string]*msg, len(msgRows))
	for _, m := range msgRows {
		h := colString(m, "hash")
		msgs[h] = &msg{hash: h, parent: colString(m, "parent_hash"), role: colString(m, "role"), meta: colString(m, "provider_metadata")}
	}
	partRows, err := queryMaps(ctx, r.db, `SELECT * FROM parts ORDER BY message_hash, position, id`)
	if err != nil {
		return fmt.Errorf("llm: reading parts: %w", err)
	}
	parts := map[string][]map[string]any{}
	for _, p := range partRows {
		h := colString(p, "message_hash")
		parts[h] = append(parts[h], p)
	}
	partAttach := map[int64][]string{}
	if r.tables["part_attachments"] {
		rows, err := queryMaps(ctx, r.db, `SELECT part_id, attachment_id FROM part_attachments ORDER BY part_id, "order"`)
		if err == nil {
			for _, m := range rows {
				partAttach[colInt(m, "part_id")] = append(partAttach[colInt(m, "part_id")], colString(m, "attachment_id"))
			}
		}
	}
	attachments := r.attachments(ctx)

	turnRows, err := queryMaps(ctx, r.db, `SELECT * FROM turns ORDER BY datetime_utc, id`)
	if err != nil {
		return fmt.Errorf("llm: reading turns: %w", err)
	}
	var turns []*llmTurn
	byThread := map[string][]*llmTurn{}
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
		turns = append(turns, t)
		byThread[t.thread] = append(byThread[t.thread], t)
		turnIDs[t.id] = true
	}
	// Which turn produced each message: the messages after a turn's parent up to its tip are
	// its output, and the parent itself is its prompt (unless an earlier turn produced it).
	producedBy := map[string]*llmTurn{}
	promptOf := map[string]*llmTurn{}
	for _, t := range turns {
		seen := 0
		for h := t.tip; h != "" && h != t.parent && seen < 100000; seen++ {
			if _, ok := producedBy[h]; !ok {
				producedBy[h] = t
			}
			m := msgs[h]
			if m == nil {
				break
			}
			h = m.parent
		}
		if t.parent != "" {
			if _, ok := promptOf[t.parent]; !ok {
				promptOf[t.parent] = t
			}
		}
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
		chatID := ChatID(r.f.Name(), tid)
		// The chain from the tip back to the root, then reversed into reading order.
		var chain []*msg
		seen := map[string]bool{}
		for h := colString(th, "tip_message_hash"); h != ""; {
			m := msgs[h]
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
		attrs := annals.Attributes{"source": r.f.Name()}
		if ff := colString(th, "forked_from"); ff != "" {
			attrs["parent"] = ChatID(r.f.Name(), ff)
		}
		own := byThread[tid]
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
		ownSet := map[*llmTurn]bool{}
		for _, t := range own {
			ownSet[t] = true
		}
		open := map[string]*annals.Entry{}
		extraDone := map[*llmTurn]bool{}
		var entries []*annals.Entry
		last := created
		for _, m := range chain {
			t := producedBy[m.hash]
			if t == nil {
				t = promptOf[m.hash]
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
			for _, p := range parts[m.hash] {
				e := r.part(m.role, m.hash, p, when, open, partAttach, attachments)
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
		if err := r.emitEntries(chatID, entries); err != nil {
			return err
		}
		for _, t := range own {
			if err := r.out.Emit(annals.CaptureOp{Run: t.run(r, chatID)}); err != nil {
				return err
			}
		}
	}
	return nil
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

// llmToolResult turns a tool's output and exception into a result text and an outcome.
func llmToolResult(output, exception string) (string, annals.Outcome, map[string]any) {
	res := Truncated(ValidText(output), annals.MaxEntryBytes/4)
	if exception == "" {
		return res, annals.OutcomeSucceeded, nil
	}
	if res == "" {
		res = ValidText(exception)
	}
	return res, annals.OutcomeFailed, map[string]any{"exception": ValidText(exception)}
}

// textRef resolves a text_ref payload: fragment references and literal segments, concatenated.
func (r *llmReader) textRef(ref []json.RawMessage) string {
	var b strings.Builder
	for _, raw := range ref {
		o, err := decodeObject(raw)
		if err != nil {
			continue
		}
		if lit, ok := o["literal"]; ok {
			b.WriteString(textOf(lit))
			continue
		}
		if o.isNum("fragment") {
			b.WriteString(r.fragments[int64(o.num("fragment"))])
		}
	}
	return b.String()
}

// attachments reads the attachments table without the content column: annals keeps what an
// attachment was (type, path, url), not its bytes.
func (r *llmReader) attachments(ctx context.Context) map[string]map[string]any {
	out := map[string]map[string]any{}
	if !r.tables["attachments"] {
		return out
	}
	rows, err := queryMaps(ctx, r.db, `SELECT id, type, path, url, length(content) AS size FROM attachments`)
	if err != nil {
		return out
	}
	for _, m := range rows {
		out[colString(m, "id")] = m
	}
	return out
}

func llmAttachmentText(ids []string, attachments map[string]map[string]any, payload jsonObject) (string, json.RawMessage) {
	var descr []string
	var list []map[string]any
	for _, id := range ids {
		a := attachments[id]
		if a == nil {
			descr = append(descr, "attachment "+id)
			list = append(list, map[string]any{"id": id})
			continue
		}
		where := firstNonEmpty(colString(a, "path"), colString(a, "url"))
		descr = append(descr, strings.TrimSpace("attachment "+colString(a, "type")+" "+where))
		list = append(list, map[string]any{"id": id, "type": colString(a, "type"), "path": colString(a, "path"), "url": colString(a, "url"), "bytes": colInt(a, "size")})
	}
	if len(descr) == 0 {
		descr = []string{"attachment"}
	}
	return ValidText(strings.Join(descr, "\n")), safeMeta(map[string]any{"attachments": list, "payload": extras(payload, "attachment_id")})
}

// legacy imports the responses generation: one chat per conversation that has no thread.
func (r *llmReader) legacy(ctx context.Context, threadIDs, turnIDs map[string]bool) error {
	cols, err := tableColumns(ctx, r.db, "responses")
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	convs := map[string]map[string]any{}
	if r.tables["conversations"] {
		rows, err := queryMaps(ctx, r.db, `SELECT * FROM conversations`)
		if err != nil {
			return fmt.Errorf("llm: reading conversations: %w", err)
		}
		for _, m := range rows {
			convs[colString(m, "id")] = m
		}
	}
	order := "id"
	if cols["datetime_utc"] {
		order = "datetime_utc, id"
	}
	rows, err := queryMaps(ctx, r.db, `SELECT * FROM responses ORDER BY `+order)
	if err != nil {
		return fmt.Errorf("llm: reading responses: %w", err)
	}
	byConv := map[string][]map[string]any{}
	var convOrder []string
	for _, m := range rows {
		id := colString(m, "id")
		if turnIDs[id] {
			continue // the same model call, already read from the turns
		}
		cid := colString(m, "conversation_id")
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
	calls := r.byResponse(ctx, "tool_calls")
	results := r.byResponse(ctx, "tool_results")
	frags := r.responseFragments(ctx, "prompt_fragments")
	sysFrags := r.responseFragments(ctx, "system_fragments")
	attachByResp := map[string][]string{}
	if r.tables["prompt_attachments"] {
		if rows, err := queryMaps(ctx, r.db, `SELECT response_id, attachment_id FROM prompt_attachments ORDER BY response_id, "order"`); err == nil {
			for _, m := range rows {
				attachByResp[colString(m, "response_id")] = append(attachByResp[colString(m, "response_id")], colString(m, "attachment_id"))
			}
		}
	}
	attachments := r.attachments(ctx)

	for _, cid := range convOrder {
		if err := ctx.Err(); err != nil {
			return err
		}
		resps := byConv[cid]
		chatID := ChatID(r.f.Name(), cid)
		conv := convs[cid]
		attrs := annals.Attributes{"source": r.f.Name()}
		if m := firstNonEmpty(colString(conv, "model"), colString(resps[0], "model")); m != "" {
			attrs["model"] = m
		}
		created := llmTime(colString(resps[0], "datetime_utc"))
		if err := r.out.Emit(annals.CaptureOp{Chat: cleanChat(&annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: colString(conv, "name")})}); err != nil {
			return err
		}
		open := map[string]*annals.Entry{}
		var entries []*annals.Entry
		var runs []*annals.Run
		lastSystem := ""
		for _, m := range resps {
			rid := colString(m, "id")
			when := llmTime(colString(m, "datetime_utc"))
			runID := r.runID(rid)
			src := []string{SafeID(rid, annals.MaxIDBytes)}
			mk := func(suffix string, kind annals.EntryKind) *annals.Entry {
				return &annals.Entry{ID: SafeID(rid, annals.MaxIDBytes-len(suffix)-1) + "#" + suffix, Kind: kind, RunID: runID, SourceIDs: src, Time: when}
			}
			system := joinNonEmpty(r.fragmentTexts(sysFrags[rid]), colString(m, "system"))
			if system != "" && system != lastSystem {
				e := mk("system", annals.KindSystem)
				e.Text = Truncated(ValidText(system), annals.MaxEntryBytes/2)
				entries = append(entries, e)
			}
			lastSystem = system
			if prompt := joinNonEmpty(r.fragmentTexts(frags[rid]), colString(m, "prompt")); prompt != "" {
				e := mk("prompt", annals.KindUser)
				e.Text = Truncated(ValidText(prompt), annals.MaxEntryBytes/2)
				if fr := frags[rid]; len(fr) > 0 {
					e.Metadata = safeMeta(map[string]any{"fragments": fr})
				}
				entries = append(entries, e)
			}
			for i, aid := range attachByResp[rid] {
				e := mk(fmt.Sprintf("attachment%d", i), annals.KindEvent)
				e.Channel = "llm/attachment"
				e.Text, e.Metadata = llmAttachmentText([]string{aid}, attachments, nil)
				entries = append(entries, e)
			}
			for i, tr := range results[rid] {
				callID := colString(tr, "tool_call_id")
				res, outcome, meta := llmToolResult(colString(tr, "output"), colString(tr, "exception"))
				if call := open[callID]; callID != "" && call != nil {
					call.Tool.Result, call.Tool.Outcome = res, outcome
					if meta != nil {
						call.Metadata = mergeMeta(call.Metadata, meta)
					}
					delete(open, callID)
					continue
				}
				e := mk(fmt.Sprintf("result%d", i), annals.KindTool)
				e.Tool = &annals.ToolCall{Name: copilotToolName(colString(tr, "name")), CallID: SafeID(callID, annals.MaxIDBytes), Result: res, Outcome: outcome}
				e.Metadata = mergeMeta(safeMeta(map[string]any{"orphan_result": true}), meta)
				entries = append(entries, e)
			}
			text, reasoning := colString(m, "response"), colString(m, "reasoning")
			if text != "" || reasoning != "" {
				e := mk("response", annals.KindAssistant)
				e.Text = Truncated(ValidText(text), annals.MaxEntryBytes/2)
				e.Reasoning = Truncated(ValidText(reasoning), annals.MaxEntryBytes/4)
				entries = append(entries, e)
			}
			for i, tc := range calls[rid] {
				e := mk(fmt.Sprintf("call%d", i), annals.KindTool)
				callID := colString(tc, "tool_call_id")
				e.Tool = &annals.ToolCall{Name: copilotToolName(colString(tc, "name")), CallID: SafeID(callID, annals.MaxIDBytes), Arguments: rawJSON(colString(tc, "arguments"))}
				entries = append(entries, e)
				if callID != "" {
					open[callID] = e
				}
			}
			// What the call was asked with, and what it cost, rides on its last entry.
			meta := map[string]any{}
			if v := colString(m, "options_json"); v != "" && v != "{}" {
				meta["options"] = rawJSON(v)
			}
			if v := colString(m, "token_details"); v != "" {
				meta["token_details"] = rawJSON(v)
			}
			if v := colString(m, "schema_id"); v != "" {
				meta["schema_id"] = v
			}
			if len(meta) > 0 && len(entries) > 0 && entries[len(entries)-1].RunID == runID {
				entries[len(entries)-1].Metadata = mergeMeta(entries[len(entries)-1].Metadata, meta)
			}
			run := &annals.Run{ID: runID, ChatID: chatID, Status: annals.StatusCompleted, StartedAt: when,
				Model:       SafeID(firstNonEmpty(colString(m, "resolved_model"), colString(m, "model")), annals.MaxIDBytes),
				InputTokens: colInt(m, "input_tokens"), OutputTokens: colInt(m, "output_tokens")}
			if d := colInt(m, "duration_ms"); d > 0 && !when.IsZero() {
				end := when.Add(time.Duration(d) * time.Millisecond)
				run.EndedAt = &end
			}
			runs = append(runs, run)
		}
		if err := r.emitEntries(chatID, entries); err != nil {
			return err
		}
		for _, run := range runs {
			if err := r.out.Emit(annals.CaptureOp{Run: run}); err != nil {
				return err
			}
		}
	}
	return nil
}

// byResponse reads a table keyed by response_id (tool_calls, tool_results), in id order.
func (r *llmReader) byResponse(ctx context.Context, table string) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	if !r.tables[table] {
		return out
	}
	rows, err := queryMaps(ctx, r.db, `SELECT * FROM `+table+` ORDER BY id`)
	if err != nil {
		r.out.Warnf(0, "%s: %v", table, err)
		return out
	}
	for _, m := range rows {
		out[colString(m, "response_id")] = append(out[colString(m, "response_id")], m)
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
	rows, err := queryMaps(ctx, r.db, `SELECT j.response_id, f.id, f.hash, f.source FROM `+table+` j JOIN fragments f ON f.id = j.fragment_id ORDER BY j.response_id, j."order"`)
	if err != nil {
		r.out.Warnf(0, "%s: %v", table, err)
		return out
	}
	for _, m := range rows {
		rid := colString(m, "response_id")
		out[rid] = append(out[rid], llmFragmentRef{ID: colInt(m, "id"), Hash: colString(m, "hash"), Source: colString(m, "source")})
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
