// Package gptme reads the histories of gptme for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package gptme

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Gptme imports gptme's conversation logs: ~/.local/share/gptme/logs/<conversation
// id>/conversation.jsonl, one message per line as gptme's Message.to_dict writes it {role:
// system|user|assistant, content, timestamp (local, ISO 8601), files, pinned, hide, call_id,
// metadata: {model, usage, cost, tool}}, and a config.toml beside it whose [chat] table names
// the conversation and its model. gptme runs a tool from a code block in the assistant's reply
// and answers with a system message (its call_id, or its metadata's tool, names the tool); such a
// message is the tool's entry, the first hidden system message the system prompt. gptme rewrites
// the file on an undo or edit, so it is read whole; entry ids are the line numbers.
type Gptme struct{}

func (Gptme) Name() string { return "gptme" }

func (Gptme) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".local", "share", "gptme", "logs", "*", "conversation.jsonl")}
}

// Detect claims conversation.jsonl files whose lines are gptme messages: a role, content and a
// timestamp, which no API message has.
func (Gptme) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	lines := reader.HeadLines(head, 2)
	if len(lines) == 0 {
		return false
	}
	f, ok := reader.LineFields(lines[0])
	if !ok || !reader.HasFields(f, "role", "content", "timestamp") || len(f) > 12 {
		return false
	}
	switch reader.FieldString(f, "role") {
	case "system", "user", "assistant":
	default:
		return false
	}
	return filepath.Base(path) == "conversation.jsonl" || reader.HasFields(f, "hide") || reader.HasFields(f, "pinned")
}

// Companion: the conversation's config.toml beside it.
func (Gptme) Companion(path string) bool {
	return filepath.Base(path) == "config.toml" && reader.InFolder(path, "gptme/logs")
}

// Resume: gptme prints `gptme --name <conversation id>` when a conversation ends
// (gptme/cli/main.py, _format_resume_hint); --name loads the conversation of that id.
func (Gptme) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("gptme --name %s", native)
}

func (f Gptme) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	dir := filepath.Dir(src.Path)
	name, model, workspace := chatConfig(filepath.Join(dir, "config.toml"))
	attrs := annals.Attributes{"source": f.Name(), "model": reader.SafeID(model, annals.MaxIDBytes), "cwd": workspace}
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), filepath.Base(dir)), CreatedAt: src.ModTime.UTC(), Title: reader.Truncated(reader.ValidText(name), annals.MaxTitleBytes)}
	var entries []*annals.Entry
	var lastAssistant *annals.Entry
	last := chat.CreatedAt
	err := src.EachObject(ctx, "gptme", out, func(n int, o reader.JSONObject) error {
		last = reader.FirstTime(reader.ParseTime(o.Str("timestamp")), last)
		if len(entries) == 0 {
			chat.CreatedAt = last
		}
		meta := o.Obj("metadata")
		if m := meta.Str("model"); m != "" && attrs["model"] == "" {
			attrs["model"] = reader.SafeID(m, annals.MaxIDBytes)
		}
		e := &annals.Entry{ID: "L" + strconv.Itoa(n), Kind: annals.KindUser, Time: last, Text: reader.ValidText(o.Str("content"))}
		extra := map[string]any{"hide": reader.BoolOrNil(o.Boolean("hide")), "pinned": reader.BoolOrNil(o.Boolean("pinned")), "files": reader.Extras(o, "role", "content", "timestamp", "hide", "pinned", "call_id", "metadata")}
		switch o.Str("role") {
		case "assistant":
			e.Kind = annals.KindAssistant
			u := meta.Obj("usage")
			e.InputTokens, e.OutputTokens = reader.ClampTokens(int64(u.Num("input_tokens"))), reader.ClampTokens(int64(u.Num("output_tokens")))
			if c := meta.Num("cost"); c > 0 {
				extra["cost_usd"] = c
			}
			lastAssistant = e
		case "system":
			e.Kind = annals.KindSystem
			if tool := toolName(o, meta); tool != "" && lastAssistant != nil {
				// gptme's answer to the tool the reply before it ran.
				e.Kind = annals.KindTool
				e.Tool = &annals.ToolCall{Name: reader.ToolName(tool), CallID: reader.SafeID(o.Str("call_id"), annals.MaxIDBytes), Result: reader.Truncated(e.Text, annals.MaxEntryBytes/4), Outcome: outcome(e.Text)}
				e.Text = ""
				extra["reply"] = lastAssistant.ID
				// gptme runs a reply's tools one after another once the reply is written, and
				// dates each answer when it is written: the tool ran from the message before
				// (the reply, or the answer of the tool before it) to this one. The entry keeps
				// the answer's time, so the run is recorded as a duration.
				if prev := entries[len(entries)-1]; (prev == lastAssistant || prev.Kind == annals.KindTool) && last.After(prev.Time) {
					extra[annals.MetaDurationMS] = last.Sub(prev.Time).Milliseconds()
				}
			} else if len(entries) == 0 {
				extra["system_prompt"] = true
			}
		case "user":
		default:
			e.Kind = annals.KindEvent
			e.Channel = "gptme/" + reader.SanitizeChannel(o.Str("role"))
		}
		e.Metadata = reader.SafeMeta(extra)
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("gptme: reading %s: %w", src.Path, err)
	}
	chat.Attributes = attrs
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// toolPrefixes are the first words of the system messages gptme's tools answer with, by tool
// (gptme/tools/*.py), for logs written before messages carried call_id and metadata.tool.
var toolPrefixes = []struct{ prefix, tool string }{
	{"Ran command", "shell"}, {"Ran allowlisted command", "shell"}, {"Command denied", "shell"}, {"Executed code block", "ipython"},
	{"Saved to", "save"}, {"Appended to", "append"}, {"Patch applied", "patch"}, {"Patch successfully applied", "patch"},
}

// toolName names the tool a system message answers, or "" for a system message of gptme's own.
func toolName(o, meta reader.JSONObject) string {
	if t := meta.Str("tool"); t != "" {
		return t
	}
	for _, p := range toolPrefixes {
		if strings.HasPrefix(o.Str("content"), p.prefix) {
			return p.tool
		}
	}
	if o.Str("call_id") != "" {
		return "tool"
	}
	return ""
}

// outcome reads a tool's answer: gptme reports a failure as an error or a non-zero return code.
func outcome(text string) annals.Outcome {
	low := strings.ToLower(text)
	if strings.HasPrefix(low, "error") || strings.HasPrefix(low, "command denied") || strings.Contains(low, "return code: ") && !strings.Contains(low, "return code: 0") {
		return annals.OutcomeFailed
	}
	return annals.OutcomeSucceeded
}

// chatConfig reads name, model and workspace from the [chat] table of a conversation's
// config.toml: only the simple `key = "value"` lines gptme writes there.
func chatConfig(path string) (name, model, workspace string) {
	fh, err := os.Open(path)
	if err != nil {
		return "", "", ""
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	table := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			table = strings.Trim(line, "[] ")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || table != "chat" {
			continue
		}
		v = strings.TrimSpace(v)
		s, err := strconv.Unquote(v)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "name":
			name = s
		case "model":
			model = s
		case "workspace":
			workspace = s
		}
	}
	return name, model, workspace
}
