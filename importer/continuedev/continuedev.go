// Package continuedev reads the histories of Continue for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package continuedev

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ContinueDev imports the chat sessions of Continue (the VS Code and JetBrains extension):
// ~/.continue/sessions/<sessionId>.json, one PersistedSessionInfo each (continuedev/continue,
// core/index.d.ts): {sessionId, title, workspaceDirectory, history}, history a list of
// ChatHistoryItem {message, contextItems, toolCallState, reasoning}. A message is a ChatMessage:
// role user, assistant, thinking, system or tool; content a string or parts (text, imageUrl);
// an assistant's toolCalls [{id, function: {name, arguments}}]; a tool message's toolCallId.
// sessions.json beside them lists the sessions with their dateCreated. Continue rewrites a
// session file as the chat goes on (an edited prompt drops what followed it), so it is read
// whole and entry ids hold a hash of the item, as for Kimi.
type ContinueDev struct{}

func (ContinueDev) Name() string { return "continue" }

func (ContinueDev) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".continue", "sessions", "*.json")}
}

func (ContinueDev) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json") || filepath.Base(path) == "sessions.json" {
		return false
	}
	f, ok := reader.LineFields(head)
	return ok && reader.HasFields(f, "sessionId", "history") && (reader.HasFields(f, "workspaceDirectory") || reader.InFolder(path, ".continue/sessions"))
}

// Companion: the sessions index beside the session files.
func (ContinueDev) Companion(path string) bool {
	return filepath.Base(path) == "sessions.json" && reader.InFolder(path, ".continue")
}

type cnItem struct {
	Message struct {
		Role       string              `json:"role"`
		Content    json.RawMessage     `json:"content"`
		ToolCalls  []reader.OpenAICall `json:"toolCalls"`
		ToolCallID string              `json:"toolCallId"`
	} `json:"message"`
	ContextItems []struct {
		Name string `json:"name"`
	} `json:"contextItems"`
	ToolCallState *struct {
		ToolCallID string `json:"toolCallId"`
		Status     string `json:"status"`
		Output     []struct {
			Content string `json:"content"`
		} `json:"output"`
	} `json:"toolCallState"`
	Reasoning *struct {
		Text string `json:"text"`
	} `json:"reasoning"`
}

func (f ContinueDev) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll("continue", 1<<30)
	if err != nil {
		return err
	}
	var s struct {
		SessionID string            `json:"sessionId"`
		Title     string            `json:"title"`
		Workspace string            `json:"workspaceDirectory"`
		History   []json.RawMessage `json:"history"`
	}
	if err := json.Unmarshal(data, &s); err != nil || s.SessionID == "" {
		return fmt.Errorf("continue: %s is not a Continue session (%v)", src.Path, err)
	}
	chatID := reader.ChatID(f.Name(), s.SessionID)
	attrs := annals.Attributes{"source": f.Name()}
	if cwd := continueDir(s.Workspace); cwd != "" {
		attrs["cwd"] = cwd
	}
	created := continueCreated(filepath.Dir(src.Path), s.SessionID, src)
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created}
	if t := strings.TrimSpace(s.Title); t != "" && t != "New Session" {
		chat.Title = reader.Truncated(reader.ValidText(t), annals.MaxTitleBytes)
	}
	if err := out.Emit(annals.CaptureOp{Chat: chat}); err != nil {
		return err
	}
	entries := continueEntries(s.History, created, out)
	return reader.EmitEntries(chatID, entries, out)
}

// continueDir turns a workspace directory (a file:// URI in newer versions) into a path.
func continueDir(ws string) string {
	if u, err := url.Parse(ws); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return ws
}

// continueCreated reads the session's dateCreated from sessions.json, else the file's time.
func continueCreated(dir, id string, src *reader.Source) time.Time {
	b, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err == nil {
		var list []struct {
			SessionID   string `json:"sessionId"`
			DateCreated any    `json:"dateCreated"`
		}
		if json.Unmarshal(b, &list) == nil {
			for _, s := range list {
				if s.SessionID == id {
					// Milliseconds, written as a string of digits.
					if str, ok := s.DateCreated.(string); ok {
						if ms, err := strconv.ParseFloat(str, 64); err == nil {
							s.DateCreated = ms
						}
					}
					if t := reader.ParseTime(s.DateCreated); !t.IsZero() {
						return t
					}
				}
			}
		}
	}
	return src.ModTime.UTC()
}

