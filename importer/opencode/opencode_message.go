package opencode

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// message maps one message to its entries and, for an assistant message, its run. last carries
// the latest known time forward, for parts that have none.
func (f OpenCode) message(chatID string, m ocMessage, last *time.Time) (*annals.Run, []*annals.Entry) {
	info := m.info
	mid := info.Str("id")
	role := info.Str("role")
	mtime := reader.MilliTime(info.Obj("time"), "created")
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
	compactionSummary := role == "assistant" && info.Boolean("summary")

	var run *annals.Run
	runID := ""
	errName, errMsg := ocMessageError(info)
	if role == "assistant" {
		runID = reader.SafeID(chatID+"/"+mid, annals.MaxIDBytes)
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
			e.Metadata = reader.MergeMeta(e.Metadata, map[string]any{"compaction": true})
		}
		if runID != "" && e.RunID == "" {
			e.RunID = runID
		}
		if len(entries) == 0 && msgExtra != nil {
			e.Metadata = reader.MergeMeta(e.Metadata, map[string]any{"message": msgExtra})
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
		entries = append(entries, &annals.Entry{ID: reader.EntryID(mid, -1), Kind: annals.KindEvent, Channel: "opencode/message",
			SourceIDs: []string{reader.SafeID(mid, annals.MaxIDBytes)}, Time: mtime, Metadata: reader.SafeMeta(map[string]any{"message": msgExtra, "empty": true})})
	}
	return run, entries
}

// ocMessageError reads a message's error: its name and message.
func ocMessageError(info reader.JSONObject) (name, msg string) {
	if e := info.Obj("error"); e != nil {
		name = e.Str("name")
		msg = e.Obj("data").Str("message")
		if msg == "" {
			msg = e.Str("message")
		}
	}
	return name, msg
}

