// Package clinesession reads the session store of Cline 4 (the Cline SDK that Cline's CLI and,
// from version 4, its VS Code extension run on) for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package clinesession

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ClineSession imports Cline 4's sessions, as @cline/core writes them
// (sdk/packages/core/src/services/session-artifacts.ts and session-data.ts, and the contract
// sdk/packages/core/docs/messages-contract-v1.md in github.com/cline/cline):
//
//	~/.cline/data/sessions/<session id>/<session id>.messages.json   the conversation
//	~/.cline/data/sessions/<session id>/<session id>.json            the manifest
//	~/.cline/data/sessions/<session id>/<agent id>.messages.json     a sub-agent's conversation
//
// The messages file is rewritten whole after every turn: {version: 1, updated_at, agent:
// lead|subagent|teammate, sessionId, taskType?, messages, system_prompt?}, each message {id,
// role: user|assistant, content: [Anthropic-style blocks: text, thinking, redacted_thinking,
// tool_use, tool_result {tool_use_id, name, content, is_error}, file {path, content}, image],
// ts (epoch ms), modelInfo {id, provider, family}, metrics {inputTokens, outputTokens,
// cacheReadTokens, cacheWriteTokens, cost}}. Tool results come back in the next user message.
// The manifest ({session_id, started_at, ended_at, status, model, cwd, metadata: {title, fork:
// {forkedFromSessionId}}}) names the session's title and working directory. A sub-agent's
// session id is <root>__<agent id> (session-graph.ts), its file named by the agent id.
type ClineSession struct{}

func (ClineSession) Name() string { return "cline-session" }

func (ClineSession) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".cline", "data", "sessions", "*", "*.messages.json")}
}

// Detect claims a *.messages.json whose head is the v1 messages document: a numeric version
// and Cline's agent kind or the messages array beside a sessionId.
func (ClineSession) Detect(path string, head []byte) bool {
	if head == nil || !strings.HasSuffix(filepath.Base(path), ".messages.json") {
		return false
	}
	f := reader.PrefixFields(head)
	if !reader.HasFields(f, "version", "sessionId") {
		return false
	}
	switch reader.FieldString(f, "agent") {
	case "lead", "subagent", "teammate":
		return true
	}
	return false
}

// Companion: the session's manifest, compaction state and hook log.
func (ClineSession) Companion(path string) bool {
	b := filepath.Base(path)
	return reader.InFolder(path, ".cline/data/sessions") && !strings.HasSuffix(b, ".messages.json") &&
		(strings.HasSuffix(b, ".json") || strings.HasSuffix(b, ".jsonl"))
}

// Resume: `cline --id <session id>` (apps/cli/src/commands/program.ts: "--id <session-id>",
// "Resume an existing session by ID").
func (ClineSession) ResumeCommand(native string) (string, string, bool) {
	if strings.Contains(native, "__") {
		return "", "", false // a sub-agent's or team task's session
	}
	return reader.ResumeWith("cline --id %s", native)
}

