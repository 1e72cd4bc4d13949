package loomcycletest

import (
	"fmt"
	"strings"
)

// modelCall writes one model call as the loop records it: thinking deltas (sometimes), text
// deltas, tool calls when tools is set, usage, done, then the tool results. It returns the
// call's input and output tokens.
func (g *gen) modelCall(i, t int, tools bool) (int64, int64) {
	sid, runID := SessionID(i), RunID(i, t)
	thought := g.r.Intn(3) == 0
	if thought {
		for _, d := range []string{"The customer asks about ", "the " + g.word() + "; check it first."} {
			g.event(sid, runID, "thinking", mustJSON(map[string]any{"type": "thinking", "text": d}))
		}
	}
	for k, n := 0, 1+g.r.Intn(3); k < n; k++ {
		g.event(sid, runID, "text", mustJSON(map[string]any{"type": "text", "text": fmt.Sprintf("Part %d about the %s. ", k, g.word())}))
	}
	var calls []string
	if tools {
		for k, n := 0, 1+g.r.Intn(2); k < n; k++ {
			calls = append(calls, g.toolCall(i, t))
		}
	}
	in, out := int64(800+g.r.Intn(400)), int64(50+g.r.Intn(100))
	usage := map[string]any{"input_tokens": in, "output_tokens": out, "model": "claude-sonnet-4", "provider": "anthropic"}
	g.event(sid, runID, "usage", mustJSON(map[string]any{"type": "usage", "usage": usage}))
	done := map[string]any{"type": "done", "stop_reason": "end_turn", "usage": usage}
	if tools {
		done["stop_reason"] = "tool_use"
	}
	if !thought && g.r.Intn(3) == 0 {
		done["reasoning"], done["reasoning_signature"] = "Reasoned about the "+g.word()+".", Secret
	}
	g.event(sid, runID, "done", mustJSON(done))
	for _, id := range calls {
		g.toolResult(i, t, id)
	}
	return in, out
}

// toolCall writes a tool_call and returns its id.
func (g *gen) toolCall(i, t int) string {
	id := fmt.Sprintf("toolu_%07d", len(g.st.Calls)+1)
	name := tools[g.r.Intn(len(tools))]
	input := string(mustJSON(map[string]any{"order": 1000 + g.r.Intn(9000), "note": "ünïcode " + g.word()}))
	g.event(SessionID(i), RunID(i, t), "tool_call", mustJSON(map[string]any{"type": "tool_call",
		"tool_use": map[string]any{"id": id, "name": name, "input": rawJSON(input)}}))
	g.st.Calls[id] = &Call{Session: SessionID(i), Name: name, Input: input}
	return id
}

// toolResult writes the result of call id; one in eight fails, and with Big the first one of
// the first session is 3 MiB.
func (g *gen) toolResult(i, t int, id string) {
	c := g.st.Calls[id]
	c.Answered, c.IsError = true, g.r.Intn(8) == 0
	c.Result = fmt.Sprintf("%s: %s is in transit", c.Name, g.word())
	if c.IsError {
		c.Result = `{"isError":true,"error":"` + c.Name + `: upstream timed out"}`
	}
	if g.o.Big && i == 0 && t == 0 && !strings.HasPrefix(c.Result, "BIG") {
		c.Result = "BIG" + strings.Repeat("r", 3<<20)
	}
	ev := map[string]any{"type": "tool_result", "tool_use": map[string]any{"id": id, "name": c.Name}, "text": c.Result}
	if c.IsError {
		ev["is_error"] = true
	}
	g.event(SessionID(i), RunID(i, t), "tool_result", mustJSON(ev))
}

// sideEvents writes the runtime's other event kinds, before (first) or after the run's model
// calls: steer, compaction and recap markers, retry, prompt_snapshot, an orphan tool result,
// error and awaiting_input.
func (g *gen) sideEvents(i, t int, status string, first bool) {
	sid, runID := SessionID(i), RunID(i, t)
	if first {
		if t == 0 && i%5 == 0 {
			size := 200
			if g.o.Big && i == 0 {
				size = 5 << 20
			}
			snap := map[string]any{"system": []map[string]any{{"type": "text", "text": SystemPrompt}},
				"input": []map[string]any{{"type": "text", "text": strings.Repeat("p", size)}}}
			g.event(sid, runID, "prompt_snapshot", mustJSON(map[string]any{"type": "prompt_snapshot", "prompt_snapshot": snap}))
		}
		if i%5 == 0 {
			g.event(sid, runID, "retry", mustJSON(map[string]any{"type": "retry",
				"retry": map[string]any{"provider": "anthropic", "attempt": 1, "wait_ms": 500, "reason": "retry-after header"}}))
		}
		return
	}
	if t == 1 && i%6 == 2 {
		text := "Actually, check order 42 too."
		g.event(sid, runID, "steer", mustJSON(map[string]any{"type": "steer", "user_input": map[string]any{"text": text, "source": "webui"}}))
		g.st.UserTexts[sid] = append(g.st.UserTexts[sid], text)
	}
	if t == 2 && i%8 == 0 {
		g.event(sid, runID, "context_compaction", mustJSON(map[string]any{"type": "context_compaction",
			"context_compaction": map[string]any{"summary": "Earlier: a refund was requested.", "before_tokens": 9000, "after_tokens": 400, "trigger": "auto"}}))
	}
	if t == 2 && i%8 == 4 {
		g.event(sid, runID, "context_recap", mustJSON(map[string]any{"type": "context_recap",
			"context_recap": map[string]any{"recap": "So far: order looked up.", "keep_n": 4, "trigger": "auto"}}))
	}
	if t == 1 && i%10 == 7 {
		g.event(sid, runID, "tool_result", mustJSON(map[string]any{"type": "tool_result",
			"tool_use": map[string]any{"id": fmt.Sprintf("toolu_orphan_%04d", i), "name": "web_fetch"}, "text": "late result"}))
		g.st.Orphans++
	}
	switch status {
	case "failed":
		g.event(sid, runID, "error", mustJSON(map[string]any{"type": "error", "error": "anthropic: 529 overloaded"}))
	case "awaiting_input":
		g.event(sid, runID, "awaiting_input", mustJSON(map[string]any{"type": "awaiting_input", "awaiting_input": map[string]any{"since_turn": t}}))
	}
}