// ocRun is the run of an assistant message.
func ocRun(runID, chatID string, info reader.JSONObject, mtime time.Time, errName string) *annals.Run {
	run := &annals.Run{ID: runID, ChatID: chatID, StartedAt: mtime, Model: info.Str("modelID")}
	if run.Model == "" {
		run.Model = info.Obj("model").Str("modelID")
	}
	run.Model = reader.SafeID(run.Model, annals.MaxIDBytes)
	if end := reader.MilliTime(info.Obj("time"), "completed"); !end.IsZero() && !end.Before(mtime) {
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
	if tk := info.Obj("tokens"); tk != nil {
		run.InputTokens, run.OutputTokens = openCodeTokens(tk)
		c := tk.Obj("cache")
		run.CacheReadTokens = min(reader.ClampTokens(int64(c.Num("read"))), run.InputTokens)
		run.CacheCreationTokens = min(reader.ClampTokens(int64(c.Num("write"))), run.InputTokens-run.CacheReadTokens)
	}
	if info.IsNum("cost") {
		run.CostUSD = info.Num("cost")
	}
	return run
}

// ocMessageExtra is what a message holds that annals has no place for; it rides on the
// message's first entry.
func ocMessageExtra(info reader.JSONObject) map[string]json.RawMessage {
	msgExtra := reader.ExtraMap(info, "id", "sessionID", "role", "time", "modelID", "providerID", "tokens", "cost", "error", "parentID")
	if p := info.Str("providerID"); p != "" {
		if msgExtra == nil {
			msgExtra = map[string]json.RawMessage{}
		}
		msgExtra["providerID"], _ = json.Marshal(p)
	}
	if tk := info.Raw("tokens"); tk != nil {
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
	if p.obj.Str("type") != "step-finish" {
		return
	}
	if tk := p.obj.Obj("tokens"); tk != nil {
		in, out := openCodeTokens(tk)
		u.in += float64(in)
		u.out += float64(out)
	}
	if c := p.obj.Obj("cost"); c != nil {
		u.cost += c.Num("usd")
	} else if p.obj.IsNum("cost") {
		u.cost += p.obj.Num("cost")
	}
}

// ocErrorEntry appends a message's error as a system entry, and closes the calls still
// pending: cancelled when the turn was aborted, failed otherwise.
func ocErrorEntry(entries []*annals.Entry, info reader.JSONObject, mid, runID string, mtime time.Time, errName, errMsg string) []*annals.Entry {
	text := errName
	if errMsg != "" {
		text += ": " + errMsg
	}
	entries = append(entries, &annals.Entry{
		ID: reader.EntryID(mid, -1) + "#error", Kind: annals.KindSystem, RunID: runID, SourceIDs: []string{reader.SafeID(mid, annals.MaxIDBytes)},
		Time: mtime, Text: reader.ValidText(text), Metadata: reader.SafeMeta(map[string]any{"error": info.Raw("error")}),
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
func openCodeTokens(tk reader.JSONObject) (in, out int64) {
	c := tk.Obj("cache")
	return int64(tk.Num("input") + c.Num("read") + c.Num("write")), int64(tk.Num("output") + tk.Num("reasoning"))
}

// part maps one message part to an entry, or nil for a part that only carries bookkeeping
// (step markers: their usage is summed into the run by the caller).
func (f OpenCode) part(chatID, mid string, kind annals.EntryKind, p ocPart, mtime time.Time, last *time.Time) *annals.Entry {
	o := p.obj
	pid := o.Str("id")
	if pid == "" {
		pid = p.name
	}
	t := reader.MilliTime(o.Obj("time"), "start")
	if t.IsZero() {
		t = mtime
	} else if t.After(*last) {
		*last = t
	}
	e := &annals.Entry{ID: reader.EntryID(pid, -1), Time: t, SourceIDs: []string{reader.SafeID(mid, annals.MaxIDBytes)}}
	ptype := o.Str("type")
	switch ptype {
	case "text":
		e.Kind = kind
		e.Text = reader.ValidText(o.Str("text"))
		e.Metadata = reader.SafeMeta(map[string]any{
			"synthetic": reader.BoolOrNil(o.Boolean("synthetic")),
			"ignored":   reader.BoolOrNil(o.Boolean("ignored")),
			"extra":     reader.Extras(o, "id", "sessionID", "messageID", "type", "text", "time", "synthetic", "ignored"),
		})
	case "reasoning":
		e.Kind = annals.KindAssistant
		e.Reasoning = reader.ValidText(o.Str("text"))
		ex := reader.Extras(o, "id", "sessionID", "messageID", "type", "text", "time")
		_, dropped := reader.ScrubOpaque(o.Raw("metadata"))
		e.Metadata = reader.SafeMeta(map[string]any{"extra": ex, "encrypted_reasoning": reader.BoolOrNil(dropped)})
	case "tool":
		ocToolPart(e, o)
	case "step-start", "step-finish":
		return nil
	case "compaction":
		e.Kind = annals.KindSystem
		mode := "manual"
		if o.Boolean("auto") {
			mode = "auto"
		}
		e.Text = "Context compacted (" + mode + ")"
		e.Metadata = reader.SafeMeta(map[string]any{"compaction": true, "boundary": true, "extra": reader.Extras(o, "id", "sessionID", "messageID", "type", "time")})
	case "file":
		ocFilePart(e, o)
	case "patch":
		e.Kind = annals.KindEvent
		e.Channel = "opencode/patch"
		var files []string
		_ = json.Unmarshal(o.Raw("files"), &files)
		e.Text = reader.ValidText("patch " + strings.Join(files, ", "))
		e.Metadata = reader.SafeMeta(map[string]any{"extra": reader.Extras(o, "id", "sessionID", "messageID", "type", "time")})
	default:
		// snapshot, agent, subtask, retry and types newer than this importer: an event that
		// keeps the whole part, so nothing is lost.
		e.Kind = annals.KindEvent
		if ptype == "" {
			ptype = "unknown"
		}
		e.Channel = "opencode/" + reader.SanitizeChannel(ptype)
		e.Text = reader.ValidText(reader.FirstNonEmpty(o.Str("text"), o.Str("prompt"), o.Str("description"), o.Str("name")))
		e.Metadata = reader.SafeMeta(map[string]any{"part": reader.Extras(o, "id", "sessionID", "messageID", "time")})
	}
	return e
}

// ocToolPart fills e from a tool part: the call, and its state's output or error.
func ocToolPart(e *annals.Entry, o reader.JSONObject) {
	e.Kind = annals.KindTool
	st := o.Obj("state")
	tc := &annals.ToolCall{Name: reader.SafeID(o.Str("tool"), annals.MaxIDBytes), CallID: reader.SafeID(o.Str("callID"), annals.MaxIDBytes)}
	if tc.Name == "" {
		tc.Name = "unknown"
	}
	tc.Arguments = reader.CallArgs(st.Raw("input"))
	if st2 := st.Obj("time"); st2 != nil {
		if ts := reader.MilliTime(st2, "start"); !ts.IsZero() {
			e.Time = ts
		}
	}
	status := st.Str("status")
	switch status {
	case "completed":
		tc.Result = reader.ValidText(st.Str("output"))
		tc.Outcome = annals.OutcomeSucceeded
		if md := st.Obj("metadata"); md != nil && md.IsNum("exit") && md.Num("exit") != 0 {
			tc.Outcome = annals.OutcomeFailed
		}
	case "error":
		tc.Result = reader.ValidText(st.Str("error"))
		tc.Outcome = annals.OutcomeFailed
		if strings.Contains(strings.ToLower(tc.Result), "abort") || strings.Contains(strings.ToLower(tc.Result), "interrupt") {
			tc.Outcome = annals.OutcomeCancelled
		}
	}
	tc.Result = reader.Truncated(tc.Result, annals.MaxEntryBytes/2)
	e.Tool = tc
	e.Metadata = reader.SafeMeta(map[string]any{
		"status": status,
		"title":  st.Str("title"),
		"state":  reader.Extras(st, "status", "input", "output", "error", "time", "title"),
		"extra":  reader.Extras(o, "id", "sessionID", "messageID", "type", "tool", "callID", "state"),
	})
	// The state's end is when the result arrived: the call's duration in the web UI.
	if status == "completed" || status == "error" {
		reader.ResultTime(e, reader.MilliTime(st.Obj("time"), "end"))
	}
}

// ocFilePart fills e from a file part.
func ocFilePart(e *annals.Entry, o reader.JSONObject) {
	e.Kind = annals.KindEvent
	e.Channel = "opencode/file"
	name := o.Str("filename")
	url := o.Str("url")
	if strings.HasPrefix(url, "data:") {
		// Inline file bodies (base64 images) are not transcript text; their size is kept.
		url = fmt.Sprintf("data: (%d bytes, not kept)", len(url))
	}
	e.Text = reader.ValidText(strings.TrimSpace("file " + name + " " + url))
	e.Metadata = reader.SafeMeta(map[string]any{"mime": o.Str("mime"), "url": url, "extra": reader.Extras(o, "id", "sessionID", "messageID", "type", "filename", "mime", "url", "time")})
}
