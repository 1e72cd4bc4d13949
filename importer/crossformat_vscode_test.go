package importer_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// clineToolTags are the tools Cline's system prompt describes, whose calls come back as XML
// in the reply.
var clineToolTags = regexp.MustCompile(`(?s)<(read_file|write_to_file|replace_in_file|execute_command|search_files|list_files|list_code_definition_names|browser_action|use_mcp_tool|access_mcp_resource|ask_followup_question|attempt_completion|new_task|plan_mode_respond|apply_diff)>`)

// countCline: a Cline-family task: a user text block is the person's (a <task> request), or
// the extension's environment details, or the text result of an XML call ("[tool ...] Result:"
// and the blocks after it); an assistant text block is a message when text is left beside its
// XML calls, each XML call (or tool_use block) a call, paired by its result.
func countCline(tb testing.TB, path string) srcCount {
	var c srcCount
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var msgs []map[string]any
	if json.Unmarshal(data, &msgs) != nil {
		return srcCount{Unreadable: 1}
	}
	queue := map[string]int{}
	open := map[string]int{}
	names := map[string]string{}
	for _, m := range msgs {
		inResult := false
		for _, b := range arr(m["content"]) {
			bo := obj(b)
			text := strings.TrimSpace(str(bo["text"]))
			switch str(bo["type"]) {
			case "tool_use":
				// Answered by a tool_result block, or (Cline 3.x) by a "[tool …] Result:" text.
				c.Tool++
				open[str(bo["id"])]++
				names[str(bo["id"])] = str(bo["name"])
				queue[str(bo["name"])]++
			case "tool_result":
				if open[str(bo["tool_use_id"])] > 0 {
					open[str(bo["tool_use_id"])]--
					queue[names[str(bo["tool_use_id"])]]--
				} else {
					c.Tool++
				}
				c.Paired++
			case "text":
				if str(m["role"]) == "assistant" {
					calls := clineToolTags.FindAllStringSubmatch(text, -1)
					for _, call := range calls {
						c.Tool++
						queue[call[1]]++
					}
					if strings.TrimSpace(clineStrip(text)) != "" {
						c.Assistant++
					}
					continue
				}
				switch {
				case strings.HasPrefix(text, "<environment_details>"):
					inResult = false
				case strings.HasPrefix(text, "["):
					tool := strings.Fields(strings.TrimPrefix(text, "["))[0]
					tool = strings.TrimSuffix(tool, "]")
					if queue[tool] > 0 && strings.Contains(text, "] Result:") {
						queue[tool]--
						c.Paired++
						inResult = true
						continue
					}
					c.User++
				case inResult:
				default:
					c.User++
				}
			}
		}
	}
	return c
}

// clineStrip removes the XML tool calls from a reply's text.
func clineStrip(text string) string {
	for {
		m := clineToolTags.FindStringSubmatchIndex(text)
		if m == nil {
			return text
		}
		tag := text[m[2]:m[3]]
		end := strings.Index(text[m[1]:], "</"+tag+">")
		if end < 0 {
			return text
		}
		text = text[:m[0]] + text[m[1]+end+len(tag)+3:]
	}
}

// countCopilotChat: a Copilot Chat session (the JSON model, or the log replayed): per request
// the prompt, then the reply's markdown and thinking runs between tool invocations (each run
// one message), each invocation (by toolCallId) a call, paired when complete.
func countCopilotChat(tb testing.TB, path string) srcCount {
	var c srcCount
	var doc map[string]any
	if strings.HasSuffix(path, ".jsonl") {
		var state any
		for _, op := range jsonLines(tb, path, &c) {
			if op["kind"] == float64(0) {
				state = op["v"]
				continue
			}
			replayOp(&state, arr(op["k"]), op["v"], op["kind"] == float64(2))
		}
		doc = obj(state)
	} else {
		doc = readJSON(tb, path)
	}
	for _, r := range arr(doc["requests"]) {
		c.User++
		run := false
		seen := map[string]bool{}
		for _, p := range arr(obj(r)["response"]) {
			po := obj(p)
			switch kind := str(po["kind"]); kind {
			case "", "markdownContent", "thinking", "inlineReference":
				run = run || strings.TrimSpace(str(po["value"])) != "" || kind == "inlineReference"
			case "toolInvocationSerialized", "toolInvocation", "textEditGroup", "codeblockUri", "notebookEditGroup":
				if run {
					c.Assistant++
				}
				run = false
				if id := str(po["toolCallId"]); strings.HasPrefix(kind, "toolInvocation") && !seen[id] {
					seen[id] = true
					c.Tool++
					if po["isComplete"] == true {
						c.Paired++
					}
				}
			}
		}
		if run {
			c.Assistant++
		}
	}
	return c
}

// replayOp applies one log entry: set (or append to) the value at path k.
func replayOp(root *any, k []any, v any, appendTo bool) {
	if len(k) == 0 {
		if appendTo {
			a, _ := (*root).([]any)
			*root = append(a, arr(v)...)
		} else {
			*root = v
		}
		return
	}
	switch n := (*root).(type) {
	case map[string]any:
		child := n[str(k[0])]
		replayOp(&child, k[1:], v, appendTo)
		n[str(k[0])] = child
	case []any:
		if i, ok := k[0].(float64); ok && int(i) < len(n) {
			replayOp(&n[int(i)], k[1:], v, appendTo)
		}
	}
}
