package copilotchat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// copilotChatRequest maps one request: the prompt, then its response in order, the markdown
// fragments between two tool calls joined into one assistant entry (an inline reference
// written as its name), thinking as reasoning, each tool invocation one tool entry (VS Code
// appends a call again as it updates, so a call id seen before updates its entry), file edits
// as events. Ids are <requestId>#<n>.
func copilotChatRequest(r reader.JSONObject, i int) []*annals.Entry {
	rid := reader.SafeID(reader.FirstNonEmpty(r.Str("requestId"), fmt.Sprintf("request-%d", i+1)), 200)
	t := reader.MilliTime(r, "timestamp")
	src := []string{rid}
	var out []*annals.Entry
	add := func(e *annals.Entry) {
		e.ID, e.Time, e.SourceIDs = reader.EntryID(rid, len(out)), t, src
		out = append(out, e)
	}
	msg := r.Obj("message")
	text := msg.Str("text")
	if text == "" {
		text = r.Str("message")
	}
	add(&annals.Entry{Kind: annals.KindUser, Text: reader.ValidText(text)})
	var prose, thought strings.Builder
	flush := func() {
		if strings.TrimSpace(prose.String()) != "" || thought.Len() > 0 {
			add(&annals.Entry{Kind: annals.KindAssistant, Text: reader.ValidText(strings.TrimSpace(prose.String())), Reasoning: reader.ValidText(thought.String())})
		}
		prose.Reset()
		thought.Reset()
	}
	calls := map[string]*annals.Entry{}
	for _, raw := range r.Arr("response") {
		p, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		switch kind := p.Str("kind"); kind {
		case "", "markdownContent":
			prose.WriteString(reader.FirstNonEmpty(p.Str("value"), p.Obj("content").Str("value")))
		case "inlineReference":
			prose.WriteString("`" + copilotChatRefName(p.Obj("inlineReference")) + "`")
		case "thinking":
			thought.WriteString(reader.TextOf(p.Raw("value")))
		case "toolInvocationSerialized", "toolInvocation":
			id := p.Str("toolCallId")
			if e := calls[id]; id != "" && e != nil {
				copilotChatTool(e, p)
				continue
			}
			flush()
			e := &annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{}}
			copilotChatTool(e, p)
			add(e)
			if id != "" {
				calls[id] = e
			}
		case "textEditGroup", "codeblockUri", "notebookEditGroup":
			flush()
			add(&annals.Entry{Kind: annals.KindEvent, Channel: "copilot-chat/" + reader.SanitizeChannel(kind), Metadata: reader.SafeMeta(map[string]any{"part": reader.Extras(p, "edits")})})
		}
		// Other kinds (progress messages, MCP server starts, undo stops, confirmations) are
		// the panel's bookkeeping.
	}
	flush()
	if r.Boolean("isCanceled") {
		add(&annals.Entry{Kind: annals.KindSystem, Text: "Request cancelled", Metadata: reader.Metadata(map[string]any{"cancelled": true})})
	}
	return out
}

func copilotChatRefName(ref reader.JSONObject) string {
	if n := ref.Str("name"); n != "" {
		return n
	}
	p := reader.FirstNonEmpty(ref.Str("fsPath"), ref.Str("path"), ref.Obj("uri").Str("path"))
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// copilotChatTool fills a tool entry from an invocation: the tool id, the arguments
// (resultDetails.input, or a terminal call's command line), the result (resultDetails.output or
// the terminal's output) and the outcome (an error, a non-zero exit code, or complete).
func copilotChatTool(e *annals.Entry, p reader.JSONObject) {
	tc := e.Tool
	tc.Name = reader.ToolName(reader.FirstNonEmpty(p.Str("toolId"), tc.Name))
	tc.CallID = reader.SafeID(reader.FirstNonEmpty(p.Str("toolCallId"), tc.CallID), annals.MaxIDBytes)
	rd, ts := p.Obj("resultDetails"), p.Obj("toolSpecificData")
	if in := rd.Raw("input"); in != nil {
		tc.Arguments = reader.CallArgs(in)
	} else if cl := ts.Obj("commandLine"); cl != nil {
		b, _ := json.Marshal(map[string]string{"command": reader.FirstNonEmpty(cl.Str("original"), cl.Str("toolEdited"))})
		tc.Arguments = b
	}
	failed := rd.Boolean("isError")
	switch {
	case ts.Obj("terminalCommandOutput") != nil:
		tc.Result = reader.ValidText(ts.Obj("terminalCommandOutput").Str("text"))
		failed = failed || ts.Obj("terminalCommandState").Num("exitCode") != 0
	case rd.Raw("output") != nil:
		tc.Result = reader.ValidText(reader.BlocksText(rd.Raw("output")))
	}
	if msg := mdText(p.Raw("pastTenseMessage")); tc.Result == "" && msg != "" {
		tc.Result = reader.ValidText(msg)
	}
	tc.Result = reader.Truncated(tc.Result, annals.MaxEntryBytes/4)
	switch {
	case failed:
		tc.Outcome = annals.OutcomeFailed
	case p.Boolean("isComplete"):
		tc.Outcome = annals.OutcomeSucceeded
	}
	e.Text = reader.ValidText(mdText(p.Raw("invocationMessage")))
}

// mdText reads a VS Code message: a string, or a markdown string object {value}.
func mdText(raw json.RawMessage) string {
	if o, err := reader.DecodeObject(raw); err == nil {
		return o.Str("value")
	}
	return reader.TextOf(raw)
}
