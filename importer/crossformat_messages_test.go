package importer_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// countMessages: a message-array source as the APIs define a conversation. A list of recorded
// exchanges is the last request's history plus the last response's reply (every request
// repeats the history before it); a request body is its messages (or Responses API input
// items); a JSON Lines file is its message lines. A user message with text or media, an
// assistant message with text or reasoning, each tool call (OpenAI tool_calls, Anthropic
// tool_use, a function_call item), paired by a tool message, tool_result block or
// function_call_output naming it. A streamed (server-sent events) reply is assembled from its
// deltas.
func countMessages(tb testing.TB, path string) srcCount {
	var c srcCount
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var msgs []map[string]any
	var doc any
	if json.Unmarshal(bytes.TrimSpace(data), &doc) != nil {
		msgs = append(msgs, jsonLines(tb, path, &c)...)
	} else {
		msgs = apiConversation(doc)
	}
	open := map[string]int{}
	for _, m := range msgs {
		apiCount(m, &c, open)
	}
	return c
}

// apiConversation flattens a document into the messages of its conversation.
func apiConversation(doc any) []map[string]any {
	if a, ok := doc.([]any); ok {
		if len(a) > 0 && obj(a[0])["request"] != nil {
			last := obj(a[len(a)-1])
			return append(apiRequest(obj(apiBody(last["request"]))), apiReply(apiBody(last["response"]))...)
		}
		var out []map[string]any
		for _, m := range a {
			out = append(out, obj(m))
		}
		return out
	}
	return apiRequest(obj(doc))
}

// apiBody unwraps a recorded body: a JSON string holding JSON, an object's body, or a stream.
func apiBody(v any) any {
	if s, ok := v.(string); ok {
		var inner any
		if json.Unmarshal([]byte(strings.TrimSpace(s)), &inner) == nil {
			return apiBody(inner)
		}
		return s
	}
	if o := obj(v); o != nil && o["body"] != nil {
		return apiBody(o["body"])
	}
	return v
}

func apiRequest(req map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range arr(req["messages"]) {
		out = append(out, obj(m))
	}
	if s, ok := req["input"].(string); ok {
		out = append(out, map[string]any{"role": "user", "content": s})
	}
	for _, it := range arr(req["input"]) {
		out = append(out, obj(it))
	}
	return out
}

// apiReply turns a response (JSON or a stream) into its messages.
func apiReply(v any) []map[string]any {
	if s, ok := v.(string); ok {
		return []map[string]any{apiStream(s)}
	}
	r := obj(v)
	if ch := arr(r["choices"]); len(ch) > 0 {
		return []map[string]any{obj(obj(ch[0])["message"])}
	}
	if r["output"] != nil {
		var out []map[string]any
		for _, it := range arr(r["output"]) {
			out = append(out, obj(it))
		}
		return out
	}
	return []map[string]any{{"role": "assistant", "content": r["content"]}}
}

// apiStream assembles a streamed reply: OpenAI chunks (choices[0].delta) or Anthropic events
// (content_block_start and deltas).
func apiStream(s string) map[string]any {
	text, thinking := "", ""
	calls := map[string]bool{}
	for _, line := range strings.Split(s, "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		var ev map[string]any
		if !ok || json.Unmarshal([]byte(strings.TrimSpace(payload)), &ev) != nil {
			continue
		}
		for _, ch := range arr(ev["choices"]) {
			d := obj(obj(ch)["delta"])
			text += str(d["content"])
			for _, tc := range arr(d["tool_calls"]) {
				if id := str(obj(tc)["id"]); id != "" {
					calls[id] = true
				}
			}
		}
		if b := obj(ev["content_block"]); str(ev["type"]) == "content_block_start" && str(b["type"]) == "tool_use" {
			calls[str(b["id"])] = true
		}
		d := obj(ev["delta"])
		text += str(d["text"])
		thinking += str(d["thinking"])
	}
	m := map[string]any{"role": "assistant", "content": text, "thinking": thinking}
	var tcs []any
	for id := range calls {
		tcs = append(tcs, map[string]any{"id": id})
	}
	m["tool_calls"] = tcs
	return m
}

// apiCount counts one message or Responses item.
func apiCount(m map[string]any, c *srcCount, open map[string]int) {
	call := func(id string) { c.Tool++; open[id]++ }
	result := func(id string) {
		if open[id] > 0 {
			open[id]--
		} else {
			c.Tool++
		}
		c.Paired++
	}
	switch str(m["type"]) {
	case "function_call":
		call(str(m["call_id"]))
		return
	case "function_call_output":
		result(str(m["call_id"]))
		return
	case "reasoning":
		c.Assistant++
		return
	}
	said := strings.TrimSpace(str(m["content"])+str(m["thinking"])) != ""
	for _, b := range arr(m["content"]) {
		bo := obj(b)
		switch str(bo["type"]) {
		case "tool_use":
			call(str(bo["id"]))
		case "tool_result":
			result(str(bo["tool_use_id"]))
		case "text", "input_text", "output_text":
			said = said || strings.TrimSpace(str(bo["text"])) != ""
		case "thinking":
			said = said || str(bo["thinking"]) != ""
		default:
			said = true // media, redacted thinking: the message is there
		}
	}
	for _, tc := range arr(m["tool_calls"]) {
		call(str(obj(tc)["id"]))
	}
	switch str(m["role"]) {
	case "tool":
		result(str(m["tool_call_id"]))
	case "user":
		if said {
			c.User++
		}
	case "assistant", "model":
		if said {
			c.Assistant++
		}
	}
}
