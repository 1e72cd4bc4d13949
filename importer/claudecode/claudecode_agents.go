package claudecode

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Claude Code sub-agents. A sub-agent's transcript is a file of its own,
// <session>/subagents/agent-<id>.jsonl (or, for the agents of a workflow run,
// <session>/subagents/workflows/<run>/agent-<id>.jsonl), with agent-<id>.meta.json beside it
// ({"agentType", "description", "toolUseId"}); older versions wrote the sub-agent's lines into
// the session file itself, marked isSidechain (and, later, with an agentId).
//
// Each sub-agent is one chat, "claude-code:<session>/agent-<agentId>", with the attributes
// parent=<the session's chat>, subagent=<agentId>, agent_type and parent_tool_use when known.
// The session is the folder before the last subagents/ in the path, else the lines' sessionId.
// The parent's Task/Agent call links to it: the call's result names the agentId, and the tool
// entry gets metadata subagent_chat=<chat id> and the text "sub-agent chat: <chat id>", which
// `annals show` prints. The meta file's description (or the call's) is the chat's derived title.

// ccSubagentPrefix starts the text of a Task/Agent tool entry that links to its sub-agent.
const ccSubagentPrefix = "sub-agent chat: "

// ccAgentMeta is a sub-agent's agent-<id>.meta.json.
type ccAgentMeta struct {
	AgentType   string `json:"agentType"`
	Description string `json:"description"`
	ToolUseID   string `json:"toolUseId"`
}

// ccPathSession returns the session a sub-agent file belongs to by its path: the folder
// before the last "subagents" folder, or "" when the path has none.
func ccPathSession(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := len(parts) - 2; i > 0; i-- {
		if parts[i] == "subagents" {
			if sid := parts[i-1]; sid != "" && sid != "." && sid != ".." {
				return sid
			}
			return ""
		}
	}
	return ""
}

// ccReadAgentMeta reads the meta file beside a sub-agent transcript; a missing or unreadable
// one gives nil (it only adds a title and a type).
func ccReadAgentMeta(path string) *ccAgentMeta {
	metaPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".meta.json"
	r, err := reader.OpenReadOnly(metaPath)
	if err != nil {
		return nil
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 64<<10))
	if err != nil {
		return nil
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte order mark
	var m ccAgentMeta
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return &m
}

// subagentAttrs adds what is known about a sub-agent to its chat's attributes.
func ccSubagentAttrs(a annals.Attributes, meta *ccAgentMeta) {
	if meta == nil {
		return
	}
	if meta.AgentType != "" && !reader.Placeholder(meta.AgentType) {
		a["agent_type"] = meta.AgentType
	}
	if meta.ToolUseID != "" && !reader.Placeholder(meta.ToolUseID) {
		a["parent_tool_use"] = meta.ToolUseID
	}
	if t := reader.DeriveTitleText(meta.Description); t != "" && !reader.Placeholder(meta.Description) {
		a[reader.DerivedTitleAttr] = t
	}
}

// agentChat returns the chat of an inline side-chain line that names its agent, creating it
// on first sight: every line of one agentId is one chat, however its parent links run.
func (s *ccSession) agentChat(main string, l *ccLine) string {
	if s.session() == "" {
		return main
	}
	chat := reader.ChatID("claude-code", s.session()+"/agent-"+l.AgentID)
	for _, c := range s.st.Agents {
		if c == chat {
			return chat
		}
	}
	s.st.Agents = append(s.st.Agents, chat)
	if len(s.st.Agents) > ccSideMemory {
		s.st.Agents = append([]string(nil), s.st.Agents[len(s.st.Agents)-ccSideMemory:]...)
	}
	attrs := s.attrs("")
	attrs["parent"] = main
	attrs["sidechain"] = "true"
	attrs["subagent"] = l.AgentID
	s.linkSideChain(main, chat, l, attrs)
	s.queue(chat).Push(annals.CaptureOp{Chat: &annals.Chat{ID: chat, Attributes: attrs, CreatedAt: reader.ParseTime(l.Timestamp)}})
	return chat
}

// linkSideChain ties an inline side chain to the Task/Agent call that started it: the call
// still waits for its result (which comes when the side chain ends) and its prompt is the
// side chain's first message. The call's description titles the side chain.
func (s *ccSession) linkSideChain(main, side string, l *ccLine, attrs annals.Attributes) {
	if l.Message == nil {
		return
	}
	text, blocks, err := ccContent(l.Message.Content)
	if err != nil {
		return
	}
	for _, b := range blocks {
		if b.Type == "text" {
			text += b.Text
		}
	}
	text = strings.TrimSpace(text)
	q := s.queues[main]
	if text == "" || q == nil {
		return
	}
	for _, it := range q.Items {
		if !it.Waiting || it.Op.Append == nil || len(it.Op.Append.Entries) == 0 {
			continue
		}
		e := it.Op.Append.Entries[0]
		if e.Tool == nil || (e.Tool.Name != "Task" && e.Tool.Name != "Agent") || strings.HasPrefix(e.Text, ccSubagentPrefix) {
			continue
		}
		var in struct {
			Prompt      string `json:"prompt"`
			Description string `json:"description"`
		}
		if json.Unmarshal(e.Tool.Arguments, &in) != nil || strings.TrimSpace(in.Prompt) != text {
			continue
		}
		ccLinkCall(e, side)
		attrs["parent_tool_use"] = e.Tool.CallID
		if t := reader.DeriveTitleText(in.Description); t != "" {
			attrs[reader.DerivedTitleAttr] = t
		}
		return
	}
}

// ccLinkCall makes a Task/Agent tool entry point at the chat of the sub-agent it ran.
func ccLinkCall(e *annals.Entry, child string) {
	e.Text = ccSubagentPrefix + child
	e.Metadata = reader.JoinMeta(e.Metadata, reader.Metadata(map[string]any{"subagent_chat": child}))
}

// ccResultAgent returns the agentId a Task/Agent result names in its toolUseResult.
func ccResultAgent(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var r struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(raw, &r) != nil || reader.Placeholder(r.AgentID) {
		return ""
	}
	return r.AgentID
}

// Companion reports the files Claude Code writes beside its sessions that are not sessions:
// a sub-agent's agent-<id>.meta.json (read with its transcript) and anything else under a
// session's subagents/ folder but the agent-<id>.jsonl transcripts (a workflow's journal).
func (ClaudeCode) Companion(path string) bool {
	base := filepath.Base(path)
	if strings.HasPrefix(base, "agent-") && strings.HasSuffix(base, ".meta.json") {
		return true
	}
	return ccPathSession(path) != "" && !strings.HasPrefix(base, "agent-")
}