func (f ClineSession) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll(f.Name(), 1<<30)
	if err != nil {
		return err
	}
	doc, err := reader.DecodeObject(data)
	if err != nil {
		return fmt.Errorf("cline-session: %s is not a messages document: %w", src.Path, err)
	}
	dir := filepath.Dir(src.Path)
	sid := reader.FirstNonEmpty(doc.Str("sessionId"), strings.TrimSuffix(filepath.Base(src.Path), ".messages.json"))
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), sid), Attributes: annals.Attributes{"source": f.Name()}}
	root := filepath.Base(dir)
	if i := strings.Index(sid, "__"); i > 0 {
		root = sid[:i]
	}
	manifest := readJSON(filepath.Join(dir, root+".json"))
	if root != sid {
		chat.Attributes["parent"] = reader.ChatID(f.Name(), root)
		chat.Attributes["subagent"] = reader.SafeID(sid[len(root)+2:], annals.MaxIDBytes)
		chat.Attributes["agent_type"] = reader.SafeID(reader.FirstNonEmpty(doc.Str("taskType"), doc.Str("agent")), annals.MaxIDBytes)
	} else {
		chat.Title = reader.Truncated(reader.ValidText(manifest.Obj("metadata").Str("title")), annals.MaxTitleBytes)
		if fork := manifest.Obj("metadata").Obj("fork").Str("forkedFromSessionId"); fork != "" {
			chat.Attributes["forked_from"] = reader.ChatID(f.Name(), fork)
		}
	}
	chat.Attributes["cwd"] = reader.FirstNonEmpty(manifest.Str("cwd"), manifest.Str("workspace_root"))
	start := reader.FirstTime(reader.ParseTime(manifest.Str("started_at")), reader.ParseTime(doc.Str("updated_at")), src.ModTime.UTC())
	entries, runs := messages(chat.ID, doc, start, out)
	for _, e := range entries {
		if e.Time.Before(start) {
			start = e.Time // a fork keeps the messages of the session it forked
		}
	}
	if len(entries) > 0 && entries[0].ID == "system" {
		entries[0].Time = start
	}
	chat.CreatedAt = start
	chat.Attributes["model"] = reader.SafeID(manifest.Str("model"), annals.MaxIDBytes)
	if len(runs) > 0 && runs[0].Model != "" {
		chat.Attributes["model"] = runs[0].Model
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	for _, run := range runs {
		if err := out.Emit(annals.CaptureOp{Run: run}); err != nil {
			return err
		}
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

// messages maps the document's messages to entries (ids <message id>#<block>, a tool_result
// landing on its call) and runs: each assistant message that names its model or carries
// metrics is a run, and its entries are the run's.
func messages(chatID string, doc reader.JSONObject, t time.Time, out reader.Output) ([]*annals.Entry, []*annals.Run) {
	var all []*annals.Entry
	if sp := doc.Str("system_prompt"); sp != "" {
		all = append(all, &annals.Entry{ID: "system", Kind: annals.KindSystem, Time: t, Text: reader.Truncated(reader.ValidText(sp), annals.MaxEntryBytes/2),
			Metadata: reader.SafeMeta(map[string]any{"system_prompt": true})})
	}
	open := map[string]*annals.Entry{}
	var runs []*annals.Run
	for i, raw := range doc.Arr("messages") {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "message %d: not a JSON object", i+1)
			continue
		}
		if m.IsNum("ts") {
			t = reader.ParseTime(m.Num("ts"))
		}
		id := reader.SafeID(reader.FirstNonEmpty(m.Str("id"), fmt.Sprintf("m%d", i+1)), 200)
		blocks := fileBlocks(m.Arr("content"))
		if blocks == nil && m.Str("content") != "" {
			blocks = []json.RawMessage{mustJSON(map[string]string{"type": "text", "text": m.Str("content")})}
		}
		ents := reader.AnthropicBlocks(blocks, m.Str("role"), id, t, open, func(j int, msg string) { out.Warnf(0, "message %d content[%d]: %s", i+1, j, msg) })
		for _, e := range ents {
			mark(e)
			if e.Tool != nil && e.Tool.CallID != "" && e.Tool.Result == "" {
				open[e.Tool.CallID] = e
			}
		}
		if m.Str("role") == "assistant" {
			if run := messageRun(chatID, id, t, m); run != nil {
				runs = append(runs, run)
				for _, e := range ents {
					e.RunID = run.ID
				}
			}
		}
		all = append(all, ents...)
	}
	return all, runs
}

// messageRun reads an assistant message's modelInfo and metrics; nil when it has neither.
func messageRun(chatID, msgID string, when time.Time, m reader.JSONObject) *annals.Run {
	info, metrics := m.Obj("modelInfo"), m.Obj("metrics")
	if info == nil && metrics == nil {
		return nil
	}
	run := &annals.Run{ID: reader.SafeID(chatID+"/"+msgID, annals.MaxIDBytes), ChatID: chatID, Status: annals.StatusCompleted,
		Model: reader.SafeID(info.Str("id"), annals.MaxIDBytes), StartedAt: when}
	if metrics != nil {
		run.InputTokens = reader.ClampTokens(int64(metrics.Num("inputTokens")))
		run.OutputTokens = reader.ClampTokens(int64(metrics.Num("outputTokens")))
		run.CostUSD = metrics.Num("cost")
	}
	return run
}

// fileBlocks replaces each file block (a file the person attached, its whole content inline)
// with its path and size: the content is the file's, not the conversation's.
func fileBlocks(blocks []json.RawMessage) []json.RawMessage {
	for i, raw := range blocks {
		b, err := reader.DecodeObject(raw)
		if err != nil || b.Str("type") != "file" {
			continue
		}
		blocks[i] = mustJSON(map[string]any{"type": "file", "path": b.Str("path"), "bytes": len(b.Str("content"))})
	}
	return blocks
}

// mark names the format in an event's channel and titles an attached file by its path.
func mark(e *annals.Entry) {
	rest, ok := strings.CutPrefix(e.Channel, "cursor/")
	if !ok {
		return
	}
	e.Channel = "cline-session/" + rest
	if rest == "file" {
		var m struct {
			Block struct {
				Path json.RawMessage `json:"path"`
			} `json:"block"`
		}
		if json.Unmarshal(e.Metadata, &m) == nil {
			e.Text = strings.TrimSpace("file " + reader.TextOf(m.Block.Path))
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

func readJSON(path string) reader.JSONObject {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	o, err := reader.DecodeObject(b)
	if err != nil {
		return nil
	}
	return o
}