// continueEntries maps the history: each item one entry (an assistant's tool calls one entry
// each after it), ids from the item's position and a hash of it; a call's toolCallState (its
// status and output) or the tool message after it is its result.
func continueEntries(history []json.RawMessage, t time.Time, out reader.Output) []*annals.Entry {
	var all []*annals.Entry
	calls := map[string]*annals.Entry{}
	for i, raw := range history {
		var it cnItem
		if err := json.Unmarshal(raw, &it); err != nil {
			out.Warnf(0, "history[%d]: %s", i, reader.ShortJSONErr(err))
			continue
		}
		id := fmt.Sprintf("h%d-%s", i+1, reader.ShortHash(string(raw))[:8])
		text, media := continueText(it.Message.Content)
		m := it.Message
		e := &annals.Entry{ID: id, Time: t, Text: reader.ValidText(text)}
		meta := map[string]any{"attachments": media}
		for _, c := range it.ContextItems {
			meta["context_items"] = append(asStrings(meta["context_items"]), c.Name)
		}
		switch m.Role {
		case "user":
			e.Kind = annals.KindUser
		case "assistant", "thinking":
			e.Kind = annals.KindAssistant
			if m.Role == "thinking" {
				e.Text, e.Reasoning = "", reader.ValidText(text)
			} else if it.Reasoning != nil {
				e.Reasoning = reader.ValidText(it.Reasoning.Text)
			}
		case "system":
			e.Kind = annals.KindSystem
		case "tool":
			if call := calls[m.ToolCallID]; call != nil {
				call.Tool.Result = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/4)
				if call.Tool.Outcome == "" {
					call.Tool.Outcome = annals.OutcomeSucceeded
				}
				continue
			}
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: "unknown", CallID: reader.SafeID(m.ToolCallID, annals.MaxIDBytes), Result: reader.ValidText(text), Outcome: annals.OutcomeSucceeded}
			meta["orphan_result"] = true
		default:
			e.Kind, e.Channel = annals.KindEvent, "continue/"+reader.SanitizeChannel(reader.FirstNonEmpty(m.Role, "message"))
		}
		e.Metadata = reader.Metadata(meta)
		if e.Text != "" || e.Reasoning != "" || e.Tool != nil || len(m.ToolCalls) == 0 {
			all = append(all, e)
		}
		for j, c := range m.ToolCalls {
			te := &annals.Entry{ID: reader.EntryID(id, j), Kind: annals.KindTool, Time: t, Tool: &annals.ToolCall{
				Name: reader.ToolName(c.Function.Name), CallID: reader.SafeID(c.ID, annals.MaxIDBytes), Arguments: reader.RawJSON(c.Function.Arguments)}}
			if st := it.ToolCallState; st != nil && (st.ToolCallID == c.ID || len(m.ToolCalls) == 1) {
				continueState(te, st.Status, st.Output)
			}
			calls[c.ID] = te
			all = append(all, te)
		}
	}
	return all
}

// continueState applies a call's state: its outcome and the output Continue kept.
func continueState(e *annals.Entry, status string, output []struct {
	Content string `json:"content"`
}) {
	var texts []string
	for _, o := range output {
		texts = append(texts, o.Content)
	}
	e.Tool.Result = reader.Truncated(reader.ValidText(strings.Join(texts, "\n")), annals.MaxEntryBytes/4)
	switch status {
	case "done":
		e.Tool.Outcome = annals.OutcomeSucceeded
	case "errored":
		e.Tool.Outcome = annals.OutcomeFailed
	case "canceled":
		e.Tool.Outcome = annals.OutcomeCancelled
	}
}

// continueText reads a message's content: a string, or parts (text joined, images counted).
func continueText(raw json.RawMessage) (string, int) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, 0
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	media := 0
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		} else {
			media++
		}
	}
	return strings.Join(texts, "\n"), media
}

func asStrings(v any) []string {
	s, _ := v.([]string)
	return s
}
