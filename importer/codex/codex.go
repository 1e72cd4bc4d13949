// Package codex reads the histories of Codex CLI for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package codex

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

// Codex reads OpenAI Codex CLI rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (and the
// archived_sessions folder). Each line is {timestamp, type, payload}. One file is one chat,
// "codex:<session id>"; a sub-agent's rollout names its parent thread, which becomes the
// attribute parent.
//
// Codex writes most things twice: the model's items (response_item) and UI events (event_msg)
// carrying the same user and agent text, reasoning summary and tool outcome. The items are the
// record; an event whose text was just seen as an item (or the other way round) is dropped, and
// the tool events only refine the outcome of the call they name.
type Codex struct{}

func (Codex) Name() string { return "codex" }

// ResumeCommand is `codex resume <session id>`, exec sessions (chat ids ending in /exec) too.
func (Codex) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("codex resume %s", strings.TrimSuffix(native, "/exec"))
}

func (Codex) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".codex", "sessions", "**", "rollout-*.jsonl"),
		filepath.Join(home, ".codex", "archived_sessions", "**", "rollout-*.jsonl"),
	}
}

func (Codex) Detect(path string, head []byte) bool {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	if strings.Contains(filepath.ToSlash(path), "/.codex/") && strings.HasPrefix(filepath.Base(path), "rollout-") {
		return true
	}
	first := reader.FirstLines(head, 4)
	if bytes.Contains(first, []byte(`"payload"`)) &&
		(bytes.Contains(first, []byte(`"session_meta"`)) || bytes.Contains(first, []byte(`"response_item"`)) || bytes.Contains(first, []byte(`"turn_context"`))) {
		return true
	}
	// The event stream of `codex exec --json`, saved by a script or a CI job.
	if bytes.Contains(first, []byte(`"type":"thread.started"`)) && bytes.Contains(first, []byte(`"thread_id"`)) {
		return true
	}
	// The envelope-less rollouts of early versions, recognised by their name.
	return strings.HasPrefix(filepath.Base(path), "rollout-") && bytes.HasPrefix(bytes.TrimSpace(first), []byte("{")) &&
		bytes.Contains(first, []byte(`"timestamp"`)) && bytes.Contains(first, []byte(`"id"`))
}

// cxState is what a rollout needs to resume after a settled line.
type cxState struct {
	Chat    string            `json:"chat,omitempty"`
	Created bool              `json:"created,omitempty"`
	Attrs   annals.Attributes `json:"attrs,omitempty"`
	Model   string            `json:"model,omitempty"`
	Time    time.Time         `json:"time,omitempty"`
	// Unpaired holds the recent texts written once so far, each marked with the side that wrote
	// it ("i" for an item, "e" for an event), oldest first: the other side's copy of the same
	// text pairs with the oldest of them and is dropped. A text that repeats (a second
	// "continue", four "Ok" replies) is a new message, never a duplicate.
	Unpaired []string `json:"unpaired,omitempty"`
	// Turn is the current turn: its run id, start, tokens so far and turn count.
	Turn      string    `json:"turn,omitempty"`
	TurnStart time.Time `json:"turn_start,omitempty"`
	TurnIn    int64     `json:"turn_in,omitempty"`
	TurnOut   int64     `json:"turn_out,omitempty"`
	// TurnCached is the part of TurnIn read from the prompt cache; TurnContext the prompt of
	// the turn's last model call (the context's size).
	TurnCached  int64 `json:"turn_cached,omitempty"`
	TurnContext int64 `json:"turn_context,omitempty"`
	Turns       int   `json:"turns,omitempty"`
	// Replay is the gate over the parent's history a forked or sub-agent rollout starts
	// with (codex_exec.go); nil when there is none or it has ended.
	Replay *cxReplay `json:"replay,omitempty"`
}

const cxRecent = 64

// cxQuiet is how long a rollout must be unchanged before its open turn counts as over.
const cxQuiet = 10 * time.Minute

type cxSession struct {
	src *reader.Source
	st  cxState
	q   reader.OpQueue
	// title is a name the thread was given (thread_name_updated).
	title string
	// held are lines the replay gate keeps until it knows whether they are copied history.
	held []cxHeld
}

func (Codex) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &cxSession{src: src}
	if state != nil {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, err
		}
	}
	return s, nil
}

