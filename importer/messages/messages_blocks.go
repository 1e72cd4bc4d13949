package messages

import (
	"bytes"
	"encoding/json"
	"github.com/annals-dev/annals/importer/reader"
	"strings"
)

type msgOpenAICall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// msgBlocks reads content: a string, or blocks (text, image, thinking, tool_use, tool_result).
func msgBlocks(raw json.RawMessage, it *msgItem) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return
	}
	if raw[0] == '"' {
		_ = json.Unmarshal(raw, &it.text)
		return
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return
	}
	var texts, thoughts []string
	for _, b := range blocks {
		switch b.Type {
		case "text", "input_text", "output_text":
			texts = append(texts, b.Text)
		case "thinking":
			thoughts = append(thoughts, b.Thinking) // its signature is dropped
		case "redacted_thinking":
			it.encrypted = true
		case "image", "image_url", "input_image", "document", "file", "input_file":
			it.images++
		case "tool_use", "server_tool_use":
			it.calls = append(it.calls, msgCall{id: b.ID, name: b.Name, args: b.Input})
		case "tool_result":
			it.results = append(it.results, msgResult{callID: b.ToolUseID, text: msgContentText(b.Content), isError: b.IsError})
		}
	}
	it.text = strings.Join(reader.DropBlank(texts), "\n\n")
	if r := strings.Join(reader.DropBlank(thoughts), "\n\n"); r != "" {
		it.reasoning = r
	}
}

// msgContentText flattens content (a string or blocks) to text.
func msgContentText(raw json.RawMessage) string {
	var it msgItem
	msgBlocks(raw, &it)
	if it.images > 0 {
		return strings.TrimSpace(it.text + "\n[image]")
	}
	return it.text
}

// msgArgs returns arguments as JSON: a JSON-encoded string holding JSON is decoded.
func msgArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if t := strings.TrimSpace(s); t == "" {
				return nil
			} else if json.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
			return reader.JSONString(s)
		}
	}
	return raw
}
