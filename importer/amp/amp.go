// Package amp reads the histories of Amp for annals import (docs/IMPORT.md): one reader behind the
// importer/reader contracts (detect, default locations, read), listed in importer.Formats.
package amp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Amp imports Sourcegraph Amp's threads: one JSON document per thread,
// ~/.local/share/amp/threads/T-<uuid>.json: {id, title, created (ms), env: {initial: {trees:
// [{uri, repository}]}}, messages: [{role, messageId, content, state, usage}]}. Content blocks
// are Anthropic's (text, thinking, tool_use), except that a tool's result is
// {type: tool_result, toolUseID, run: {status, result | error}}. Amp rewrites the file as the
// thread goes on, so it is read whole; entry ids are <messageId>#<block>.
type Amp struct{}

func (Amp) Name() string { return "amp" }

// Resume: `amp threads continue <thread id>` continues a thread from the command line (Amp's CLI;
// the command the session managers that drive Amp run, e.g. cmux's and shiftlog's).
func (Amp) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("amp threads continue %s", native)
}

func (Amp) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".local", "share", "amp", "threads", "*.json")}
}

func (Amp) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json") {
		return false
	}
	f, ok := reader.LineFields(head)
	if !ok || !reader.HasFields(f, "id") || !strings.HasPrefix(reader.FieldString(f, "id"), "T-") {
		return false
	}
	return reader.HasFields(f, "messages") || reader.HasFields(f, "created") || reader.HasFields(f, "env")
}

func (f Amp) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll("amp", 1<<30)
	if err != nil {
		return err
	}
	doc, err := reader.DecodeObject(data)
	if err != nil {
		return fmt.Errorf("amp: %s is not a thread: %w", src.Path, err)
	}
	chatID := reader.ChatID(f.Name(), doc.Str("id"))
	attrs := annals.Attributes{"source": f.Name(), "amp_mode": doc.Str("agentMode")}
	for _, raw := range doc.Obj("env").Obj("initial").Arr("trees") {
		tree, _ := reader.DecodeObject(raw)
		if u, err := url.Parse(tree.Str("uri")); err == nil && u.Scheme == "file" && attrs["cwd"] == "" {
			attrs["cwd"] = u.Path
			attrs["repository"] = tree.Obj("repository").Str("url")
		}
	}
	created := reader.FirstTime(reader.MilliTime(doc, "created"), src.ModTime.UTC())
	var entries []*annals.Entry
	calls := map[string]*annals.Entry{}
	for i, raw := range doc.Arr("messages") {
		m, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "messages[%d]: not a JSON object", i)
			continue
		}
		if model := m.Obj("usage").Str("model"); model != "" && attrs["model"] == "" && m.Str("role") == "assistant" {
			attrs["model"] = reader.SafeID(model, annals.MaxIDBytes)
		}
		id := fmt.Sprintf("m%s", reader.FirstNonEmpty(reader.TextOf(m.Raw("messageId")), fmt.Sprint(i)))
		entries = append(entries, ampBlocks(m, id, created, calls, out)...)
	}
	for k, v := range attrs {
		if v == "" {
			delete(attrs, k)
		}
	}
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: reader.Truncated(reader.ValidText(doc.Str("title")), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chatID, entries, out)
}

// ampBlocks maps one message: Amp's tool results are turned into Anthropic's shape and the
// blocks read as Cursor's (anthropicBlocks); a run the user rejected or cancelled gives its call
// that outcome. calls holds every call of the thread by id.
func ampBlocks(m reader.JSONObject, id string, t time.Time, calls map[string]*annals.Entry, out reader.Output) []*annals.Entry {
	blocks := m.Arr("content")
	status := map[string]string{}
	for i, raw := range blocks {
		b, err := reader.DecodeObject(raw)
		if err != nil || b.Str("type") != "tool_result" || b.Raw("run") == nil {
			continue
		}
		run := b.Obj("run")
		callID := reader.FirstNonEmpty(b.Str("toolUseID"), b.Str("tool_use_id"))
		res := run.Raw("result")
		if res == nil {
			res = run.Raw("error")
		}
		std, _ := json.Marshal(map[string]any{"type": "tool_result", "tool_use_id": callID, "content": ampResultText(res),
			"is_error": run.Str("status") == "error"})
		blocks[i] = std
		status[callID] = run.Str("status")
	}
	open := map[string]*annals.Entry{}
	for id, e := range calls {
		if e.Tool.Result == "" && e.Tool.Outcome == "" {
			open[id] = e
		}
	}
	ents := reader.AnthropicBlocks(blocks, m.Str("role"), id, t, open, func(j int, msg string) { out.Warnf(0, "%s content[%d]: %s", id, j, msg) })
	for _, e := range ents {
		if e.Tool != nil && e.Tool.CallID != "" {
			calls[e.Tool.CallID] = e
		}
		if rest, ok := strings.CutPrefix(e.Channel, "cursor/"); ok {
			e.Channel = "amp/" + rest
		}
	}
	for callID, st := range status {
		if call := calls[callID]; call != nil {
			switch st {
			case "rejected-by-user", "rejected":
				call.Tool.Outcome = annals.OutcomeBlocked
			case "cancelled", "canceled":
				call.Tool.Outcome = annals.OutcomeCancelled
			}
		}
	}
	return ents
}

// ampResultText renders a run's result: a string, the text of content blocks, or its JSON.
func ampResultText(raw json.RawMessage) string {
	if o, err := reader.DecodeObject(raw); err == nil {
		for _, k := range []string{"output", "content", "message"} {
			if v := o.Raw(k); v != nil {
				return reader.BlocksText(v)
			}
		}
	}
	return reader.BlocksText(raw)
}
