package importer

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// message maps one message to its entries and, for an assistant message, its run. last carries
// the latest known time forward, for parts that have none.
func (f openCode) message(chatID string, m ocMessage, last *time.Time) (*annals.Run, []*annals.Entry) {
	info := m.info
	mid := info.str("id")
	role := info.str("role")
	mtime := ocTime(info.obj("time"), "created")
	if mtime.IsZero() {
		mtime = *last
	} else {
		*last = mtime
	}
	kind := annals.KindUser
	if role == "assistant" {
		kind = annals.KindAssistant
	}
	// An assistant message with summary:true is the compaction summary OpenCode writes when it
	// compacts the context (user messages use "summary" for an object with a title instead).
	compactionSummary := role == "assistant" && info.boolean("summary")

	var run *annals.Run
	runID := ""
	errName, errMsg := ocMessageError(info)
	if role == "assistant" {
		runID = SafeID(chatID+"/"+mid, annals.MaxIDBytes)
		run = ocRun(runID, chatID, info, mtime, errName)
	}
	msgExtra := ocMessageExtra(info)

	var entries []*annals.Entry
	var step ocStepUsage
	for _, p := range m.parts {
		e := f.part(chatID, mid, kind, p, mtime, last)
		step.add(p)
		if e == nil {
			continue
		}
		if compactionSummary && e.Kind == annals.KindAssistant && e.Text != "" {
			e.Kind = annals.KindSystem
			e.Metadata = mergeMeta(e.Metadata, map[string]any{"compaction": true})
		}
		if runID != "" && e.RunID == "" {
			e.RunID = runID
		}
		if len(entries) == 0 && msgExtra != nil {
			e.Metadata = mergeMeta(e.Metadata, map[string]any{"message": msgExtra})
		}
		entries = append(entries, e)
	}
	if run != nil && run.InputTokens == 0 && run.OutputTokens == 0 {
		// Older messages carry their usage only on the step-finish parts.
		run.InputTokens, run.OutputTokens = int64(step.in), int64(step.out)
	}
	if run != nil && run.CostUSD == 0 && step.cost > 0 {
		run.CostUSD = step.cost
	}
	if errName != "" {
		entries = ocErrorEntry(entries, info, mid, runID, mtime, errName, errMsg)
	}
	if len(entries) == 0 && msgExtra != nil && role == "user" {
		// A user message whose parts are gone still happened; keep what is known of it.
		entries = append(entries, &annals.Entry{ID: EntryID(mid, -1), Kind: annals.KindEvent, Channel: "opencode/message",
			SourceIDs: []string{SafeID(mid, annals.MaxIDBytes)}, Time: mtime, Metadata: safeMeta(map[string]any{"message": msgExtra, "empty": true})})
	}
	return run, entries
}

// ocMessageError reads a message's error: its name and message.
func ocMessageError(info jsonObject) (name, msg string) {
	if e := info.obj("error"); e != nil {
		name = e.str("name")
		msg = e.obj("data").str("message")
		if msg == "" {
			msg = e.str("message")
		}
	}
	return name, msg
}

// ocRun is the run of an assistant message.
func ocRun(runID, chatID string, info jsonObject, mtime time.Time, errName string) *annals.Run {
	run := &annals.Run{ID: runID, ChatID: chatID, StartedAt: mtime, Model: info.str("modelID")}
	if run.Model == "" {
		run.Model = info.obj("model").str("modelID")
	}
	run.Model = SafeID(run.Model, annals.MaxIDBytes)
	if end := ocTime(info.obj("time"), "completed"); !end.IsZero() && !end.Before(mtime) {
		run.EndedAt = &end
	}
	// A message without an end time is not taken for a running turn: in a history that
	// is far more often a turn cut short than one still streaming, and a run left
	// "running" would mark the chat running for good.
	switch {
	case errName == "MessageAbortedError":
		run.Status = annals.StatusCancelled
	case errName != "":
		run.Status = annals.StatusFailed
	default:
		run.Status = annals.StatusCompleted
	}
	if tk := info.obj("tokens"); tk != nil {
		run.InputTokens, run.OutputTokens = openCodeTokens(tk)
	}
	if info.isNum("cost") {
		run.CostUSD = info.num("cost")
	}
	return run
}

