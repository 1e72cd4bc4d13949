// Package aistudio reads Google AI Studio's saved prompts for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package aistudio

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// AIStudio imports the chats Google AI Studio saves to Google Drive (the "Google AI Studio"
// folder; Google Takeout exports it as Drive/Google AI Studio/<prompt name>, with no extension):
// one JSON document per chat {runSettings: {model, temperature, ...}, systemInstruction: {text |
// parts}, chunkedPrompt: {chunks: [{text, role: user|model, tokenCount, isThought,
// finishReason, functionCall, functionResponse, executableCode, codeExecutionResult,
// driveDocument, driveImage, inlineImage}], pendingInputs}}. A thought chunk is the reply's
// reasoning; a function call or executed code is a tool entry with its response or result. The
// chunks carry no time: every entry is dated at the file's modification time. The chat's id and
// title are the file's name (AI Studio names a saved chat uniquely in its folder); entry ids are
// c<chunk index>.
type AIStudio struct{}

func (AIStudio) Name() string { return "ai-studio" }

func (AIStudio) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, "Downloads", "Takeout", "Drive", "Google AI Studio", "*"),
		filepath.Join(home, "Google Drive", "My Drive", "Google AI Studio", "*"),
	}
}

// Detect claims a JSON document whose top level holds AI Studio's runSettings and chunkedPrompt
// (or, cut by the head, runSettings before any other field).
func (AIStudio) Detect(path string, head []byte) bool {
	if head == nil {
		return false
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != "" && ext != ".json" && !reader.InFolder(path, "Google AI Studio") {
		return false
	}
	f := reader.PrefixFields(head)
	return reader.HasFields(f, "chunkedPrompt") && (reader.HasFields(f, "runSettings") || reader.HasFields(f, "systemInstruction")) ||
		reader.HasFields(f, "runSettings") && len(f) <= 3 && strings.Contains(string(head), `"chunkedPrompt"`)
}

func (f AIStudio) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll("ai-studio", 1<<30)
	if err != nil {
		return err
	}
	doc, err := reader.DecodeObject(data)
	if err != nil {
		return fmt.Errorf("ai-studio: %s is not a saved prompt: %w", src.Path, err)
	}
	name := strings.TrimSuffix(filepath.Base(src.Path), ".json")
	t := src.ModTime.UTC()
	model := strings.TrimPrefix(doc.Obj("runSettings").Str("model"), "models/")
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), name), CreatedAt: t, Title: reader.Truncated(reader.ValidText(name), annals.MaxTitleBytes),
		Attributes: annals.Attributes{"source": f.Name(), "model": reader.SafeID(model, annals.MaxIDBytes)}}
	var entries []*annals.Entry
	if si := doc.Obj("systemInstruction"); si != nil {
		text := si.Str("text")
		if text == "" {
			text = reader.BlocksText(si.Raw("parts"))
		}
		if strings.TrimSpace(text) != "" {
			entries = append(entries, &annals.Entry{ID: "system", Kind: annals.KindSystem, Time: t, Text: reader.ValidText(text), Metadata: reader.SafeMeta(map[string]any{"system_prompt": true})})
		}
	}
	var thought []string
	var lastCall *annals.Entry
	for i, raw := range doc.Obj("chunkedPrompt").Arr("chunks") {
		c, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "chunk %d: not a JSON object", i)
			continue
		}
		id := fmt.Sprintf("c%d", i)
		e := chunk(c, id, t, &thought, &lastCall)
		if e != nil {
			entries = append(entries, e)
		}
	}
	if len(thought) > 0 {
		// Thoughts with no reply after them (an interrupted run).
		entries = append(entries, &annals.Entry{ID: "thought", Kind: annals.KindAssistant, Time: t, Reasoning: reader.ValidText(strings.Join(thought, "\n\n"))})
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// chunk maps one chunk; thought chunks are held in thought until the model's next text chunk,
// whose reasoning they become.
func chunk(c reader.JSONObject, id string, t time.Time, thought *[]string, lastCall **annals.Entry) *annals.Entry {
	text := reader.ValidText(c.Str("text"))
	switch {
	case c.Boolean("isThought"):
		*thought = append(*thought, text)
		return nil
	case c.Obj("functionCall") != nil || c.Obj("executableCode") != nil:
		name, args := "code_execution", json.RawMessage(nil)
		if fc := c.Obj("functionCall"); fc != nil {
			name, args = fc.Str("name"), fc.Raw("args")
		} else {
			args = c.Raw("executableCode")
		}
		e := &annals.Entry{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(name), Arguments: reader.CallArgs(args)}}
		if res := c.Obj("codeExecutionResult"); res != nil {
			setResult(e, res)
		}
		*lastCall = e
		return e
	case c.Obj("functionResponse") != nil || c.Obj("codeExecutionResult") != nil:
		res := c.Obj("codeExecutionResult")
		if fr := c.Obj("functionResponse"); fr != nil {
			res = fr
		}
		if call := *lastCall; call != nil && call.Tool.Result == "" {
			setResult(call, res)
			*lastCall = nil
			return nil
		}
		e := &annals.Entry{ID: id, Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{Name: reader.ToolName(res.Str("name"))}, Metadata: reader.SafeMeta(map[string]any{"orphan_result": true})}
		setResult(e, res)
		return e
	}
	kind := annals.KindUser
	if c.Str("role") == "model" {
		kind = annals.KindAssistant
	}
	meta := map[string]any{"token_count": c.Num("tokenCount"), "finish_reason": c.Str("finishReason")}
	for _, k := range []string{"driveDocument", "driveImage", "inlineImage", "driveVideo", "youtubeVideo"} {
		if o := c.Obj(k); o != nil {
			// What was attached is named; its bytes are not kept.
			meta["attachment"] = map[string]any{"kind": k, "id": o.Str("id"), "mime_type": o.Str("mimeType")}
		}
	}
	e := &annals.Entry{ID: id, Kind: kind, Time: t, Text: text}
	if kind == annals.KindAssistant && len(*thought) > 0 {
		e.Reasoning = reader.ValidText(strings.Join(*thought, "\n\n"))
		*thought = nil
	}
	if kind == annals.KindAssistant {
		e.OutputTokens = reader.ClampTokens(int64(c.Num("tokenCount")))
	}
	e.Metadata = reader.SafeMeta(meta)
	if text == "" && meta["attachment"] == nil && e.Reasoning == "" {
		return nil
	}
	return e
}

// setResult fills a call's result and outcome from a function response or a code execution
// result {outcome: OUTCOME_OK | OUTCOME_FAILED | ..., output}.
func setResult(e *annals.Entry, res reader.JSONObject) {
	out := res.Str("output")
	if out == "" {
		if r := res.Raw("response"); r != nil {
			out = string(r)
		}
	}
	e.Tool.Result = reader.Truncated(reader.ValidText(out), annals.MaxEntryBytes/4)
	e.Tool.Outcome = annals.OutcomeSucceeded
	if o := res.Str("outcome"); o != "" && o != "OUTCOME_OK" {
		e.Tool.Outcome = annals.OutcomeFailed
	}
}
