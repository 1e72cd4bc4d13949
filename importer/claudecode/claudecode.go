// Package claudecode reads the histories of Claude Code for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ClaudeCode reads Claude Code session files: ~/.claude/projects/<encoded cwd>/<session>.jsonl,
// and the sub-agent files beside them (agent-<id>.jsonl, or <session>/subagents/agent-<id>.jsonl).
//
// One file is one chat ("claude-code:<sessionId>"; a sub-agent file is
// "claude-code:<sessionId>/agent-<agentId>" with parent=<the session's chat>). Inline side chains
// (isSidechain lines of the Task tool in older versions) become chats of their own,
// "<chat>/sidechain-<root uuid>", with parent=<chat>. Every line has a uuid, which gives entry ids.
type ClaudeCode struct{}

func (ClaudeCode) Name() string { return "claude-code" }

// ResumeCommand is `claude --resume <session id>`, run in the session's project folder.
func (ClaudeCode) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("claude --resume %s", native)
}

func (ClaudeCode) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".claude", "projects", "**", "*.jsonl")}
}

func (ClaudeCode) Detect(path string, head []byte) bool {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	// Under a subagents/ folder only agent-<id>.jsonl files are transcripts; a workflow run's
	// journal.jsonl (one line per agent started and finished) is not.
	if ccPathSession(path) != "" && !strings.HasPrefix(filepath.Base(path), "agent-") {
		return false
	}
	// iFlow CLI writes Claude Code's line format into its own folder (see Evidence).
	if strings.Contains(filepath.ToSlash(path), "/.iflow/") {
		return false
	}
	// A .jsonl file in Claude Code's own folder is a session, whatever its first lines (a long
	// file-history-snapshot line can fill the whole head).
	if strings.Contains(filepath.ToSlash(path), "/.claude/projects/") {
		return true
	}
	return Evidence(head)
}

// Evidence reads the first lines of a file for what only Claude Code writes: a summary's
// leafUuid, userType, a session line's isSidechain or permissionMode, a file-history snapshot,
// or a {role, content} message under a parentUuid. A Qwen Code record (a Gemini {role, parts}
// message, a tool_result record) has the same uuid, parentUuid and sessionId, and is never
// taken for one; nor is an iFlow CLI line (the same fields, userType included, but a sessionId
// "session-<uuid>", as iFlow names its files; Claude Code's is a bare uuid).
func Evidence(head []byte) bool {
	found := false
	for _, line := range reader.HeadLines(head, 8) {
		f, ok := reader.LineFields(line)
		if !ok {
			continue
		}
		typ := reader.FieldString(f, "type")
		if typ == "tool_result" || (reader.HasFields(f, "message") && reader.GenAIContent(f["message"], line)) {
			return false
		}
		if strings.HasPrefix(reader.FieldString(f, "sessionId"), "session-") {
			return false // iFlow CLI
		}
		switch {
		case reader.HasFields(f, "leafUuid"), reader.HasFields(f, "userType"):
			found = true
		case typ == "file-history-snapshot", typ == "queue-operation":
			found = true
		case reader.HasFields(f, "sessionId") && (reader.HasFields(f, "isSidechain") || reader.HasFields(f, "permissionMode")):
			found = true
		case reader.HasFields(f, "parentUuid", "message") && (f["message"] == nil || ccHasContent(f["message"])):
			found = true
		}
	}
	return found
}

// ccHasContent reports whether a message object holds Claude Code's content field.
func ccHasContent(raw json.RawMessage) bool {
	m, ok := reader.LineFields(raw)
	return ok && reader.HasFields(m, "content")
}

// ccState is what a Claude Code session needs to resume after a settled line.
type ccState struct {
	Chat      string `json:"chat,omitempty"`
	Created   bool   `json:"created,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// ResumedFrom is the session id of the file's first lines when the file is a resumed
	// session's (claudecode_resumed.go): SessionID is then the file's own, newer id.
	ResumedFrom string `json:"resumed_from,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	Branch      string `json:"branch,omitempty"`
	// Last is the uuid of each chat's last message, to see rewinds (a message whose parent is
	// not the one before it).
	Last map[string]string `json:"last,omitempty"`
	// Side maps recent side-chain uuids to their chat (bounded: side chains run for a while
	// and then end).
	Side [][2]string `json:"side,omitempty"`
	// Agents are the recent chats of inline side chains named by their agentId.
	Agents []string  `json:"agents,omitempty"`
	Time   time.Time `json:"time,omitempty"`
}

