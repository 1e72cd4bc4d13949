package messages

import (
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// emit turns the transcript into a chat and its entries. A tool call and its result (matched
// by call id, or by tool name for old function calls) are one entry at the call's place.
func (t *msgTranscript) emit(src *reader.Source, out reader.Output) error {
	if len(t.msgs) == 0 {
		return nil
	}
	start, err := t.emitChat(src, out)
	if err != nil {
		return err
	}
	var q reader.OpQueue
	for i, m := range t.msgs {
		t.queueMessage(&q, fmt.Sprintf("m%d", i+1), m, start)
		if err := q.Flush(out); err != nil {
			return err
		}
	}
	return q.FlushAll(out)
}

// emitChat emits the chat and its runs, and returns the time its entries are given.
func (t *msgTranscript) emitChat(src *reader.Source, out reader.Output) (time.Time, error) {
	attrs := annals.Attributes{"source": "messages", "file": src.Path}
	if t.model != "" {
		attrs["model"] = t.model
	}
	start := t.start
	if start.IsZero() {
		start = src.ModTime
	}
	if err := out.Emit(annals.CaptureOp{Chat: &annals.Chat{ID: t.chatID, Attributes: attrs, CreatedAt: start}}); err != nil {
		return start, err
	}
	for _, r := range t.runs {
		if r.StartedAt.IsZero() {
			r.StartedAt = start
		}
		if err := out.Emit(annals.CaptureOp{Run: r}); err != nil {
			return start, err
		}
	}
	return start, nil
}

// queueMessage queues one message's entries: its tool results, its text, then its calls.
func (t *msgTranscript) queueMessage(q *reader.OpQueue, id string, m msgItem, start time.Time) {
	meta := map[string]any{}
	if m.images > 0 {
		meta["attachments"] = m.images
	}
	if m.encrypted {
		meta["encrypted_reasoning"] = true
	}
	t.queueResults(q, id, m.results, start)
	kind := annals.KindUser
	switch m.role {
	case "assistant", "model":
		kind = annals.KindAssistant
	case "system":
		kind = annals.KindSystem
	case "tool":
		kind = ""
	}
	if kind != "" && (strings.TrimSpace(m.text) != "" || m.reasoning != "" || len(meta) > 0) {
		if kind == annals.KindUser && len(m.results) == 0 {
			q.ReleaseAll()
		}
		q.PushEntry(t.chatID, &annals.Entry{ID: id, Kind: kind, Time: start, Text: reader.ValidText(m.text), Reasoning: reader.ValidText(m.reasoning), Metadata: reader.Metadata(meta)})
	}
	for k, c := range m.calls {
		name := c.name
		if name == "" {
			name = "unknown"
		}
		key := c.id
		if key == "" {
			key = "name:" + c.name
		}
		q.PushCall(t.chatID, key, &annals.Entry{ID: fmt.Sprintf("%s#%d", id, k+1), Kind: annals.KindTool, Time: start,
			Tool: &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), CallID: reader.SafeID(c.id, annals.MaxIDBytes), Arguments: c.args}})
	}
}

// queueResults fills in the calls the results answer; a result with no call is an entry of its own.
func (t *msgTranscript) queueResults(q *reader.OpQueue, id string, results []msgResult, start time.Time) {
	for _, r := range results {
		outcome := annals.OutcomeSucceeded
		if r.isError {
			outcome = annals.OutcomeFailed
		}
		res := r
		if q.Resolve(r.callID, func(e *annals.Entry) { e.Tool.Result, e.Tool.Outcome = reader.ValidText(res.text), outcome }) {
			continue
		}
		name := strings.TrimPrefix(r.callID, "name:")
		if name == "" || r.callID == name {
			name = "unknown"
		}
		q.PushEntry(t.chatID, &annals.Entry{ID: fmt.Sprintf("%s#r%d", id, len(q.Items)), Kind: annals.KindTool, Time: start,
			Tool: &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), CallID: reader.SafeID(strings.TrimPrefix(r.callID, "name:"), annals.MaxIDBytes), Result: reader.ValidText(r.text), Outcome: outcome}})
	}
}
