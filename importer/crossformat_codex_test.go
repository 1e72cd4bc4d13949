package importer_test

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// countCodex: a rollout, read as Codex defines it. Codex writes each message twice, as a
// response item and as a UI event, so within a turn a message is counted once for each text
// however many copies of it the item and event sides hold (the larger of the two counts). A
// user message that Codex injects (environment context, instructions) is not the person's.
// Reasoning items (and reasoning events) are assistant messages too. Each call item is a call,
// paired by the output item naming its call_id; a web search or image generation carries its
// own status. A forked or sub-agent rollout begins with a copy of its parent's history: what
// comes before the thread's own first turn (a turn whose UUIDv7 id is not older than the
// thread) is the parent's and not counted.
func countCodex(tb testing.TB, path string) srcCount {
	var c srcCount
	lines := jsonLines(tb, path, &c)
	since, own := time.Time{}, true
	turns := map[string]*[3]cxSide{} // user, assistant, reasoning
	turn, open, ends := "", map[string]int{}, map[string]int{}
	get := func() *[3]cxSide {
		if turns[turn] == nil {
			t := &[3]cxSide{}
			for i := range t {
				t[i] = cxSide{map[string]int{}, map[string]int{}}
			}
			turns[turn] = t
		}
		return turns[turn]
	}
	if len(lines) > 0 && str(lines[0]["type"]) == "thread.started" {
		return countCodexExec(lines, c)
	}
	for n, l := range lines {
		p := obj(l["payload"])
		typ, ptype := str(l["type"]), str(p["type"])
		if typ == "session_meta" && n == 0 {
			if str(p["forked_from_id"]) != "" || obj(p["source"])["subagent"] != nil {
				since, own = uuidV7(str(p["id"])), false
			}
			continue
		}
		if typ == "turn_context" || (typ == "event_msg" && ptype == "task_started") {
			turn = str(p["turn_id"])
			if !own && (uuidV7(turn).IsZero() || !uuidV7(turn).Before(since)) {
				own = true
			}
		}
		if !own {
			continue
		}
		if codexMessage(get(), typ, ptype, p) {
			continue
		}
		switch {
		case typ == "response_item" && strings.HasSuffix(ptype, "_call"):
			c.Tool++
			if id := str(p["call_id"]); id != "" && ptype != "web_search_call" && ptype != "image_generation_call" {
				open[id]++
			} else if str(p["status"]) != "" {
				c.Paired++
			}
		case typ == "event_msg" && (ptype == "exec_command_end" || ptype == "patch_apply_end" || ptype == "mcp_tool_call_end" || ptype == "dynamic_tool_call_response"):
			// The UI's end of a call is its result too, when the output item is missing.
			ends[str(p["call_id"])]++
		case typ == "response_item" && strings.HasSuffix(ptype, "_output"):
			if id := str(p["call_id"]); open[id] > 0 {
				open[id]--
			} else {
				c.Tool++
			}
			c.Paired++
		}
	}
	for id, n := range open {
		c.Paired += min(n, ends[id])
	}
	for _, t := range turns {
		c.User += t[0].messages()
		c.Assistant += t[1].messages() + t[2].messages()
	}
	return c
}

// cxSide holds one kind of message of a turn, by text, as items and as events.
type cxSide struct{ item, event map[string]int }

// messages is how many messages the side holds: each text once per copy on the side that has
// more of it.
func (s cxSide) messages() int {
	n := 0
	for text, i := range s.item {
		n += max(i, s.event[text])
	}
	for text, e := range s.event {
		if s.item[text] == 0 {
			n += e
		}
	}
	return n
}

func codexText(v any) string {
	var b strings.Builder
	for _, part := range arr(v) {
		b.WriteString(str(obj(part)["text"]))
	}
	return b.String()
}

func codexInjected(text string) bool {
	for _, prefix := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>", "<user_shell_command>", "<turn_aborted>"} {
		if strings.HasPrefix(text, prefix) {
			return true
		}
	}
	return false
}

// uuidV7 reads the creation time a UUIDv7 holds in its first 48 bits (zero when it is not one).
func uuidV7(id string) time.Time {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 || h[12] != '7' {
		return time.Time{}
	}
	b, err := hex.DecodeString(h[:12])
	if err != nil {
		return time.Time{}
	}
	var ms int64
	for _, x := range b {
		ms = ms<<8 | int64(x)
	}
	return time.UnixMilli(ms)
}

// countCodexExec: a `codex exec --json` stream holds each item once, completed: agent messages
// and reasoning are the assistant's, every other item kind a call carrying its own status.
func countCodexExec(lines []map[string]any, c srcCount) srcCount {
	for _, l := range lines {
		if str(l["type"]) != "item.completed" {
			continue
		}
		it := obj(l["item"])
		switch str(it["type"]) {
		case "agent_message", "reasoning":
			c.Assistant++
		case "error", "todo_list":
		default:
			c.Tool++
			if str(it["status"]) != "" || it["aggregated_output"] != nil {
				c.Paired++
			}
		}
	}
	return c
}

// codexMessage counts a message, reasoning item or message event into its turn, reporting
// whether the line was one.
func codexMessage(t *[3]cxSide, typ, ptype string, p map[string]any) bool {
	switch {
	case typ == "response_item" && ptype == "message":
		text := strings.TrimSpace(codexText(p["content"]))
		switch {
		case text == "":
		case str(p["role"]) == "user" && !codexInjected(text):
			t[0].item[text]++
		case str(p["role"]) == "assistant":
			t[1].item[text]++
		}
	case typ == "response_item" && ptype == "agent_message":
		t[1].item[strings.TrimSpace(codexText(p["content"])+str(p["message"]))]++
	case typ == "response_item" && ptype == "reasoning":
		var texts []string
		for _, s := range arr(p["summary"]) {
			texts = append(texts, str(obj(s)["text"]))
		}
		if text := strings.TrimSpace(strings.Join(texts, "\n\n")); text != "" || str(p["encrypted_content"]) != "" {
			t[2].item[text]++
		}
	case typ == "event_msg" && ptype == "user_message" && strings.TrimSpace(str(p["message"])) != "":
		t[0].event[strings.TrimSpace(str(p["message"]))]++
	case typ == "event_msg" && ptype == "agent_message" && strings.TrimSpace(str(p["message"])) != "":
		t[1].event[strings.TrimSpace(str(p["message"]))]++
	case typ == "event_msg" && (ptype == "agent_reasoning" || ptype == "agent_reasoning_raw_content") && strings.TrimSpace(str(p["text"])) != "":
		t[2].event[strings.TrimSpace(str(p["text"]))]++
	default:
		return false
	}
	return true
}