type cxLine struct {
	Timestamp any             `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type cxPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Message   string          `json:"message"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	CallID2   string          `json:"callId"`
	Output    json.RawMessage `json:"output"`
	Status    json.RawMessage `json:"status"`
	Summary   json.RawMessage `json:"summary"`
	Encrypted string          `json:"encrypted_content"`
	// session_meta
	Cwd        string          `json:"cwd"`
	Git        *cxGit          `json:"git"`
	Source     json.RawMessage `json:"source"`
	Originator string          `json:"originator"`
	CLIVersion string          `json:"cli_version"`
	ForkedFrom string          `json:"forked_from_id"`
	Instr      string          `json:"instructions"`
	// turn_context / task events
	Model  string `json:"model"`
	TurnID string `json:"turn_id"`
	Reason string `json:"reason"`
	// token_count
	Info *struct {
		Last *cxUsage `json:"last_token_usage"`
	} `json:"info"`
	// tool events
	ExitCode *int            `json:"exit_code"`
	Success  *bool           `json:"success"`
	Result   json.RawMessage `json:"result"`
	// compacted
	Replacement json.RawMessage `json:"replacement_history"`
	ThreadName  string          `json:"thread_name"`
	Tools       json.RawMessage `json:"tools"`
}

type cxGit struct {
	Branch     string `json:"branch"`
	Commit     string `json:"commit_hash"`
	Repository string `json:"repository_url"`
}

// cxUsage is one model call's tokens: input counts the whole prompt, cached tokens included.
type cxUsage struct {
	Input  int64 `json:"input_tokens"`
	Cached int64 `json:"cached_input_tokens"`
	Output int64 `json:"output_tokens"`
}

func (s *cxSession) Line(ctx context.Context, n int, raw []byte, out reader.Output) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var l cxLine
	if err := json.Unmarshal(raw, &l); err != nil {
		out.Warnf(n, "not a JSON object: %s", reader.ShortJSONErr(err))
		return nil
	}
	ts := reader.ParseTime(l.Timestamp)
	if ts.IsZero() {
		ts = s.st.Time
	} else {
		s.st.Time = ts
	}
	id := "h-" + reader.ShortHashBytes(raw)
	var p cxPayload
	if len(l.Payload) > 0 && l.Payload[0] == '{' {
		if err := json.Unmarshal(l.Payload, &p); err != nil {
			// Valid JSON whose fields have shapes this parser does not know: kept whole.
			var typ struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(l.Payload, &typ)
			s.unknown(l.Type, typ.Type, ts, id, l.Payload)
			return s.flush(out)
		}
	}

	if done, err := s.before(ctx, n, raw, ts, &l, &p, out); done || err != nil {
		return err
	}

	if len(l.Payload) == 0 {
		if done, err := s.envelopeless(n, raw, ts, id, &l, &p, out); done {
			return err
		}
	}

	switch l.Type {
	case "session_meta":
		s.meta(&p, ts, id, l.Payload)
	case "turn_context":
		s.turnContext(&p, ts)
	case "response_item":
		s.item(n, &p, ts, id, raw, out)
	case "event_msg":
		s.event(&p, ts, id, l.Payload)
	case "compacted":
		s.compacted(&p, ts, id)
	default:
		s.unknown(l.Type, "", ts, id, l.Payload)
	}
	return s.flush(out)
}

// envelopeless reads the lines of rollouts before mid-2025, which have no envelope: a first
// line {id, timestamp, instructions} and then the items themselves, one per line. It reports
// whether it handled the line.
func (s *cxSession) envelopeless(n int, raw []byte, ts time.Time, id string, l *cxLine, p *cxPayload, out reader.Output) (bool, error) {
	var legacy struct {
		ID         string `json:"id"`
		RecordType string `json:"record_type"`
	}
	_ = json.Unmarshal(raw, &legacy)
	switch {
	case l.Type == "" && legacy.RecordType != "":
		return true, nil // {"record_type":"state"} markers
	case l.Type == "" && legacy.ID != "" && s.st.Chat == "":
		_ = json.Unmarshal(raw, p)
		s.meta(p, ts, id, raw)
		return true, s.flush(out)
	case l.Type != "" && l.Type != "session_meta" && l.Type != "turn_context" && l.Type != "compacted" && l.Type != "event_msg" && l.Type != "response_item":
		_ = json.Unmarshal(raw, p)
		s.item(n, p, ts, id, raw, out)
		return true, s.flush(out)
	}
	return false, nil
}

