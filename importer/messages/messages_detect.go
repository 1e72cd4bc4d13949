package messages

import (
	"bytes"
	"encoding/json"
	"github.com/annals-dev/annals/importer/reader"
	"path/filepath"
	"strings"
)

// Detect claims a JSON document or JSON Lines file of one of the shapes the messages format
// reads, and nothing another tool's records would also show (see msgShape).
func (Messages) Detect(path string, head []byte) bool {
	if !reader.HasExt(path, ".json", ".jsonl") || filepath.Base(path) == "api_conversation_history.json" {
		// A Cline task's history is a message array too; the Cline formats read it with its task.
		return false
	}
	h := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	if len(h) == 0 {
		return false
	}
	if h[0] == '[' {
		// A JSON array: judge its first element.
		i := bytes.IndexByte(h, '{')
		if i < 0 || len(bytes.TrimSpace(h[1:i])) > 0 {
			return false
		}
		f, _ := reader.LineFields(h[i:])
		return msgShape(f, h[i:])
	}
	if reader.HasExt(path, ".json") {
		f, _ := reader.LineFields(h)
		return msgShape(f, h)
	}
	lines := reader.HeadLines(h, 4)
	for _, line := range lines {
		// Kimi CLI's context lines are messages too, with its own bookkeeping roles.
		if f, ok := reader.LineFields(line); ok && strings.HasPrefix(reader.FieldString(f, "role"), "_") {
			return false
		}
	}
	f, _ := reader.LineFields(lines[0])
	return msgShape(f, lines[0])
}

// msgShape reports whether the top level of one JSON object is one of the shapes the messages
// format reads, and nothing that another tool's records would also show: a chat message
// {role, content | tool_calls} with a standard role, a request body {messages | input}, or a
// recorded exchange {request, response}. An API message or body carries no time and no session:
// a message with a timestamp (a gptme conversation.jsonl line, with its hide and pinned flags)
// or a document naming its session (a Hermes Agent session_<id>.json: session_id, platform,
// session_start), or Mistral Vibe's injected flag, is another tool's, which its own reader (gptme,
// hermes, mistral-vibe) reads.
func msgShape(f map[string]json.RawMessage, line []byte) bool {
	for _, foreign := range []string{"sessionId", "sessionID", "info", "mapping", "uuid", "message", "loglines", "projectHash", "title", "env", "agentMode",
		"timestamp", "hide", "pinned", "session_id", "session_start", "platform", "injected"} {
		if reader.HasFields(f, foreign) {
			return false
		}
	}
	switch {
	case reader.HasFields(f, "request") && (reader.HasFields(f, "response") || reader.HasFields(f, "uri") || reader.HasFields(f, "method")):
		// A recorded exchange; a long request can hide its response beyond the head.
		return true
	case reader.HasFields(f, "role"):
		switch reader.FieldString(f, "role") {
		case "system", "developer", "user", "assistant", "tool", "function":
			return reader.HasFields(f, "content") || reader.HasFields(f, "tool_calls")
		}
		return false
	case reader.HasFields(f, "messages"), reader.HasFields(f, "input"):
		// A request body: its messages (or input items) have roles.
		return bytes.Contains(line, []byte(`"role"`)) || reader.HasFields(f, "model")
	}
	return false
}