// ocMessageExtra is what a message holds that annals has no place for; it rides on the
// message's first entry.
func ocMessageExtra(info jsonObject) map[string]json.RawMessage {
	msgExtra := extraMap(info, "id", "sessionID", "role", "time", "modelID", "providerID", "tokens", "cost", "error", "parentID")
	if p := info.str("providerID"); p != "" {
		if msgExtra == nil {
			msgExtra = map[string]json.RawMessage{}
		}
		msgExtra["providerID"], _ = json.Marshal(p)
	}
	if tk := info.raw("tokens"); tk != nil {
		if msgExtra == nil {
			msgExtra = map[string]json.RawMessage{}
		}
		msgExtra["tokens"] = tk
	}
	return msgExtra
}

// ocStepUsage sums the usage of a message's step-finish parts.
type ocStepUsage struct{ in, out, cost float64 }

func (u *ocStepUsage) add(p ocPart) {
	if p.obj.str("type") != "step-finish" {
		return
	}
	if tk := p.obj.obj("tokens"); tk != nil {
		in, out := openCodeTokens(tk)
		u.in += float64(in)
		u.out += float64(out)
	}
	if c := p.obj.obj("cost"); c != nil {
		u.cost += c.num("usd")
	} else if p.obj.isNum("cost") {
		u.cost += p.obj.num("cost")
	}
}

// ocErrorEntry appends a message's error as a system entry, and closes the calls still
// pending: cancelled when the turn was aborted, failed otherwise.
func ocErrorEntry(entries []*annals.Entry, info jsonObject, mid, runID string, mtime time.Time, errName, errMsg string) []*annals.Entry {
	text := errName
	if errMsg != "" {
		text += ": " + errMsg
	}
	entries = append(entries, &annals.Entry{
		ID: EntryID(mid, -1) + "#error", Kind: annals.KindSystem, RunID: runID, SourceIDs: []string{SafeID(mid, annals.MaxIDBytes)},
		Time: mtime, Text: ValidText(text), Metadata: safeMeta(map[string]any{"error": info.raw("error")}),
	})
	for _, e := range entries {
		if e.Tool != nil && e.Tool.Outcome == "" {
			if errName == "MessageAbortedError" {
				e.Tool.Outcome = annals.OutcomeCancelled
			} else {
				e.Tool.Outcome = annals.OutcomeFailed
			}
		}
	}
	return entries
}

// openCodeTokens reads OpenCode's token counts the way annals counts them: input is the whole
// prompt, cache reads and writes included; output includes the reasoning tokens, which are
// billed as output.
func openCodeTokens(tk jsonObject) (in, out int64) {
	c := tk.obj("cache")
	return int64(tk.num("input") + c.num("read") + c.num("write")), int64(tk.num("output") + tk.num("reasoning"))
}

