package codex

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// The decoding helpers of the Codex reader (codex.go): message text, injected context, call
// arguments and outputs.

// cxText joins the text parts of a message's content and counts the other parts (images).
func cxText(raw json.RawMessage) (string, int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", 0
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, 0
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", 0
	}
	var texts []string
	other := 0
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text", "inputText":
			texts = append(texts, p.Text)
		case "encrypted_content":
			// opaque: dropped
		default:
			other++
		}
	}
	return strings.Join(texts, "\n"), other
}

// cxInjected spots the context Codex sends as user messages (environment, AGENTS.md
// instructions), which are not something the person typed.
func cxInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, prefix := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>", "<user_shell_command>", "<turn_aborted>"} {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// cxArgs returns a call's arguments as JSON: a JSON-encoded string argument is decoded when it
// holds JSON, and free text (a patch) is kept as a JSON string.
func cxArgs(p *cxPayload) json.RawMessage {
	for _, raw := range []json.RawMessage{p.Arguments, p.Input, p.Action} {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		if raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if t := strings.TrimSpace(s); json.Valid([]byte(t)) && t != "" && (t[0] == '{' || t[0] == '[') {
					return json.RawMessage(t)
				}
				return reader.JSONString(s)
			}
		}
		return raw
	}
	return nil
}

// cxOutput reads a call output: a string, a content item or list, or (older versions) a JSON
// string {"output": ..., "metadata": {"exit_code": n}}.
func cxOutput(p *cxPayload) (string, annals.Outcome, json.RawMessage) {
	raw := bytes.TrimSpace(p.Output)
	outcome := annals.OutcomeSucceeded
	if p.Success != nil && !*p.Success {
		outcome = annals.OutcomeFailed
	}
	var text string
	switch {
	case len(raw) == 0:
	case raw[0] == '"':
		_ = json.Unmarshal(raw, &text)
	case raw[0] == '[':
		text, _ = cxText(raw)
	case raw[0] == '{':
		var o struct {
			Text    string `json:"text"`
			Content string `json:"content"`
			Success *bool  `json:"success"`
		}
		if json.Unmarshal(raw, &o) == nil && (o.Text != "" || o.Content != "") {
			text = o.Text + o.Content
			if o.Success != nil && !*o.Success {
				outcome = annals.OutcomeFailed
			}
		} else {
			text = string(raw)
		}
	default:
		text = string(raw)
	}
	var meta json.RawMessage
	var wrapped struct {
		Output   *string `json:"output"`
		Metadata *struct {
			ExitCode *int     `json:"exit_code"`
			Duration *float64 `json:"duration_seconds"`
		} `json:"metadata"`
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &wrapped) == nil && wrapped.Output != nil {
		text = *wrapped.Output
		if wrapped.Metadata != nil && wrapped.Metadata.ExitCode != nil {
			if *wrapped.Metadata.ExitCode != 0 {
				outcome = annals.OutcomeFailed
			}
			meta = reader.Metadata(map[string]any{"exit_code": *wrapped.Metadata.ExitCode})
		}
	}
	if text == "" && len(p.Tools) > 0 {
		text = string(p.Tools) // tool_search_output lists the tools it found
	}
	if cxStatus(cxString(p.Status)) == annals.OutcomeFailed {
		outcome = annals.OutcomeFailed
	}
	return reader.ValidText(text), outcome, meta
}

// cxString reads a JSON string, or "" for any other value.
func cxString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func cxStatus(status string) annals.Outcome {
	switch status {
	case "failed", "error", "incomplete":
		return annals.OutcomeFailed
	case "cancelled", "canceled":
		return annals.OutcomeCancelled
	case "completed", "success", "succeeded":
		return annals.OutcomeSucceeded
	}
	return ""
}
