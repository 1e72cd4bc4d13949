package importer_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The counters below read a source the way its own tool defines it, without the importer: how
// many user messages, assistant messages (text or reasoning) and tool calls it holds, how many
// of the calls the source pairs with a result, and how many of its records cannot be read (the
// fixtures' deliberately broken lines). The cross-format test compares them with the store.

// srcCount is what a source holds, by role.
type srcCount struct {
	User, Assistant, Tool, Paired int
	Unreadable                    int
}

// jsonLines decodes each line of a JSON Lines file; a line that is not a JSON object is
// counted as unreadable.
func jsonLines(tb testing.TB, path string, c *srcCount) []map[string]any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			c.Unreadable++
			continue
		}
		out = append(out, m)
	}
	return out
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }

// pairs counts the calls whose ids have a result.
func pairs(calls []string, results map[string]bool) int {
	n := 0
	for _, id := range calls {
		if results[id] {
			n++
		}
	}
	return n
}

// countClaudeCode: one message per line (a reply split over lines is several), each tool_use
// block a call, paired by a tool_result block naming it. A line repeated (same uuid) counts
// once; a compaction summary or a meta line is not a user message.
func countClaudeCode(tb testing.TB, path string) srcCount {
	var c srcCount
	seen := map[string]bool{}
	open := map[string]int{}
	for _, l := range jsonLines(tb, path, &c) {
		if u := str(l["uuid"]); u != "" && !strings.HasPrefix(u, "[") { // "[trimmed for fixture]" is no id
			if seen[u] {
				continue
			}
			seen[u] = true
		}
		msg := obj(l["message"])
		if msg == nil {
			continue
		}
		blocks := arr(msg["content"])
		switch str(l["type"]) {
		case "user":
			said := strings.TrimSpace(str(msg["content"])) != ""
			for _, b := range blocks {
				switch bo := obj(b); {
				case bo == nil:
					said = said || strings.TrimSpace(str(b)) != ""
				case str(bo["type"]) == "tool_result":
					// A result pairs with its call; one naming no call made before it is a
					// tool's output on its own, a tool entry holding its result.
					if id := str(bo["tool_use_id"]); id != "" && open[id] > 0 {
						open[id]--
					} else {
						c.Tool++
					}
					c.Paired++
				case str(bo["type"]) != "text" || strings.TrimSpace(str(bo["text"])) != "":
					said = true
				}
			}
			if said && l["isCompactSummary"] != true && l["isMeta"] != true && !ccBareCommand(str(msg["content"])) {
				c.User++
			}
		case "assistant":
			said, n := false, 0
			for _, b := range blocks {
				bo := obj(b)
				switch str(bo["type"]) {
				case "tool_use", "server_tool_use", "mcp_tool_use":
					if id := str(bo["id"]); id != "" {
						open[id]++
					}
					n++
				case "text":
					said = said || str(bo["text"]) != ""
				case "thinking":
					said = said || str(bo["thinking"]) != ""
				default:
					said = true
				}
			}
			said = said || str(msg["content"]) != ""
			if said || n == 0 {
				c.Assistant++
			}
			c.Tool += n
		}
	}
	return c
}

// countQwenCode: user and assistant records (an assistant record with text or thought parts
// is a message), each functionCall part a call, paired by a tool_result record's callId.
func countQwenCode(tb testing.TB, path string) srcCount {
	var c srcCount
	var calls []string
	results := map[string]bool{}
	for _, l := range jsonLines(tb, path, &c) {
		parts := arr(obj(l["message"])["parts"])
		switch str(l["type"]) {
		case "user":
			c.User++
		case "assistant":
			said := false
			for _, p := range parts {
				po := obj(p)
				said = said || str(po["text"]) != ""
				if fc := obj(po["functionCall"]); fc != nil {
					calls = append(calls, str(fc["id"]))
				}
			}
			if said {
				c.Assistant++
			}
		case "tool_result":
			results[str(obj(l["toolCallResult"])["callId"])] = true
		}
	}
	c.Tool, c.Paired = len(calls), pairs(calls, results)
	return c
}