// turnContext starts a turn, taking the model and working directory it names.
func (s *cxSession) turnContext(p *cxPayload, ts time.Time) {
	if p.Model != "" && !reader.Placeholder(p.Model) {
		s.st.Model = p.Model
	}
	if p.Cwd != "" && s.st.Attrs != nil && s.st.Attrs["cwd"] == "" && !reader.Placeholder(p.Cwd) {
		s.st.Attrs["cwd"] = p.Cwd
	}
	s.create()
	s.startTurn(p.TurnID, ts)
}

// compacted records a compaction as a system entry.
func (s *cxSession) compacted(p *cxPayload, ts time.Time, id string) {
	m := map[string]any{"compaction": true}
	var hist []json.RawMessage
	if json.Unmarshal(p.Replacement, &hist) == nil && len(hist) > 0 {
		// The replacement history repeats messages already in the transcript.
		m["replaced_items"] = len(hist)
	}
	text := p.Message
	if text == "" {
		text = "Conversation compacted"
	}
	s.push(&annals.Entry{ID: id, Kind: annals.KindSystem, Time: ts, Text: reader.ValidText(text), Metadata: reader.Metadata(m)})
}

func (s *cxSession) meta(p *cxPayload, ts time.Time, id string, payload json.RawMessage) {
	if s.st.Chat != "" {
		// A second session_meta (a resumed or forked rollout repeats it): kept as an event.
		s.unknown("session_meta", "", ts, id, payload)
		return
	}
	sid := p.ID
	if sid == "" || reader.Placeholder(sid) {
		sid = strings.TrimSuffix(filepath.Base(s.src.Path), filepath.Ext(s.src.Path))
	}
	s.st.Chat = reader.ChatID("codex", sid)
	a := annals.Attributes{"source": "codex"}
	set := func(k, v string) {
		if v != "" && !reader.Placeholder(v) {
			a[k] = v
		}
	}
	set("cwd", p.Cwd)
	if p.Git != nil {
		set("git_branch", p.Git.Branch)
		set("repository", p.Git.Repository)
		set("git_commit", p.Git.Commit)
	}
	set("forked_from", p.ForkedFrom)
	var src struct {
		Subagent *struct {
			ThreadSpawn *struct {
				Parent   string `json:"parent_thread_id"`
				Nickname string `json:"agent_nickname"`
			} `json:"thread_spawn"`
		} `json:"subagent"`
	}
	if json.Unmarshal(p.Source, &src) == nil && src.Subagent != nil {
		a["subagent"] = "true"
		if ts := src.Subagent.ThreadSpawn; ts != nil && ts.Parent != "" && !reader.Placeholder(ts.Parent) {
			a["parent"] = reader.ChatID("codex", ts.Parent)
		}
	}
	s.st.Attrs = a
	if a["forked_from"] != "" || a["parent"] != "" {
		s.armReplay(p.ID, ts)
	}
	if !ts.IsZero() {
		s.st.TurnStart = ts // the chat's start, until the first turn
	}
}

// create emits the chat once its model is known (from the first turn_context), ahead of what
// waited for it.
func (s *cxSession) create() {
	if s.st.Created || s.st.Chat == "" {
		return
	}
	s.st.Created = true
	a := annals.Attributes{}
	for k, v := range s.st.Attrs {
		a[k] = v
	}
	if a["source"] == "" {
		a["source"] = "codex"
	}
	if s.st.Model != "" {
		a["model"] = s.st.Model
	}
	created := s.st.TurnStart
	for _, it := range s.q.Items {
		if a := it.Op.Append; a != nil && !a.Entries[0].Time.IsZero() {
			created = a.Entries[0].Time
			break
		}
	}
	s.q.Items = append([]*reader.Queued{{Op: annals.CaptureOp{Chat: &annals.Chat{ID: s.st.Chat, Attributes: a, CreatedAt: created}}}}, s.q.Items...)
	s.st.TurnStart = time.Time{}
}

func (s *cxSession) startTurn(turnID string, ts time.Time) {
	s.endTurn(annals.StatusCompleted, ts)
	s.st.Turns++
	if turnID == "" || reader.Placeholder(turnID) {
		turnID = fmt.Sprintf("turn-%d", s.st.Turns)
	}
	s.st.Turn = reader.SafeID(s.st.Chat+"/"+turnID, annals.MaxIDBytes)
	s.st.TurnStart, s.st.TurnIn, s.st.TurnOut, s.st.TurnCached, s.st.TurnContext = ts, 0, 0, 0, 0
	s.recordTurn(annals.StatusRunning, nil)
}

