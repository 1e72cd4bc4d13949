package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// claudeCode reads Claude Code session files: ~/.claude/projects/<encoded cwd>/<session>.jsonl,
// and the sub-agent files beside them (agent-<id>.jsonl, or <session>/subagents/agent-<id>.jsonl).
//
// One file is one chat ("claude-code:<sessionId>"; a sub-agent file is
// "claude-code:<sessionId>/agent-<agentId>" with parent=<the session's chat>). Inline side chains
// (isSidechain lines of the Task tool in older versions) become chats of their own,
// "<chat>/sidechain-<root uuid>", with parent=<chat>. Every line has a uuid, which gives entry ids.
type claudeCode struct{}

func (claudeCode) Name() string { return "claude-code" }

func (claudeCode) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".claude", "projects", "**", "*.jsonl")}
}

func (claudeCode) Detect(path string, head []byte) bool {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	// A .jsonl file in Claude Code's own folder is a session, whatever its first lines (a long
	// file-history-snapshot line can fill the whole head).
	if strings.Contains(filepath.ToSlash(path), "/.claude/projects/") {
		return true
	}
	first := firstLines(head, 8)
	return bytes.Contains(first, []byte(`"parentUuid"`)) || bytes.Contains(first, []byte(`"leafUuid"`)) ||
		(bytes.Contains(first, []byte(`"sessionId"`)) && (bytes.Contains(first, []byte(`"isSidechain"`)) || bytes.Contains(first, []byte(`"permissionMode"`)) || bytes.Contains(first, []byte(`"file-history-snapshot"`))))
}

// firstLines returns at most n leading lines of head.
func firstLines(head []byte, n int) []byte {
	end := 0
	for i := 0; i < n && end < len(head); i++ {
		j := bytes.IndexByte(head[end:], '\n')
		if j < 0 {
			return head
		}
		end += j + 1
	}
	return head[:end]
}