const ccSideMemory = 64

type ccSession struct {
	src     *reader.Source
	agent   bool // a sub-agent file: side-chain lines are its main flow
	st      ccState
	queues  map[string]*reader.OpQueue
	order   []string // chats in the order their queue was made
	title   string   // custom-title (preferred) or ai-title seen in this file
	titleAI string
	// pathSID is the session a sub-agent file belongs to by its path (claudecode_agents.go),
	// and agentMeta its agent-<id>.meta.json.
	pathSID   string
	agentMeta *ccAgentMeta
}

func (ClaudeCode) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &ccSession{src: src, queues: map[string]*reader.OpQueue{}}
	base := strings.TrimSuffix(filepath.Base(src.Path), filepath.Ext(src.Path))
	s.agent = strings.HasPrefix(base, "agent-")
	if s.agent {
		s.pathSID = ccPathSession(src.Path)
		s.agentMeta = ccReadAgentMeta(src.Path)
	}
	if state != nil {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, err
		}
	}
	if s.st.Last == nil {
		s.st.Last = map[string]string{}
	}
	return s, nil
}

// ccLine is one line of a session file. Fields that annals maps are named; the rest are kept
// from the raw object.
type ccLine struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	IsSidechain       bool            `json:"isSidechain"`
	SessionID         string          `json:"sessionId"`
	AgentID           string          `json:"agentId"`
	Cwd               string          `json:"cwd"`
	GitBranch         string          `json:"gitBranch"`
	Timestamp         any             `json:"timestamp"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIError        bool            `json:"isApiErrorMessage"`
	Message           *ccMessage      `json:"message"`
	ToolUseResult     json.RawMessage `json:"toolUseResult"`
	Content           json.RawMessage `json:"content"`
	Summary           string          `json:"summary"`
	LeafUUID          string          `json:"leafUuid"`
	CustomTitle       string          `json:"customTitle"`
	AITitle           string          `json:"aiTitle"`
	Attachment        json.RawMessage `json:"attachment"`
	CompactMetadata   json.RawMessage `json:"compactMetadata"`
	Error             json.RawMessage `json:"error"`
	ToolDenialKind    string          `json:"toolDenialKind"`
}

// ccEnvelope are the fields of a line that annals either maps or deliberately leaves out
// (per-line repeats of the session's own facts, and UI state); any other field is kept in the
// entry's metadata under "extra".
var ccEnvelope = []string{
	"type", "subtype", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "sessionId", "session_id",
	"agentId", "cwd", "gitBranch", "timestamp", "isMeta", "isCompactSummary", "isApiErrorMessage",
	"message", "toolUseResult", "content", "userType", "version", "requestId", "slug", "entrypoint",
	"permissionMode", "promptId", "imagePasteIds", "todos", "thinkingMetadata", "level",
	"isVisibleInTranscriptOnly", "sourceToolAssistantUUID", "sourceToolUseID", "toolDenialKind",
	"compactMetadata", "error", "attachment", "origin", "promptSource", "sessionKind", "effort",
	"parentToolUseID", "toolUseID",
}

type ccMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	Usage      *ccUsage        `json:"usage"`
	StopReason string          `json:"stop_reason"`
}

type ccUsage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (s *ccSession) Line(ctx context.Context, n int, raw []byte, out reader.Output) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var l ccLine
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
	if s.st.SessionID == "" && l.SessionID != "" && !reader.Placeholder(l.SessionID) {
		s.st.SessionID, s.st.ResumedFrom = ccSessionOf(s.src.Path, s.agent, l.SessionID)
	}
	if s.agent && s.st.AgentID == "" && l.AgentID != "" {
		s.st.AgentID = l.AgentID
	}
	if s.st.Cwd == "" && l.Cwd != "" && !reader.Placeholder(l.Cwd) {
		s.st.Cwd = l.Cwd
	}
	if s.st.Branch == "" && l.GitBranch != "" && !reader.Placeholder(l.GitBranch) {
		s.st.Branch = l.GitBranch
	}

	switch l.Type {
	case "summary":
		if l.LeafUUID != "" && l.Summary != "" {
			out.TitleBySourceID(l.LeafUUID, l.Summary)
		}
		return nil
	case "custom-title":
		if l.CustomTitle != "" {
			s.title = l.CustomTitle
		}
		return nil
	case "ai-title":
		if l.AITitle != "" {
			s.titleAI = l.AITitle
		}
		return nil
	case "progress", "file-history-snapshot", "queue-operation":
		// Streaming progress repeats what the message lines and sub-agent files hold; file
		// snapshots and the input queue are UI bookkeeping. Dropped by design (docs/IMPORT.md).
		return nil
	}

	chat := s.chatFor(&l, out)
	var err error
	switch l.Type {
	case "user":
		err = s.user(chat, n, &l, raw, ts, out)
	case "assistant":
		err = s.assistant(chat, n, &l, raw, ts, out)
	case "system":
		err = s.system(chat, n, &l, raw, ts)
	default:
		s.event(chat, n, &l, raw, ts)
	}
	if err != nil {
		return err
	}
	if l.UUID != "" && (l.Type == "user" || l.Type == "assistant" || l.Type == "system") {
		s.st.Last[chat] = l.UUID
	}
	return s.flush(out)
}

// mainChat is the chat of the file's own flow, once its id is known.
func (s *ccSession) mainChat() string {
	if s.st.Chat != "" {
		return s.st.Chat
	}
	if s.session() == "" {
		return ""
	}
	if s.agent {
		agent := s.st.AgentID
		if agent == "" {
			agent = strings.TrimPrefix(strings.TrimSuffix(filepath.Base(s.src.Path), filepath.Ext(s.src.Path)), "agent-")
		}
		s.st.Chat = reader.ChatID("claude-code", s.session()+"/agent-"+agent)
	} else {
		s.st.Chat = reader.ChatID("claude-code", s.st.SessionID)
	}
	return s.st.Chat
}

// session is the Claude Code session of the file: for a sub-agent file under
// <session>/subagents/ the folder's name, else the lines' sessionId.
func (s *ccSession) session() string {
	if s.pathSID != "" {
		return s.pathSID
	}
	return s.st.SessionID
}

// chatFor returns the chat a line belongs to, creating side-chain chats at their root. The
// main chat's id is "" until a line names the session; its ops wait in the queue of "".
func (s *ccSession) chatFor(l *ccLine, out reader.Output) string {
	main := s.mainChat()
	if !l.IsSidechain || s.agent {
		return main
	}
	if main != "" && l.AgentID != "" && !reader.Placeholder(l.AgentID) {
		chat := s.agentChat(main, l)
		s.rememberSide(l.UUID, chat)
		return chat
	}
	parent := ""
	if l.ParentUUID != nil {
		parent = *l.ParentUUID
	}
	if parent != "" {
		for i := len(s.st.Side) - 1; i >= 0; i-- {
			if s.st.Side[i][0] == parent {
				s.rememberSide(l.UUID, s.st.Side[i][1])
				return s.st.Side[i][1]
			}
		}
	}
	if main == "" || l.UUID == "" {
		return main
	}
	// A side chain's root: a chat of its own, linked to the main chat.
	side := reader.SafeID(main+"/sidechain-"+l.UUID, annals.MaxIDBytes)
	s.rememberSide(l.UUID, side)
	attrs := s.attrs("")
	attrs["parent"] = main
	attrs["sidechain"] = "true"
	s.linkSideChain(main, side, l, attrs)
	s.queue(side).Push(annals.CaptureOp{Chat: &annals.Chat{ID: side, Attributes: attrs, CreatedAt: reader.ParseTime(l.Timestamp)}})
	return side
}

func (s *ccSession) rememberSide(uuid, chat string) {
	if uuid == "" {
		return
	}
	s.st.Side = append(s.st.Side, [2]string{uuid, chat})
	if len(s.st.Side) > ccSideMemory {
		s.st.Side = append([][2]string(nil), s.st.Side[len(s.st.Side)-ccSideMemory:]...)
	}
}

func (s *ccSession) attrs(model string) annals.Attributes {
	a := annals.Attributes{"source": "claude-code"}
	if s.st.Cwd != "" {
		a["cwd"] = s.st.Cwd
	}
	if s.st.Branch != "" {
		a["git_branch"] = s.st.Branch
	}
	if model != "" && !reader.Placeholder(model) && model != "<synthetic>" {
		a["model"] = model
	}
	return a
}

func (s *ccSession) queue(chat string) *reader.OpQueue {
	q, ok := s.queues[chat]
	if !ok {
		q = &reader.OpQueue{}
		s.queues[chat] = q
		s.order = append(s.order, chat)
	}
	return q
}

// create emits the main chat's creation ahead of what waited for it. The chat is created at
// its first reply, so that the model is known; Finish creates it earlier if it must.
func (s *ccSession) create(model string) {
	main := s.mainChat()
	if s.st.Created || main == "" {
		return
	}
	s.st.Created = true
	attrs := s.attrs(model)
	if s.st.ResumedFrom != "" && !s.agent {
		attrs[ResumedFromAttr] = s.st.ResumedFrom
	}
	if s.agent {
		attrs["parent"] = reader.ChatID("claude-code", s.session())
		if s.st.AgentID != "" {
			attrs["subagent"] = s.st.AgentID
		}
		ccSubagentAttrs(attrs, s.agentMeta)
	}
	var created time.Time
	// What waited for the chat id (queued under "") moves to the chat, behind its creation.
	q := s.queue(main)
	waiting := s.queues[""]
	ops := []*reader.Queued{{Op: annals.CaptureOp{Chat: &annals.Chat{ID: main, Attributes: attrs}}}}
	if waiting != nil {
		for _, it := range waiting.Items {
			if it.Op.Append != nil {
				it.Op.Append.ChatID = main
			}
			if it.Op.Run != nil {
				it.Op.Run.ChatID = main
			}
		}
		ops = append(ops, waiting.Items...)
		for id, it := range waiting.Waiting {
			if q.Waiting == nil {
				q.Waiting = map[string]*reader.Queued{}
			}
			q.Waiting[id] = it
		}
		delete(s.queues, "")
	}
	ops = append(ops, q.Items...)
	for _, it := range ops {
		if a := it.Op.Append; a != nil && len(a.Entries) > 0 && !a.Entries[0].Time.IsZero() {
			created = a.Entries[0].Time
			break
		}
	}
	ops[0].Op.Chat.CreatedAt = created
	q.Items = ops
}

func (s *ccSession) flush(out reader.Output) error {
	for _, chat := range s.order {
		if chat == "" || (chat == s.st.Chat && !s.st.Created) {
			continue // waits for the chat's creation
		}
		if q := s.queues[chat]; q != nil {
			if err := q.Flush(out); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *ccSession) Settled() bool {
	for _, q := range s.queues {
		if !q.Empty() {
			return false
		}
	}
	return true
}

func (s *ccSession) State() (json.RawMessage, error) { return json.Marshal(s.st) }

func (s *ccSession) Finish(ctx context.Context, out reader.Output) error {
	if s.mainChat() == "" {
		// No line named the session: the file name is the best identity left.
		s.st.SessionID = strings.TrimSuffix(filepath.Base(s.src.Path), filepath.Ext(s.src.Path))
		s.st.Chat = ""
		s.mainChat()
	}
	hasOps := false
	for _, q := range s.queues {
		if !q.Empty() {
			hasOps = true
		}
	}
	if hasOps {
		s.create("")
	}
	for _, chat := range s.order {
		if q := s.queues[chat]; q != nil {
			if err := q.FlushAll(out); err != nil {
				return err
			}
		}
	}
	if s.st.Created {
		if t := pickFirst(s.title, s.titleAI); t != "" {
			out.TitleForChat(s.st.Chat, t)
		}
	}
	return nil
}

func pickFirst(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// entryID is the id of part k of a line: its uuid, then uuid#k; a line without a uuid is
// named by a hash of its bytes, which stays the same when the file is read again.
func ccEntryID(l *ccLine, raw []byte, part int) string {
	base := l.UUID
	if base == "" || reader.Placeholder(base) {
		base = "h-" + reader.ShortHashBytes(raw)
	}
	if part == 0 {
		return reader.EntryID(base, -1)
	}
	return reader.EntryID(base, part)
}

// meta builds an entry's metadata: the given values plus the line's unknown fields.
func (s *ccSession) meta(chat string, l *ccLine, raw []byte, m map[string]any) json.RawMessage {
	if m == nil {
		m = map[string]any{}
	}
	if l.ParentUUID != nil && *l.ParentUUID != "" && s.st.Last[chat] != "" && *l.ParentUUID != s.st.Last[chat] {
		// A rewind or a resumed branch: the message continues from an earlier one.
		m["branch_from"] = *l.ParentUUID
	}
	if extra := reader.UnknownFields(raw, ccEnvelope...); len(extra) > 0 {
		m["extra"] = reader.SizedJSON(extra)
	}
	return reader.Metadata(m)
}

func (s *ccSession) sourceIDs(l *ccLine) []string {
	if l.UUID == "" || reader.Placeholder(l.UUID) || annals.ValidateID("uuid", l.UUID) != nil {
		return nil
	}
	return []string{l.UUID}
}
