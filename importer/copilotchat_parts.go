package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
)

// copilotChatRequest maps one request: the prompt, then its response in order, the markdown
// fragments between two tool calls joined into one assistant entry (an inline reference
// written as its name), thinking as reasoning, each tool invocation one tool entry (VS Code
// appends a call again as it updates, so a call id seen before updates its entry), file edits
// as events. Ids are <requestId>#<n>.
func copilotChatRequest(r jsonObject, i int) []*annals.Entry {
	rid := SafeID(firstNonEmpty(r.str("requestId"), fmt.Sprintf("request-%d", i+1)), 200)
	t := ocTime(r, "timestamp")
	src := []string{rid}
	var out []*annals.Entry
	add := func(e *annals.Entry) {
		e.ID, e.Time, e.SourceIDs = EntryID(rid, len(out)), t, src
		out = append(out, e)
	}
	msg := r.obj("message")
	text := msg.str("text")
	if text == "" {
		text = r.str("message")
	}
	add(&annals.Entry{Kind: annals.KindUser, Text: ValidText(text)})
	var prose, thought strings.Builder
	flush := func() {
		if strings.TrimSpace(prose.String()) != "" || thought.Len() > 0 {
			add(&annals.Entry{Kind: annals.KindAssistant, Text: ValidText(strings.TrimSpace(prose.String())), Reasoning: ValidText(thought.String())})
		}
		prose.Reset()
		thought.Reset()
	}
	calls := map[string]*annals.Entry{}
	for _, raw := range r.arr("response") {
		p, err := decodeObject(raw)
		if err != nil {
			continue
		}
		switch kind := p.str("kind"); kind {
		case "", "markdownContent":
			prose.WriteString(firstNonEmpty(p.str("value"), p.obj("content").str("value")))
		case "inlineReference":
			prose.WriteString("`" + copilotChatRefName(p.obj("inlineReference")) + "`")
		case "thinking":
			thought.WriteString(textOf(p.raw("value")))
		case "toolInvocationSerialized", "toolInvocation":
			id := p.str("toolCallId")
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
			add(&annals.Entry{Kind: annals.KindEvent, Channel: "copilot-chat/" + sanitizeChannel(kind), Metadata: safeMeta(map[string]any{"part": extras(p, "edits")})})
		}
		// Other kinds (progress messages, MCP server starts, undo stops, confirmations) are
		// the panel's bookkeeping.
	}
	flush()
	if r.boolean("isCanceled") {
		add(&annals.Entry{Kind: annals.KindSystem, Text: "Request cancelled", Metadata: Metadata(map[string]any{"cancelled": true})})
	}
	return out
}

func copilotChatRefName(ref jsonObject) string {
	if n := ref.str("name"); n != "" {
		return n
	}
	p := firstNonEmpty(ref.str("fsPath"), ref.str("path"), ref.obj("uri").str("path"))
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// copilotChatTool fills a tool entry from an invocation: the tool id, the arguments
// (resultDetails.input, or a terminal call's command line), the result (resultDetails.output or
// the terminal's output) and the outcome (an error, a non-zero exit code, or complete).
func copilotChatTool(e *annals.Entry, p jsonObject) {
	tc := e.Tool
	tc.Name = copilotToolName(firstNonEmpty(p.str("toolId"), tc.Name))
	tc.CallID = SafeID(firstNonEmpty(p.str("toolCallId"), tc.CallID), annals.MaxIDBytes)
	rd, ts := p.obj("resultDetails"), p.obj("toolSpecificData")
	if in := rd.raw("input"); in != nil {
		tc.Arguments = copilotArgs(in)
	} else if cl := ts.obj("commandLine"); cl != nil {
		b, _ := json.Marshal(map[string]string{"command": firstNonEmpty(cl.str("original"), cl.str("toolEdited"))})
		tc.Arguments = b
	}
	failed := rd.boolean("isError")
	switch {
	case ts.obj("terminalCommandOutput") != nil:
		tc.Result = ValidText(ts.obj("terminalCommandOutput").str("text"))
		failed = failed || ts.obj("terminalCommandState").num("exitCode") != 0
	case rd.raw("output") != nil:
		tc.Result = ValidText(blocksText(rd.raw("output")))
	}
	if msg := mdText(p.raw("pastTenseMessage")); tc.Result == "" && msg != "" {
		tc.Result = ValidText(msg)
	}
	tc.Result = Truncated(tc.Result, annals.MaxEntryBytes/4)
	switch {
	case failed:
		tc.Outcome = annals.OutcomeFailed
	case p.boolean("isComplete"):
		tc.Outcome = annals.OutcomeSucceeded
	}
	e.Text = ValidText(mdText(p.raw("invocationMessage")))
}

// mdText reads a VS Code message: a string, or a markdown string object {value}.
func mdText(raw json.RawMessage) string {
	if o, err := decodeObject(raw); err == nil {
		return o.str("value")
	}
	return textOf(raw)
}