// part maps one message part to an entry, or nil for a part that only carries bookkeeping
// (step markers: their usage is summed into the run by the caller).
func (f openCode) part(chatID, mid string, kind annals.EntryKind, p ocPart, mtime time.Time, last *time.Time) *annals.Entry {
	o := p.obj
	pid := o.str("id")
	if pid == "" {
		pid = p.name
	}
	t := ocTime(o.obj("time"), "start")
	if t.IsZero() {
		t = mtime
	} else if t.After(*last) {
		*last = t
	}
	e := &annals.Entry{ID: EntryID(pid, -1), Time: t, SourceIDs: []string{SafeID(mid, annals.MaxIDBytes)}}
	ptype := o.str("type")
	switch ptype {
	case "text":
		e.Kind = kind
		e.Text = ValidText(o.str("text"))
		e.Metadata = safeMeta(map[string]any{
			"synthetic": boolOrNil(o.boolean("synthetic")),
			"ignored":   boolOrNil(o.boolean("ignored")),
			"extra":     extras(o, "id", "sessionID", "messageID", "type", "text", "time", "synthetic", "ignored"),
		})
	case "reasoning":
		e.Kind = annals.KindAssistant
		e.Reasoning = ValidText(o.str("text"))
		ex := extras(o, "id", "sessionID", "messageID", "type", "text", "time")
		_, dropped := scrubOpaque(o.raw("metadata"))
		e.Metadata = safeMeta(map[string]any{"extra": ex, "encrypted_reasoning": boolOrNil(dropped)})
	case "tool":
		ocToolPart(e, o)
	case "step-start", "step-finish":
		return nil
	case "compaction":
		e.Kind = annals.KindSystem
		mode := "manual"
		if o.boolean("auto") {
			mode = "auto"
		}
		e.Text = "Context compacted (" + mode + ")"
		e.Metadata = safeMeta(map[string]any{"compaction": true, "boundary": true, "extra": extras(o, "id", "sessionID", "messageID", "type", "time")})
	case "file":
		ocFilePart(e, o)
	case "patch":
		e.Kind = annals.KindEvent
		e.Channel = "opencode/patch"
		var files []string
		_ = json.Unmarshal(o.raw("files"), &files)
		e.Text = ValidText("patch " + strings.Join(files, ", "))
		e.Metadata = safeMeta(map[string]any{"extra": extras(o, "id", "sessionID", "messageID", "type", "time")})
	default:
		// snapshot, agent, subtask, retry and types newer than this importer: an event that
		// keeps the whole part, so nothing is lost.
		e.Kind = annals.KindEvent
		if ptype == "" {
			ptype = "unknown"
		}
		e.Channel = "opencode/" + sanitizeChannel(ptype)
		e.Text = ValidText(firstNonEmpty(o.str("text"), o.str("prompt"), o.str("description"), o.str("name")))
		e.Metadata = safeMeta(map[string]any{"part": extras(o, "id", "sessionID", "messageID", "time")})
	}
	return e
}

// ocToolPart fills e from a tool part: the call, and its state's output or error.
func ocToolPart(e *annals.Entry, o jsonObject) {
	e.Kind = annals.KindTool
	st := o.obj("state")
	tc := &annals.ToolCall{Name: SafeID(o.str("tool"), annals.MaxIDBytes), CallID: SafeID(o.str("callID"), annals.MaxIDBytes)}
	if tc.Name == "" {
		tc.Name = "unknown"
	}
	tc.Arguments = copilotArgs(st.raw("input"))
	if st2 := st.obj("time"); st2 != nil {
		if ts := ocTime(st2, "start"); !ts.IsZero() {
			e.Time = ts
		}
	}
	status := st.str("status")
	switch status {
	case "completed":
		tc.Result = ValidText(st.str("output"))
		tc.Outcome = annals.OutcomeSucceeded
		if md := st.obj("metadata"); md != nil && md.isNum("exit") && md.num("exit") != 0 {
			tc.Outcome = annals.OutcomeFailed
		}
	case "error":
		tc.Result = ValidText(st.str("error"))
		tc.Outcome = annals.OutcomeFailed
		if strings.Contains(strings.ToLower(tc.Result), "abort") || strings.Contains(strings.ToLower(tc.Result), "interrupt") {
			tc.Outcome = annals.OutcomeCancelled
		}
	}
	tc.Result = Truncated(tc.Result, annals.MaxEntryBytes/2)
	e.Tool = tc
	e.Metadata = safeMeta(map[string]any{
		"status": status,
		"title":  st.str("title"),
		"state":  extras(st, "status", "input", "output", "error", "time", "title"),
		"extra":  extras(o, "id", "sessionID", "messageID", "type", "tool", "callID", "state"),
	})
}

// ocFilePart fills e from a file part.
func ocFilePart(e *annals.Entry, o jsonObject) {
	e.Kind = annals.KindEvent
	e.Channel = "opencode/file"
	name := o.str("filename")
	url := o.str("url")
	if strings.HasPrefix(url, "data:") {
		// Inline file bodies (base64 images) are not transcript text; their size is kept.
		url = fmt.Sprintf("data: (%d bytes, not kept)", len(url))
	}
	e.Text = ValidText(strings.TrimSpace("file " + name + " " + url))
	e.Metadata = safeMeta(map[string]any{"mime": o.str("mime"), "url": url, "extra": extras(o, "id", "sessionID", "messageID", "type", "filename", "mime", "url", "time")})
}
