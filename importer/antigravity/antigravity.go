// Package antigravity reads the transcripts of Google's Antigravity CLI for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package antigravity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

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
// *.pb, protobuf) are not read. The transcript is append-only and read incrementally (a
// LineParser). Entry ids are s<step_index>.
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

// agState is what a session needs to resume after a settled line.
type agState struct {
	Emitted bool      `json:"emitted,omitempty"`
	Last    time.Time `json:"last"`
}

// NewSession reads a transcript line by line (Antigravity appends its steps): only the steps
// appended since the last import are read. A reply's calls wait for the steps that carry them
// out; nothing is settled while one waits.
func (f Antigravity) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	conv := filepath.Base(filepath.Dir(filepath.Dir(src.Path)))
	s := &agSession{chatID: reader.ChatID(f.Name(), conv), format: f.Name()}
	s.st.Last = src.ModTime.UTC()
	if len(state) > 0 {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, fmt.Errorf("antigravity: bad import state: %w", err)
		}
	}
	return s, nil
}

type agSession struct {
	chatID, format string
	st             agState
	created        time.Time
	entries        []*annals.Entry // read, not yet emitted
	calls          []*annals.Entry // calls waiting for their steps, in order
}

func (s *agSession) Settled() bool { return s.st.Emitted && len(s.entries) == 0 && len(s.calls) == 0 }

func (s *agSession) State() (json.RawMessage, error) {
	b, err := json.Marshal(s.st)
	if err != nil {
		return nil, fmt.Errorf("antigravity: saving state: %w", err)
	}
	return b, nil
}

func (s *agSession) Finish(_ context.Context, out reader.Output) error { return s.flush(out) }

func (s *agSession) Line(_ context.Context, n int, line []byte, out reader.Output) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	o, err := reader.DecodeObject(line)
	if err != nil {
		out.Warnf(n, "not a JSON object: %v", err)
		return nil
	}
	s.step(n, o)
	if len(s.calls) > 0 {
		return nil
	}
	return s.flush(out)
}

// flush emits the chat (when not yet) and the entries read.
func (s *agSession) flush(out reader.Output) error {
	if len(s.entries) == 0 {
		return nil
	}
	if !s.st.Emitted {
		s.st.Emitted = true
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(&annals.Chat{ID: s.chatID, CreatedAt: s.created, Attributes: annals.Attributes{"source": s.format}})}); err != nil {
			return err
		}
	}
	ents := s.entries
	s.entries = nil
	return reader.EmitEntries(s.chatID, ents, out)
}

// step maps one step: a prompt, a reply and its calls, the step carrying out the next waiting
// call (its content the result, its status the outcome), or an event.
func (s *agSession) step(n int, o reader.JSONObject) {
	s.st.Last = reader.FirstTime(reader.ParseTime(o.Str("created_at")), s.st.Last)
	if !s.st.Emitted && len(s.entries) == 0 {
		s.created = s.st.Last
	}
	last := s.st.Last
	id := fmt.Sprintf("s%d", int(o.Num("step_index")))
	if !o.IsNum("step_index") {
		id = fmt.Sprintf("L%d", n)
	}
	text := reader.ValidText(o.Str("content"))
	switch typ := o.Str("type"); {
	case typ == "USER_INPUT":
		s.entries = append(s.entries, &annals.Entry{ID: id, Kind: annals.KindUser, Time: last, Text: text})
	case typ == "PLANNER_RESPONSE":
		if text != "" || o.Str("thinking") != "" {
			s.entries = append(s.entries, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: last, Text: text, Reasoning: reader.ValidText(o.Str("thinking"))})
		}
		for j, raw := range o.Arr("tool_calls") {
			tc, err := reader.DecodeObject(raw)
			if err != nil {
				continue
			}
			e := &annals.Entry{ID: reader.EntryID(id, j+1), Kind: annals.KindTool, Time: last, Tool: &annals.ToolCall{Name: reader.ToolName(tc.Str("name")), CallID: reader.SafeID(tc.Str("id"), annals.MaxIDBytes), Arguments: reader.CallArgs(tc.Raw("args"))}}
			s.entries = append(s.entries, e)
			s.calls = append(s.calls, e)
		}
	case len(s.calls) > 0 && o.Str("source") != "USER_EXPLICIT":
		// The step carrying out the reply's next call.
		call := s.calls[0]
		s.calls = s.calls[1:]
		call.Tool.Result = reader.Truncated(text, annals.MaxEntryBytes/4)
		call.Tool.Outcome = outcome(o.Str("status"))
		call.SourceIDs = append(call.SourceIDs, id)
		call.Metadata = reader.SafeMeta(map[string]any{"step_type": typ})
	default:
		s.entries = append(s.entries, &annals.Entry{ID: id, Kind: annals.KindEvent, Time: last, Channel: "antigravity/" + reader.SanitizeChannel(strings.ToLower(reader.FirstNonEmpty(typ, "step"))), Text: text,
			Metadata: reader.SafeMeta(map[string]any{"step": reader.Extras(o, "content", "created_at", "type")})})
	}
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
