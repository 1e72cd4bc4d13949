// Package cline reads the histories of Cline and Roo Code for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package cline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// clineTasks imports the task histories of Cline and its forks, Roo Code and Kilo Code, VS
// Code extensions that keep each task in the editor's global storage:
//
//	<editor>/User/globalStorage/<extension id>/tasks/<task id>/api_conversation_history.json
//
// with ui_messages.json (what the panel showed, with times) and task_metadata.json beside it.
// The task id is the task's creation time in Unix milliseconds. api_conversation_history.json
// is the conversation as the extension sends it to the model: an Anthropic Messages array,
// [{role, content}] with text, image, tool_use and tool_result blocks (the extensions that
// describe tools in XML write the calls as text in the reply, and the results as text in the
// next user message). The file is rewritten as the task goes on, so it is read whole.
type clineTasks struct {
	name      string // format name and chat id prefix: cline, roo-code, kilo-code
	extension string // the VS Code extension id, the folder of its global storage
}

func (f clineTasks) Name() string { return f.name }

func (f clineTasks) DefaultPaths(home string) []string {
	var out []string
	for _, base := range []string{filepath.Join(home, ".config"), filepath.Join(home, "Library", "Application Support")} {
		// The VS Code builds whose global storage the extensions live in.
		for _, ed := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"} {
			out = append(out, filepath.Join(base, ed, "User", "globalStorage", f.extension, "tasks", "*", "api_conversation_history.json"))
		}
	}
	return out
}

// Detect claims a task's api_conversation_history.json in the extension's own storage; the
// plain Cline format also claims one elsewhere (a copied task folder) whose head is a message
// array.
func (f clineTasks) Detect(path string, head []byte) bool {
	if head == nil || filepath.Base(path) != "api_conversation_history.json" {
		return false
	}
	if reader.InFolder(path, f.extension+"/tasks") {
		return true
	}
	for _, c := range Formats() {
		if reader.InFolder(path, c.(clineTasks).extension+"/tasks") {
			return false // another fork's
		}
	}
	if f.name != "cline" {
		return false
	}
	h := bytes.TrimSpace(head)
	if len(h) == 0 || h[0] != '[' {
		return false
	}
	i := bytes.IndexByte(h, '{')
	if i < 0 {
		return false
	}
	first, _ := reader.LineFields(h[i:])
	return reader.HasFields(first, "role", "content")
}

// Companion: the other files of a task folder.
func (f clineTasks) Companion(path string) bool {
	switch filepath.Base(path) {
	case "ui_messages.json", "task_metadata.json", "context_history.json", "settings.json":
		return reader.InFolder(path, "tasks")
	}
	return false
}

// Formats are the extensions read, in detection order.
func Formats() []reader.Format {
	return []reader.Format{
		clineTasks{name: "cline", extension: "saoudrizwan.claude-dev"},
		clineTasks{name: "roo-code", extension: "rooveterinaryinc.roo-cline"},
		clineTasks{name: "kilo-code", extension: "kilocode.kilo-code"},
	}
}

func (f clineTasks) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll(f.name, 1<<30)
	if err != nil {
		return err
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(data, &msgs); err != nil {
		return fmt.Errorf("%s: %s is not a message array: %w", f.name, src.Path, err)
	}
	task := filepath.Base(filepath.Dir(src.Path))
	chatID := reader.ChatID(f.name, task)
	created := clineTaskTime(task, src.ModTime)
	attrs := annals.Attributes{"source": f.name, "cwd": clineCwd(data)}
	if attrs["cwd"] == "" {
		delete(attrs, "cwd")
	}
	entries, runs := f.entries(chatID, msgs, created, out)
	if m := clineModel(filepath.Dir(src.Path)); m != "" {
		attrs["model"] = m
	} else if len(runs) > 0 && runs[0].Model != "" {
		attrs["model"] = runs[0].Model
	}
	if err := out.Emit(annals.CaptureOp{Chat: &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created}}); err != nil {
		return err
	}
	for _, run := range runs {
		if err := out.Emit(annals.CaptureOp{Run: run}); err != nil {
			return err
		}
	}
	return reader.EmitEntries(chatID, entries, out)
}

