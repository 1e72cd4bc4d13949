// Package antigravity reads the transcripts of Google's Antigravity CLI for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package antigravity

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Antigravity imports the step transcripts Antigravity CLI keeps per conversation,
// ~/.gemini/antigravity-cli/brain/<conversation uuid>/logs/transcript*.jsonl (the brain folder
// also holds the conversation's artifacts: plans, walkthroughs, .system_generated step outputs).
// One line per step {type, source: USER_EXPLICIT | MODEL | SYSTEM, status, created_at,
// step_index, content, thinking, tool_calls: [{name, args}]}: USER_INPUT is a prompt,
// PLANNER_RESPONSE a reply (thinking as its reasoning) whose tool calls the following steps of
// other types (VIEW_FILE, RUN_COMMAND, ...) carry out in order, their content the result and
// their status the outcome. The editor's own conversations (~/.gemini/antigravity/conversations/
// *.pb, protobuf) are not read. Entry ids are s<step_index>.
type Antigravity struct{}

func (Antigravity) Name() string { return "antigravity" }

func (Antigravity) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".gemini", "antigravity-cli", "brain", "*", "logs", "transcript*.jsonl")}
}

// Detect claims JSON Lines whose records are Antigravity steps: an upper-case step type with
// step_index and a source.
func (Antigravity) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".jsonl") {
		return false
	}
	f, ok := reader.FirstRecord(head)
	typ := reader.FieldString(f, "type")
	return ok && reader.HasFields(f, "step_index", "source") && typ != "" && typ == strings.ToUpper(typ)
}

func (f Antigravity) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	conv := filepath.Base(filepath.Dir(filepath.Dir(src.Path)))
	chat := &annals.Chat{ID: reader.ChatID(f.Name(), conv), CreatedAt: src.ModTime.UTC(), Attributes: annals.Attributes{"source": f.Name()}}
	var entries, pending []*annals.Entry
	last := chat.CreatedAt
	err := src.EachObject(ctx, "antigravity", out, func(n int, o reader.JSONObject) error {
		last = reader.FirstTime(reader.ParseTime(o.Str("created_at")), last)
		if len(entries) == 0 {
			chat.CreatedAt = last
		}
		id := fmt.Sprintf("s%d", int(o.Num("step_index")))
		if !o.IsNum("step_index") {
			id = fmt.Sprintf("L%d", n)
		}
		text := reader.ValidText(o.Str("content"))
		switch typ := o.Str("type"); {
		case typ == "USER_INPUT":
			entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindUser, Time: last, Text: text})
		case typ == "PLANNER_RESPONSE":
			if text != "" || o.Str("thinking") != "" {
				entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: last, Text: text, Reasoning: reader.ValidText(o.Str("thinking"))})
			}
			for j, raw := range o.Arr("tool_calls") {
				tc, err := reader.DecodeObject(raw)
				if err != nil {
					continue
				}
				e := &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindTool, Time: last, Tool: &annals.ToolCall{Name: reader.ToolName(tc.Str("name")), CallID: reader.SafeID(tc.Str("id"), annals.MaxIDBytes), Arguments: reader.CallArgs(tc.Raw("args"))}}
				entries = append(entries, e)
				pending = append(pending, e)
			}
		case len(pending) > 0 && o.Str("source") != "USER_EXPLICIT":
			// The step carrying out the reply's next call.
			call := pending[0]
			pending = pending[1:]
			call.Tool.Result = reader.Truncated(text, annals.MaxEntryBytes/4)
			call.Tool.Outcome = outcome(o.Str("status"))
			call.SourceIDs = append(call.SourceIDs, id)
			call.Metadata = reader.SafeMeta(map[string]any{"step_type": typ})
		default:
			entries = append(entries, &annals.Entry{ID: id, Kind: annals.KindEvent, Time: last, Channel: "antigravity/" + reader.SanitizeChannel(strings.ToLower(reader.FirstNonEmpty(typ, "step"))), Text: text,
				Metadata: reader.SafeMeta(map[string]any{"step": reader.Extras(o, "content", "created_at", "type")})})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("antigravity: reading %s: %w", src.Path, err)
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	return reader.EmitEntries(chat.ID, entries, out)
}

func outcome(status string) annals.Outcome {
	switch strings.ToUpper(status) {
	case "ERROR", "FAILED", "FAILURE":
		return annals.OutcomeFailed
	case "CANCELED", "CANCELLED", "INTERRUPTED":
		return annals.OutcomeCancelled
	case "REJECTED", "DENIED":
		return annals.OutcomeBlocked
	}
	return annals.OutcomeSucceeded
}