// ccState is what a Claude Code session needs to resume after a settled line.
type ccState struct {
	Chat      string `json:"chat,omitempty"`
	Created   bool   `json:"created,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Branch    string `json:"branch,omitempty"`
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
	src     *Source
	agent   bool // a sub-agent file: side-chain lines are its main flow
	st      ccState
	queues  map[string]*opQueue
	order   []string // chats in the order their queue was made
	title   string   // custom-title (preferred) or ai-title seen in this file
	titleAI string
	// pathSID is the session a sub-agent file belongs to by its path (claudecode_agents.go),
	// and agentMeta its agent-<id>.meta.json.
	pathSID   string
	agentMeta *ccAgentMeta
}

func (claudeCode) NewSession(src *Source, state json.RawMessage) (LineSession, error) {
	s := &ccSession{src: src, queues: map[string]*opQueue{}}
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

func (s *ccSession) Line(ctx context.Context, n int, raw []byte, out Output) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var l ccLine
	if err := json.Unmarshal(raw, &l); err != nil {
		out.Warnf(n, "not a JSON object: %s", shortJSONErr(err))
		return nil
	}
	ts := ParseTime(l.Timestamp)
	if ts.IsZero() {
		ts = s.st.Time
	} else {
		s.st.Time = ts
	}
	if s.st.SessionID == "" && l.SessionID != "" && !placeholder(l.SessionID) {
		s.st.SessionID = l.SessionID
	}
	if s.agent && s.st.AgentID == "" && l.AgentID != "" {
		s.st.AgentID = l.AgentID
	}
	if s.st.Cwd == "" && l.Cwd != "" && !placeholder(l.Cwd) {
		s.st.Cwd = l.Cwd
	}
	if s.st.Branch == "" && l.GitBranch != "" && !placeholder(l.GitBranch) {
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

// placeholder spots the "[trimmed for fixture]"-style values of anonymised files, which must
// not become a chat's identity.
func placeholder(v string) bool { return strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") }

func shortJSONErr(err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "..."
	}
	return msg
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
		s.st.Chat = ChatID("claude-code", s.session()+"/agent-"+agent)
	} else {
		s.st.Chat = ChatID("claude-code", s.st.SessionID)
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
func (s *ccSession) chatFor(l *ccLine, out Output) string {
	main := s.mainChat()
	if !l.IsSidechain || s.agent {
		return main
	}
	if main != "" && l.AgentID != "" && !placeholder(l.AgentID) {
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
	side := SafeID(main+"/sidechain-"+l.UUID, annals.MaxIDBytes)
	s.rememberSide(l.UUID, side)
	attrs := s.attrs("")
	attrs["parent"] = main
	attrs["sidechain"] = "true"
	s.linkSideChain(main, side, l, attrs)
	s.queue(side).push(annals.CaptureOp{Chat: &annals.Chat{ID: side, Attributes: attrs, CreatedAt: ParseTime(l.Timestamp)}})
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
	if model != "" && !placeholder(model) && model != "<synthetic>" {
		a["model"] = model
	}
	return a
}

func (s *ccSession) queue(chat string) *opQueue {
	q, ok := s.queues[chat]
	if !ok {
		q = &opQueue{}
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
	if s.agent {
		attrs["parent"] = ChatID("claude-code", s.session())
		if s.st.AgentID != "" {
			attrs["subagent"] = s.st.AgentID
		}
		ccSubagentAttrs(attrs, s.agentMeta)
	}
	var created time.Time
	// What waited for the chat id (queued under "") moves to the chat, behind its creation.
	q := s.queue(main)
	waiting := s.queues[""]
	ops := []*queued{{op: annals.CaptureOp{Chat: &annals.Chat{ID: main, Attributes: attrs}}}}
	if waiting != nil {
		for _, it := range waiting.items {
			if it.op.Append != nil {
				it.op.Append.ChatID = main
			}
			if it.op.Run != nil {
				it.op.Run.ChatID = main
			}
		}
		ops = append(ops, waiting.items...)
		for id, it := range waiting.waiting {
			if q.waiting == nil {
				q.waiting = map[string]*queued{}
			}
			q.waiting[id] = it
		}
		delete(s.queues, "")
	}
	ops = append(ops, q.items...)
	for _, it := range ops {
		if a := it.op.Append; a != nil && len(a.Entries) > 0 && !a.Entries[0].Time.IsZero() {
			created = a.Entries[0].Time
			break
		}
	}
	ops[0].op.Chat.CreatedAt = created
	q.items = ops
}

func (s *ccSession) flush(out Output) error {
	for _, chat := range s.order {
		if chat == "" || (chat == s.st.Chat && !s.st.Created) {
			continue // waits for the chat's creation
		}
		if q := s.queues[chat]; q != nil {
			if err := q.flush(out); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *ccSession) Settled() bool {
	for _, q := range s.queues {
		if !q.empty() {
			return false
		}
	}
	return true
}

func (s *ccSession) State() (json.RawMessage, error) { return json.Marshal(s.st) }

func (s *ccSession) Finish(ctx context.Context, out Output) error {
	if s.mainChat() == "" {
		// No line named the session: the file name is the best identity left.
		s.st.SessionID = strings.TrimSuffix(filepath.Base(s.src.Path), filepath.Ext(s.src.Path))
		s.st.Chat = ""
		s.mainChat()
	}
	hasOps := false
	for _, q := range s.queues {
		if !q.empty() {
			hasOps = true
		}
	}
	if hasOps {
		s.create("")
	}
	for _, chat := range s.order {
		if q := s.queues[chat]; q != nil {
			if err := q.flushAll(out); err != nil {
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
	if base == "" || placeholder(base) {
		base = "h-" + shortHash(string(raw))
	}
	if part == 0 {
		return EntryID(base, -1)
	}
	return EntryID(base, part)
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
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if extra := Unknown(obj, ccEnvelope...); len(extra) > 0 {
			m["extra"] = sizedJSON(extra)
		}
	}
	return Metadata(m)
}

// sizedJSON keeps a value for metadata unless it is large, in which case only a note of its
// size is kept: metadata is for what the source carried, not for a second copy of big data.
func sizedJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if len(b) > 64<<10 {
		return map[string]any{"omitted_bytes": len(b)}
	}
	return json.RawMessage(b)
}

func (s *ccSession) sourceIDs(l *ccLine) []string {
	if l.UUID == "" || placeholder(l.UUID) || annals.ValidateID("uuid", l.UUID) != nil {
		return nil
	}
	return []string{l.UUID}
}

func (s *ccSession) user(chat string, n int, l *ccLine, raw []byte, ts time.Time, out Output) error {
	if l.Message == nil {
		s.event(chat, n, l, raw, ts)
		return nil
	}
	q := s.queue(chat)
	text, blocks, err := ccContent(l.Message.Content)
	if err != nil {
		out.Warnf(n, "message content: %s", shortJSONErr(err))
		return nil
	}
	var texts []string
	if text != "" {
		texts = append(texts, text)
	}
	images := 0
	part := 0
	var rawBlocks, other []json.RawMessage
	if len(blocks) > 0 {
		_ = json.Unmarshal(l.Message.Content, &rawBlocks)
	}
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case "image", "document":
			images++
			texts = append(texts, "["+b.Type+"]")
		case "tool_result":
			part++
			result := ccToolResult(b.Content)
			outcome := annals.OutcomeSucceeded
			switch {
			case l.ToolDenialKind != "" || strings.Contains(result, "The user doesn't want to proceed with this tool use"):
				outcome = annals.OutcomeBlocked
			case strings.HasPrefix(result, "[Request interrupted by user"):
				outcome = annals.OutcomeCancelled
			case b.IsError:
				outcome = annals.OutcomeFailed
			}
			extra := map[string]any{}
			if small := ccSmallResult(l.ToolUseResult); small != nil {
				extra["tool_use_result"] = small
			}
			resultMeta := Metadata(extra)
			agent := ccResultAgent(l.ToolUseResult)
			if q.resolve(b.ToolUseID, func(e *annals.Entry) {
				e.Tool.Result, e.Tool.Outcome = result, outcome
				if resultMeta != nil {
					e.Metadata = joinMeta(e.Metadata, resultMeta)
				}
				if agent != "" && s.session() != "" {
					ccLinkCall(e, ChatID("claude-code", s.session()+"/agent-"+agent))
				}
				e.SourceIDs = addSourceIDs(e.SourceIDs, s.sourceIDs(l)...)
			}) {
				continue
			}
			// A result whose call is not in this file (or was released already).
			extra["orphan_result"] = true
			q.pushEntry(chat, &annals.Entry{
				ID: ccEntryID(l, raw, part), Kind: annals.KindTool, Time: ts, SourceIDs: s.sourceIDs(l),
				Tool:     &annals.ToolCall{Name: "unknown", CallID: SafeID(b.ToolUseID, annals.MaxIDBytes), Result: result, Outcome: outcome},
				Metadata: s.meta(chat, l, raw, extra),
			})
		default:
			if i < len(rawBlocks) {
				other = append(other, rawBlocks[i])
			}
		}
	}
	body := strings.TrimSpace(strings.Join(dropBlank(texts), "\n\n"))
	if body == "" && len(other) == 0 {
		return nil
	}
	kind := annals.KindUser
	m := map[string]any{}
	if len(other) > 0 {
		m["blocks"] = sizedJSON(other)
	}
	if images > 0 {
		m["attachments"] = images
	}
	switch {
	case l.IsCompactSummary:
		kind = annals.KindSystem
		m["compaction"] = true
	case l.IsMeta:
		kind = annals.KindSystem
		m["meta"] = true
	default:
		// A new prompt from the person: calls still waiting will not get a result.
		if len(blocks) == 0 || !ccHasToolResult(blocks) {
			q.releaseAll()
		}
	}
	q.pushEntry(chat, &annals.Entry{ID: ccEntryID(l, raw, 0), Kind: kind, Time: ts, SourceIDs: s.sourceIDs(l), Text: ValidText(body), Metadata: s.meta(chat, l, raw, m)})
	return nil
}

func ccHasToolResult(blocks []ccBlock) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

func dropBlank(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func addSourceIDs(ids []string, more ...string) []string {
	for _, m := range more {
		dup := false
		for _, id := range ids {
			if id == m {
				dup = true
			}
		}
		if !dup && len(ids) < annals.MaxSourceIDs {
			ids = append(ids, m)
		}
	}
	return ids
}

// joinMeta merges two metadata objects (b's keys win).
func joinMeta(a, b json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return b
	}
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return a
	}
	for k, v := range mb {
		ma[k] = v
	}
	out, err := json.Marshal(ma)
	if err != nil {
		return a
	}
	return out
}

// ccContent splits message content into a plain string or blocks.
func ccContent(raw json.RawMessage) (string, []ccBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil, nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, nil, err
	}
	// A list usually holds blocks, but some versions (and hand-written tools) put a plain
	// string in it: that is a text block, never a reason to drop the line.
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return "", nil, err
	}
	blocks := make([]ccBlock, 0, len(items))
	for _, it := range items {
		it = bytes.TrimSpace(it)
		if len(it) > 0 && it[0] == '"' {
			var s string
			if err := json.Unmarshal(it, &s); err != nil {
				return "", nil, err
			}
			blocks = append(blocks, ccBlock{Type: "text", Text: s})
			continue
		}
		var b ccBlock
		if err := json.Unmarshal(it, &b); err != nil {
			return "", nil, err
		}
		blocks = append(blocks, b)
	}
	return "", blocks, nil
}

// ccToolResult flattens a tool_result's content (a string, or text and image blocks).
func ccToolResult(raw json.RawMessage) string {
	text, blocks, err := ccContent(raw)
	if err != nil {
		return ValidText(string(raw))
	}
	parts := []string{}
	if text != "" {
		parts = append(parts, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return ValidText(strings.Join(parts, "\n"))
}

// ccSmallResult keeps the structured toolUseResult only when it is small: it mostly repeats the
// tool_result text, and for file tools it can hold a whole file.
func ccSmallResult(raw json.RawMessage) any {
	if len(raw) == 0 || len(raw) > 4<<10 || bytes.Equal(raw, []byte("null")) || raw[0] == '"' {
		return nil
	}
	return raw
}

func (s *ccSession) assistant(chat string, n int, l *ccLine, raw []byte, ts time.Time, out Output) error {
	if l.Message == nil {
		s.event(chat, n, l, raw, ts)
		return nil
	}
	m := l.Message
	if chat == s.mainChat() && !s.st.Created && s.mainChat() != "" {
		s.create(m.Model)
	}
	q := s.queue(chat)
	runID := ""
	if m.ID != "" && !placeholder(m.ID) && m.Model != "<synthetic>" && chat != "" {
		runID = SafeID(chat+"/"+m.ID, annals.MaxIDBytes)
		run := &annals.Run{ID: runID, ChatID: chat, Status: annals.StatusCompleted, StartedAt: ts}
		if !placeholder(m.Model) {
			run.Model = SafeID(m.Model, annals.MaxIDBytes)
		}
		if u := m.Usage; u != nil {
			// The prompt the model processed, cache included (as OpenAI counts prompt tokens).
			run.InputTokens = clampTokens(u.InputTokens) + clampTokens(u.CacheCreationTokens) + clampTokens(u.CacheReadTokens)
			run.OutputTokens = clampTokens(u.OutputTokens)
		}
		// A split reply repeats its message id on every line: the run is recorded again with
		// the latest usage, an upsert.
		q.push(annals.CaptureOp{Run: run})
	}
	text, blocks, err := ccContent(m.Content)
	if err != nil {
		out.Warnf(n, "message content: %s", shortJSONErr(err))
		return nil
	}
	var texts, thoughts []string
	if text != "" {
		texts = append(texts, text)
	}
	redacted := false
	type call struct {
		b    ccBlock
		part int
	}
	var calls []call
	var other []json.RawMessage
	var rawBlocks []json.RawMessage
	_ = json.Unmarshal(m.Content, &rawBlocks)
	for i, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking":
			// The signature is a signed blob for the API, never shown.
			if b.Thinking != "" {
				thoughts = append(thoughts, b.Thinking)
			}
		case "redacted_thinking":
			redacted = true // encrypted reasoning: dropped, only marked
		case "tool_use", "server_tool_use", "mcp_tool_use":
			calls = append(calls, call{b: b, part: i + 1})
		default:
			if i < len(rawBlocks) {
				other = append(other, rawBlocks[i])
			}
		}
	}
	meta := map[string]any{}
	if m.Model != "" && !placeholder(m.Model) {
		meta["model"] = m.Model
	}
	if redacted {
		meta["redacted_thinking"] = true
	}
	if l.IsAPIError {
		meta["api_error"] = true
	}
	if m.StopReason != "" && m.StopReason != "end_turn" && m.StopReason != "tool_use" && !placeholder(m.StopReason) {
		meta["stop_reason"] = m.StopReason
	}
	if len(other) > 0 {
		meta["blocks"] = sizedJSON(other)
	}
	body := strings.Join(dropBlank(texts), "\n\n")
	reasoning := strings.Join(dropBlank(thoughts), "\n\n")
	if body != "" || reasoning != "" || len(calls) == 0 {
		q.pushEntry(chat, &annals.Entry{
			ID: ccEntryID(l, raw, 0), Kind: annals.KindAssistant, Time: ts, RunID: runID, SourceIDs: s.sourceIDs(l),
			Text: ValidText(body), Reasoning: ValidText(reasoning), Metadata: s.meta(chat, l, raw, meta),
		})
	}
	for _, c := range calls {
		args := c.b.Input
		if len(bytes.TrimSpace(args)) == 0 {
			args = nil
		}
		name := c.b.Name
		if name == "" {
			name = "unknown"
		}
		id := ccEntryID(l, raw, c.part)
		if body == "" && reasoning == "" && len(calls) == 1 {
			id = ccEntryID(l, raw, 0)
		}
		e := &annals.Entry{
			ID: id, Kind: annals.KindTool, Time: ts, RunID: runID, SourceIDs: s.sourceIDs(l),
			Tool: &annals.ToolCall{Name: SafeID(name, annals.MaxIDBytes), CallID: SafeID(c.b.ID, annals.MaxIDBytes), Arguments: args},
		}
		if len(meta) > 0 && body == "" && reasoning == "" {
			e.Metadata = s.meta(chat, l, raw, meta)
		}
		if c.b.ID == "" {
			q.pushEntry(chat, e)
			continue
		}
		q.pushCall(chat, c.b.ID, e)
	}
	return nil
}

func clampTokens(n int64) int64 {
	if n < 0 {
		return 0
	}
	return n
}

func (s *ccSession) system(chat string, n int, l *ccLine, raw []byte, ts time.Time) error {
	q := s.queue(chat)
	text := ""
	if len(l.Content) > 0 && l.Content[0] == '"' {
		_ = json.Unmarshal(l.Content, &text)
	}
	m := map[string]any{"subtype": l.Subtype}
	kind := annals.KindEvent
	switch l.Subtype {
	case "compact_boundary":
		kind = annals.KindSystem
		m["compaction"] = true
		if len(l.CompactMetadata) > 0 {
			m["compact_metadata"] = l.CompactMetadata
		}
		if l.LogicalParentUUID != "" {
			m["logical_parent"] = l.LogicalParentUUID
		}
		if text == "" {
			text = "Conversation compacted"
		}
	case "api_error", "error", "api_refusal", "local_command", "informational":
		kind = annals.KindSystem
		if len(l.Error) > 0 && !bytes.Equal(l.Error, []byte("null")) {
			m["error"] = sizedJSON(l.Error)
		}
	}
	e := &annals.Entry{ID: ccEntryID(l, raw, 0), Kind: kind, Time: ts, SourceIDs: s.sourceIDs(l), Text: ValidText(text), Metadata: s.meta(chat, l, raw, m)}
	if kind == annals.KindEvent {
		e.Channel = "claude-code/system/" + channelPart(l.Subtype)
	}
	q.pushEntry(chat, e)
	return nil
}

// event keeps a line of a type annals has no mapping for as an event entry holding the line.
func (s *ccSession) event(chat string, n int, l *ccLine, raw []byte, ts time.Time) {
	m := map[string]any{}
	if len(l.Attachment) > 0 {
		m["attachment"] = sizedJSON(l.Attachment)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if extra := Unknown(obj, ccEnvelope...); len(extra) > 0 {
			m["extra"] = sizedJSON(extra)
		}
	}
	typ := l.Type
	if typ == "" {
		typ = "unknown"
	}
	channel := "claude-code/" + channelPart(typ)
	if len(l.Attachment) > 0 {
		var a struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l.Attachment, &a) == nil && a.Type != "" {
			channel += "/" + channelPart(a.Type)
		}
	}
	s.queue(chat).pushEntry(chat, &annals.Entry{ID: ccEntryID(l, raw, 0), Kind: annals.KindEvent, Channel: channel, Time: ts, SourceIDs: s.sourceIDs(l), Metadata: Metadata(m)})
}

// channelPart makes a source's type name a safe channel segment.
func channelPart(s string) string {
	if s == "" {
		return "unknown"
	}
	s = strings.Map(func(r rune) rune {
		if r == '/' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	return ValidText(s)
}