// entries maps the messages: each block an entry (anthropicBlocks), a tool_result landing on
// its call. Ids hold the message's position and a hash of its content, so a history the
// extension rewrote (a truncated context) keeps the entries of the messages still there. An
// assistant message that names its model or token counts (Cline 3.x: modelInfo, metrics) is
// a run, and its entries are the run's.
func (f clineTasks) entries(chatID string, msgs []json.RawMessage, t time.Time, out reader.Output) ([]*annals.Entry, []*annals.Run) {
	open := map[string]*annals.Entry{}
	var queue []*annals.Entry // calls waiting for their text results: XML calls, and Cline 3.x's native ones
	var all []*annals.Entry
	var runs []*annals.Run
	for i, raw := range msgs {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "message %d: not a JSON object", i+1)
			continue
		}
		role := m.Str("role")
		blocks := m.Arr("content")
		if blocks == nil {
			if s := m.Str("content"); s != "" {
				b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
				blocks = []json.RawMessage{b}
			}
		}
		when := t
		if m.IsNum("ts") {
			when = reader.ParseTime(m.Num("ts"))
		}
		id := fmt.Sprintf("m%d-%s", i+1, reader.ShortHash(string(raw))[:8])
		ents := reader.AnthropicBlocks(blocks, role, id, when, open, func(j int, msg string) { out.Warnf(0, "message %d content[%d]: %s", i+1, j, msg) })
		for _, e := range ents {
			clineMark(e, f.name)
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				open[e.Tool.CallID] = e
			}
		}
		if role == "assistant" {
			ents = clineToolEntries(ents, &queue)
			if run := clineRun(chatID, id, when, m); run != nil {
				runs = append(runs, run)
				for _, e := range ents {
					e.RunID = run.ID
				}
			}
		} else {
			ents = clineXMLResults(ents, &queue)
		}
		all = append(all, ents...)
	}
	return all, runs
}

// clineRun reads the model and token counts Cline 3.x keeps on an assistant message
// (ClineStorageMessage: modelInfo {modelId, providerId, mode}, metrics {tokens {prompt,
// completion, cached}, cost}); nil when it keeps neither. prompt counts the cached tokens too.
func clineRun(chatID, entryID string, when time.Time, m reader.JSONObject) *annals.Run {
	info, metrics := m.Obj("modelInfo"), m.Obj("metrics")
	model := ""
	if info != nil {
		model = reader.SafeID(info.Str("modelId"), annals.MaxIDBytes)
	}
	var tokens reader.JSONObject
	if metrics != nil {
		tokens = metrics.Obj("tokens")
	}
	if model == "" && tokens == nil {
		return nil
	}
	run := &annals.Run{ID: reader.SafeID(chatID+"/"+entryID, annals.MaxIDBytes), ChatID: chatID, Status: annals.StatusCompleted, Model: model, StartedAt: when}
	if tokens != nil {
		run.InputTokens, run.OutputTokens = int64(tokens.Num("prompt")), int64(tokens.Num("completion"))
	}
	if metrics != nil && metrics.IsNum("cost") {
		run.CostUSD = metrics.Num("cost")
	}
	return run
}

// clineMark names the extension in an event's channel, and turns the blocks the extensions
// inject into a user message (<environment_details>, the files and terminals open in the
// editor) into system entries; the person's request, wrapped in <task>, is unwrapped.
func clineMark(e *annals.Entry, name string) {
	if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
		e.Channel = name + "/" + rest
	}
	if e.Kind != annals.KindUser {
		return
	}
	text := strings.TrimSpace(e.Text)
	if inner, ok := reader.StripTag(text, "task"); ok {
		e.Text = inner
		e.Metadata = reader.MergeMeta(e.Metadata, map[string]any{"wrapped_in": "task"})
		return
	}
	if strings.HasPrefix(text, "<environment_details>") {
		e.Kind = annals.KindSystem
		e.Metadata = reader.MergeMeta(e.Metadata, map[string]any{"context": true})
	}
}

// clineTaskTime reads a task id (creation time in milliseconds); another id is dated by the
// file.
func clineTaskTime(task string, mod time.Time) time.Time {
	if ms, err := strconv.ParseInt(task, 10, 64); err == nil && ms > 1e12 {
		return time.UnixMilli(ms).UTC()
	}
	return mod.UTC()
}

// clineCwd finds the working directory the extension writes into its environment details:
// "# Current Working Directory (<path>) Files".
func clineCwd(data []byte) string {
	const marker = `# Current Working Directory (`
	s := string(data)
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	rest := s[i+len(marker):]
	j := strings.Index(rest, ")")
	if j <= 0 || j > 4096 {
		return ""
	}
	return rest[:j]
}

// clineModel reads the model of the task's first request from task_metadata.json, whose
// model_usage lists the models the task used (in the versions that write it).
func clineModel(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "task_metadata.json"))
	if err != nil {
		return ""
	}
	var meta struct {
		Models []struct {
			ModelID string `json:"model_id"`
		} `json:"model_usage"`
	}
	if json.Unmarshal(b, &meta) != nil || len(meta.Models) == 0 {
		return ""
	}
	return reader.SafeID(meta.Models[0].ModelID, annals.MaxIDBytes)
}