// countKimi: user messages (not Kimi's own <system> notes), assistant messages with text or
// reasoning (or without calls), each tool_calls item a call, paired by a tool message.
func countKimi(tb testing.TB, path string) srcCount {
	var c srcCount
	var calls []string
	results := map[string]bool{}
	for _, l := range jsonLines(tb, path, &c) {
		text := str(l["content"])
		for _, p := range arr(l["content"]) {
			text += str(obj(p)["text"]) + str(obj(p)["think"])
		}
		switch str(l["role"]) {
		case "user":
			if !strings.HasPrefix(strings.TrimSpace(text), "<system>") {
				c.User++
			}
		case "assistant":
			tcs := arr(l["tool_calls"])
			if text != "" || len(tcs) == 0 {
				c.Assistant++
			}
			for _, tc := range tcs {
				calls = append(calls, str(obj(tc)["id"]))
			}
		case "tool":
			results[str(l["tool_call_id"])] = true
		}
	}
	c.Tool, c.Paired = len(calls), pairs(calls, results)
	return c
}

// countCursor: one message per content block (text and thinking; a [REDACTED] text is a
// marker, not words), each tool_use block a call, paired by a tool_result block.
func countCursor(tb testing.TB, path string) srcCount {
	var c srcCount
	var calls []string
	results := map[string]bool{}
	for _, l := range jsonLines(tb, path, &c) {
		role := str(l["role"])
		for _, b := range arr(obj(l["message"])["content"]) {
			bo := obj(b)
			switch str(bo["type"]) {
			case "text":
				if role == "user" {
					c.User++
				} else {
					c.Assistant++
				}
			case "thinking", "redacted_thinking":
				c.Assistant++
			case "tool_use":
				calls = append(calls, str(bo["id"]))
			case "tool_result":
				results[str(bo["tool_use_id"])] = true
			}
		}
	}
	c.Tool = len(calls)
	for _, id := range calls {
		if id != "" && results[id] {
			c.Paired++
		}
	}
	return c
}

// countCopilot: user.message events, assistant.message events with content or reasoning
// (assistant.reasoning events too), each toolRequests item a call, paired by a
// tool.execution_complete event.
func countCopilot(tb testing.TB, path string) srcCount {
	var c srcCount
	open := map[string]int{}
	for _, l := range jsonLines(tb, path, &c) {
		d := obj(l["data"])
		switch str(l["type"]) {
		case "user.message":
			c.User++
		case "assistant.message":
			if str(d["content"]) != "" || str(d["reasoningText"]) != "" {
				c.Assistant++
			}
			for _, tr := range arr(d["toolRequests"]) {
				c.Tool++
				open[str(obj(tr)["toolCallId"])]++
			}
		case "assistant.reasoning":
			c.Assistant++
		case "tool.execution_complete":
			// A result pairs with a call requested before it; one without is a tool's output
			// on its own, a tool entry holding its result.
			if id := str(d["toolCallId"]); open[id] > 0 {
				open[id]--
			} else {
				c.Tool++
			}
			c.Paired++
		}
	}
	return c
}

// ccBareCommand reports whether a Claude Code user line's text is a command the person ran
// without arguments (<command-name>/clear</command-name> with empty <command-args>) or a local
// command's output: an event, not a prompt.
func ccBareCommand(text string) bool {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<local-command-stdout>") || strings.HasPrefix(t, "<local-command-stderr>") {
		return true
	}
	if !strings.Contains(t, "<command-name>") {
		return false
	}
	_, rest, ok := strings.Cut(t, "<command-args>")
	args, _, _ := strings.Cut(rest, "</command-args>")
	return !ok || strings.TrimSpace(args) == ""
}