func (s *cxSession) recordTurn(status annals.RunStatus, end *time.Time) {
	if s.st.Turn == "" || s.st.Chat == "" {
		return
	}
	run := &annals.Run{ID: s.st.Turn, ChatID: s.st.Chat, Status: status, StartedAt: s.st.TurnStart,
		EndedAt: end, InputTokens: s.st.TurnIn, OutputTokens: s.st.TurnOut,
		CacheReadTokens: min(s.st.TurnCached, s.st.TurnIn), ContextTokens: s.st.TurnContext}
	if s.st.Model != "" {
		run.Model = reader.SafeID(s.st.Model, annals.MaxIDBytes)
	}
	if end != nil && (end.IsZero() || run.StartedAt.After(*end)) {
		run.EndedAt = nil
	}
	s.q.Push(annals.CaptureOp{Run: run})
}

func (s *cxSession) endTurn(status annals.RunStatus, ts time.Time) {
	if s.st.Turn == "" {
		return
	}
	end := ts
	s.recordTurn(status, &end)
	s.st.Turn = ""
}

// Sides of the pairing: Codex writes a message once as a model item and once as a UI event.
const (
	cxItem  = "i"
	cxEvent = "e"
)

// copyOf reports whether the text key, written by side, is the other side's copy of a text
// written once so far (and pairs the two); otherwise it remembers the text as unpaired.
func (s *cxSession) copyOf(side, key string) bool {
	h := reader.ShortHash(key)
	other := cxItem
	if side == cxItem {
		other = cxEvent
	}
	for i, r := range s.st.Unpaired {
		if r == other+h {
			s.st.Unpaired = append(s.st.Unpaired[:i:i], s.st.Unpaired[i+1:]...)
			return true
		}
	}
	s.st.Unpaired = append(s.st.Unpaired, side+h)
	if len(s.st.Unpaired) > cxRecent {
		s.st.Unpaired = append([]string(nil), s.st.Unpaired[len(s.st.Unpaired)-cxRecent:]...)
	}
	return false
}

func (s *cxSession) push(e *annals.Entry) { s.q.PushEntry(s.st.Chat, e) }

// unknown keeps a line annals has no mapping for as an event holding its payload.
func (s *cxSession) unknown(typ, sub string, ts time.Time, id string, payload json.RawMessage) {
	switch typ {
	case "world_state":
		// The environment snapshot (AGENTS.md text, sandbox and tools) repeated per turn.
		return
	}
	channel := "codex/" + reader.ChannelPart(typ)
	if sub != "" {
		channel += "/" + reader.ChannelPart(sub)
	}
	m := map[string]any{}
	if len(payload) > 0 {
		m["payload"] = reader.SizedJSON(payload)
	}
	s.push(&annals.Entry{ID: id, Kind: annals.KindEvent, Channel: channel, Time: ts, RunID: s.st.Turn, Metadata: reader.Metadata(m)})
}

func (s *cxSession) flush(out reader.Output) error {
	if !s.st.Created {
		return nil
	}
	return s.q.Flush(out)
}

func (s *cxSession) Settled() bool { return s.st.Created && s.q.Empty() }

func (s *cxSession) State() (json.RawMessage, error) { return json.Marshal(s.st) }

func (s *cxSession) Finish(ctx context.Context, out reader.Output) error {
	if s.st.Replay != nil {
		if err := s.endReplay(ctx, out); err != nil {
			return err
		}
	}
	if s.st.Chat == "" {
		if s.q.Empty() {
			return nil
		}
		s.meta(&cxPayload{}, time.Time{}, "", nil)
		// Ops queued before the chat id was known carry an empty chat id.
		for _, it := range s.q.Items {
			if it.Op.Append != nil {
				it.Op.Append.ChatID = s.st.Chat
			}
		}
	}
	s.create()
	if s.st.Turn != "" && !s.src.ModTime.IsZero() && time.Since(s.src.ModTime) > cxQuiet {
		// Early rollouts never mark a turn's end: a file that has been quiet this long is not
		// in a turn any more. The run is an upsert, so a later line can still change it.
		s.recordTurn(annals.StatusCompleted, &s.st.Time)
	}
	if err := s.q.FlushAll(out); err != nil {
		return err
	}
	if s.title != "" {
		out.TitleForChat(s.st.Chat, s.title)
	}
	return nil
}
