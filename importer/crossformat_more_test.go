package importer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readJSON(tb testing.TB, path string) map[string]any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// countAmp: an Amp thread's blocks: user text, assistant text and thinking, tool uses, paired
// by a tool_result naming them.
func countAmp(tb testing.TB, path string) srcCount {
	var c srcCount
	open := map[string]int{}
	for _, m := range arr(readJSON(tb, path)["messages"]) {
		role := str(obj(m)["role"])
		for _, b := range arr(obj(m)["content"]) {
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
				c.Tool++
				open[str(bo["id"])]++
			case "tool_result":
				if id := firstOfAny(bo["toolUseID"], bo["tool_use_id"]); open[id] > 0 {
					open[id]--
				} else {
					c.Tool++
				}
				c.Paired++
			}
		}
	}
	return c
}

func firstOfAny(vs ...any) string {
	for _, v := range vs {
		if s := str(v); s != "" {
			return s
		}
	}
	return ""
}

// countContinue: a Continue session's history items: user prompts, thinking and assistant
// messages, each tool call, paired when its state finished or a tool message answers it.
func countContinue(tb testing.TB, path string) srcCount {
	var c srcCount
	done := map[string]bool{}
	var calls []string
	for _, it := range arr(readJSON(tb, path)["history"]) {
		m := obj(obj(it)["message"])
		switch str(m["role"]) {
		case "user":
			c.User++
		case "thinking":
			c.Assistant++
		case "assistant":
			tcs := arr(m["toolCalls"])
			if str(m["content"]) != "" || len(arr(m["content"])) > 0 || len(tcs) == 0 {
				c.Assistant++
			}
			for _, tc := range tcs {
				calls = append(calls, str(obj(tc)["id"]))
			}
			if st := obj(obj(it)["toolCallState"]); st != nil && str(st["status"]) != "generating" {
				done[str(st["toolCallId"])] = true
			}
		case "tool":
			done[str(m["toolCallId"])] = true
		}
	}
	c.Tool = len(calls)
	for _, id := range calls {
		if done[id] {
			c.Paired++
		}
	}
	return c
}

// countOpenHands: a conversation folder's events: messages by source, each action a call
// (SDK ActionEvent, or a 0.x action other than message, think, finish, system and agent state)
// paired by an observation naming it; an action's thought, a think and a finish are the
// agent's.
func countOpenHands(tb testing.TB, dir string) srcCount {
	var c srcCount
	open := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "events", "*.json"))
	for _, p := range files {
		ev := readJSON(tb, p)
		if ev == nil {
			c.Unreadable++
			continue
		}
		if kind := str(ev["kind"]); kind != "" {
			switch kind {
			case "MessageEvent":
				if str(ev["source"]) == "user" {
					c.User++
				} else {
					c.Assistant++
				}
			case "ActionEvent":
				c.Tool++
				open[str(ev["tool_call_id"])]++
				if len(arr(ev["thought"])) > 0 || str(ev["reasoning_content"]) != "" {
					c.Assistant++
				}
			case "ObservationEvent", "UserRejectObservation":
				if open[str(ev["tool_call_id"])] > 0 {
					open[str(ev["tool_call_id"])]--
					c.Paired++
				}
			}
			continue
		}
		switch action := str(ev["action"]); action {
		case "":
			if id := strings.TrimSuffix(strings.TrimPrefix(jsonText(ev["cause"]), `"`), `"`); open[id] > 0 {
				open[id]--
				c.Paired++
			}
		case "message":
			if str(ev["source"]) == "user" {
				c.User++
			} else {
				c.Assistant++
			}
		case "think", "finish":
			c.Assistant++
		case "system", "change_agent_state":
		default:
			c.Tool++
			open[jsonText(ev["id"])]++
			if str(obj(ev["args"])["thought"]) != "" {
				c.Assistant++
			}
		}
	}
	return c
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// countDroid: a Droid session's message lines, read as Claude Code lines are: the same blocks
// under message.
func countDroid(tb testing.TB, path string) srcCount {
	var c srcCount
	open := map[string]int{}
	for _, l := range jsonLines(tb, path, &c) {
		if str(l["type"]) != "message" {
			continue
		}
		m := obj(l["message"])
		for _, b := range arr(m["content"]) {
			bo := obj(b)
			switch str(bo["type"]) {
			case "text":
				if str(m["role"]) == "user" {
					c.User++
				} else {
					c.Assistant++
				}
			case "thinking", "redacted_thinking":
				c.Assistant++
			case "tool_use":
				c.Tool++
				open[str(bo["id"])]++
			case "tool_result":
				if id := str(bo["tool_use_id"]); open[id] > 0 {
					open[id]--
				} else {
					c.Tool++
				}
				c.Paired++
			}
		}
	}
	return c
}
