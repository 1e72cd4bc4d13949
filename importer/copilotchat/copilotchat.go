// Package copilotchat reads the histories of GitHub Copilot Chat in VS Code for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package copilotchat

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// CopilotChat imports GitHub Copilot Chat in VS Code: the chat sessions VS Code keeps per
// workspace, <editor>/User/workspaceStorage/<workspace hash>/chatSessions/<sessionId>.json
// (and globalStorage/emptyWindowChatSessions/ for windows without a folder). A session is
// VS Code's serialized chat model (microsoft/vscode, chatModel.ts, version 3): {sessionId,
// creationDate, customTitle, requests: [{requestId, timestamp, modelId, message: {text},
// response: [parts], isCanceled}]}, the response parts being markdown fragments ({value}),
// thinking, tool invocations (kind toolInvocationSerialized, with resultDetails or
// toolSpecificData), file edits and bookkeeping. Newer versions write the same model as a
// mutation log, <sessionId>.jsonl: {kind: 0, v: state}, then {kind: 1, k: path, v} sets and
// {kind: 2, k: path, v: items} appends, which is replayed into the model first. Read whole.
type CopilotChat struct{}

func (CopilotChat) Name() string { return "copilot-chat" }

func (CopilotChat) DefaultPaths(home string) []string {
	var out []string
	for _, base := range []string{filepath.Join(home, ".config"), filepath.Join(home, "Library", "Application Support")} {
		for _, ed := range []string{"Code", "Code - Insiders"} {
			user := filepath.Join(base, ed, "User")
			out = append(out, filepath.Join(user, "workspaceStorage", "*", "chatSessions", "*.json*"),
				filepath.Join(user, "globalStorage", "emptyWindowChatSessions", "*.json*"))
		}
	}
	return out
}

func (CopilotChat) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json", ".jsonl") {
		return false
	}
	f, ok := reader.LineFields(head)
	if !ok {
		return false
	}
	if reader.HasExt(path, ".jsonl") {
		// A log opens with {"kind":0,"v":{...the session...}}.
		if !reader.HasFields(f, "kind", "v") {
			return false
		}
		if f["v"] == nil { // a session longer than the head
			return reader.InFolder(path, "chatSessions") || reader.InFolder(path, "emptyWindowChatSessions")
		}
		if f, ok = reader.LineFields(f["v"]); !ok {
			return false
		}
	}
	// VS Code writes the users' names before the requests, the session id after them.
	return reader.HasFields(f, "requests") && (reader.HasFields(f, "requesterUsername") || reader.HasFields(f, "responderUsername") || reader.HasFields(f, "sessionId", "creationDate"))
}

func (f CopilotChat) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	var doc reader.JSONObject
	var err error
	if reader.HasExt(src.Path, ".jsonl") {
		doc, err = replayChatLog(src.Path, out)
	} else {
		var b []byte
		if b, err = os.ReadFile(src.Path); err == nil {
			doc, err = reader.DecodeObject(b)
		}
	}
	if err != nil {
		return fmt.Errorf("copilot-chat: %s: %w", src.Path, err)
	}
	sid := reader.FirstNonEmpty(doc.Str("sessionId"), strings.TrimSuffix(filepath.Base(src.Path), filepath.Ext(src.Path)))
	chatID := reader.ChatID(f.Name(), sid)
	attrs := annals.Attributes{"source": f.Name()}
	if ws := filepath.Dir(filepath.Dir(src.Path)); filepath.Base(filepath.Dir(ws)) == "workspaceStorage" {
		attrs["workspace_hash"] = filepath.Base(ws)
	}
	reqs := doc.Arr("requests")
	var entries []*annals.Entry
	for i, raw := range reqs {
		r, err := reader.DecodeObject(raw)
		if err != nil {
			out.Warnf(0, "requests[%d]: not a JSON object", i)
			continue
		}
		if m := r.Str("modelId"); m != "" && attrs["model"] == "" {
			attrs["model"] = reader.SafeID(m, annals.MaxIDBytes)
		}
		entries = append(entries, copilotChatRequest(r, i)...)
	}
	created := reader.FirstTime(reader.MilliTime(doc, "creationDate"), src.ModTime.UTC())
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: reader.Truncated(reader.ValidText(doc.Str("customTitle")), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chatID, entries, out)
}

// replayChatLog rebuilds the chat model from a mutation log: the state of its first line, then
// each set (kind 1) and append (kind 2) at its key path.
func replayChatLog(path string, out reader.Output) (reader.JSONObject, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var state any
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 1<<20), reader.MaxLineBytes)
	for n := 1; sc.Scan(); n++ {
		var op struct {
			Kind int   `json:"kind"`
			K    []any `json:"k"`
			V    any   `json:"v"`
		}
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			out.Warnf(n, "not a log entry: %s", reader.ShortJSONErr(err))
			continue
		}
		if op.Kind == 0 {
			state = op.V
			continue
		}
		if !applyChatOp(&state, op.K, op.V, op.Kind == 2) {
			out.Warnf(n, "log entry names a path the session does not have; skipped")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}
	return reader.DecodeObject(b)
}

// applyChatOp sets (or appends to) the value at path k inside *root.
func applyChatOp(root *any, k []any, v any, appendTo bool) bool {
	if len(k) == 0 {
		if appendTo {
			arr, _ := (*root).([]any)
			items, _ := v.([]any)
			*root = append(arr, items...)
		} else {
			*root = v
		}
		return true
	}
	switch node := (*root).(type) {
	case map[string]any:
		key, ok := k[0].(string)
		if !ok {
			return false
		}
		child := node[key]
		if !applyChatOp(&child, k[1:], v, appendTo) {
			return false
		}
		node[key] = child
		return true
	case []any:
		idx, ok := k[0].(float64)
		if !ok || int(idx) < 0 || int(idx) >= len(node) {
			return false
		}
		return applyChatOp(&node[int(idx)], k[1:], v, appendTo)
	}
	return false
}
