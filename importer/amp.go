package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// amp imports Sourcegraph Amp's threads: one JSON document per thread,
// ~/.local/share/amp/threads/T-<uuid>.json: {id, title, created (ms), env: {initial: {trees:
// [{uri, repository}]}}, messages: [{role, messageId, content, state, usage}]}. Content blocks
// are Anthropic's (text, thinking, tool_use), except that a tool's result is
// {type: tool_result, toolUseID, run: {status, result | error}}. Amp rewrites the file as the
// thread goes on, so it is read whole; entry ids are <messageId>#<block>.
type amp struct{}

func (amp) Name() string { return "amp" }

func (amp) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".local", "share", "amp", "threads", "*.json")}
}

func (amp) Detect(path string, head []byte) bool {
	if head == nil || !hasExt(path, ".json") {
		return false
	}
	f, ok := lineFields(head)
	if !ok || !has(f, "id") || !strings.HasPrefix(fieldString(f, "id"), "T-") {
		return false
	}
	return has(f, "messages") || has(f, "created") || has(f, "env")
}

func (f amp) ParseFile(ctx context.Context, src *Source, out Output) error {
	r, err := src.Open()
	if err != nil {
		return fmt.Errorf("amp: %w", err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return fmt.Errorf("amp: reading %s: %w", src.Path, err)
	}
	doc, err := decodeObject(data)
	if err != nil {
		return fmt.Errorf("amp: %s is not a thread: %w", src.Path, err)
	}
	chatID := ChatID(f.Name(), doc.str("id"))
	attrs := annals.Attributes{"source": f.Name(), "amp_mode": doc.str("agentMode")}
	for _, raw := range doc.obj("env").obj("initial").arr("trees") {
		tree, _ := decodeObject(raw)
		if u, err := url.Parse(tree.str("uri")); err == nil && u.Scheme == "file" && attrs["cwd"] == "" {
			attrs["cwd"] = u.Path
			attrs["repository"] = tree.obj("repository").str("url")
		}
	}
	created := firstTime(ocTime(doc, "created"), src.ModTime.UTC())
	var entries []*annals.Entry
	calls := map[string]*annals.Entry{}
	for i, raw := range doc.arr("messages") {
		m, err := decodeObject(raw)
		if err != nil {
			out.Warnf(0, "messages[%d]: not a JSON object", i)
			continue
		}
		if model := m.obj("usage").str("model"); model != "" && attrs["model"] == "" && m.str("role") == "assistant" {
			attrs["model"] = SafeID(model, annals.MaxIDBytes)
		}
		id := fmt.Sprintf("m%s", firstNonEmpty(textOf(m.raw("messageId")), fmt.Sprint(i)))
		entries = append(entries, ampBlocks(m, id, created, calls, out)...)
	}
	for k, v := range attrs {
		if v == "" {
			delete(attrs, k)
		}
	}
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: Truncated(ValidText(doc.str("title")), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: cleanChat(chat)}); err != nil {
		return err
	}
	return emitEntries(chatID, entries, out)
}

// ampBlocks maps one message: Amp's tool results are turned into Anthropic's shape and the
// blocks read as Cursor's (anthropicBlocks); a run the user rejected or cancelled gives its call
// that outcome. calls holds every call of the thread by id.
func ampBlocks(m jsonObject, id string, t time.Time, calls map[string]*annals.Entry, out Output) []*annals.Entry {
	blocks := m.arr("content")
	status := map[string]string{}
	for i, raw := range blocks {
		b, err := decodeObject(raw)
		if err != nil || b.str("type") != "tool_result" || b.raw("run") == nil {
			continue
		}
		run := b.obj("run")
		callID := firstNonEmpty(b.str("toolUseID"), b.str("tool_use_id"))
		res := run.raw("result")
		if res == nil {
			res = run.raw("error")
		}
		std, _ := json.Marshal(map[string]any{"type": "tool_result", "tool_use_id": callID, "content": ampResultText(res),
			"is_error": run.str("status") == "error"})
		blocks[i] = std
		status[callID] = run.str("status")
	}
	open := map[string]*annals.Entry{}
	for id, e := range calls {
		if e.Tool.Result == "" && e.Tool.Outcome == "" {
			open[id] = e
		}
	}
	ents := anthropicBlocks(blocks, m.str("role"), id, t, open, func(j int, msg string) { out.Warnf(0, "%s content[%d]: %s", id, j, msg) })
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
	if o, err := decodeObject(raw); err == nil {
		for _, k := range []string{"output", "content", "message"} {
			if v := o.raw(k); v != nil {
				return blocksText(v)
			}
		}
	}
	return blocksText(raw)
}
