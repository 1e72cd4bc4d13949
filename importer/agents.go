package importer

import (
	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// agentTools names the tool behind a format whose name is not its tool's: two formats of one
// tool give their chats the same agent.
var agentTools = map[string]string{
	"claude-code-web":    "claude-code",
	"hermes-trajectory":  "hermes",
	"copilot-cli-legacy": "copilot-cli",
	"cline-session":      "cline",
}

// readerAgents are the formats whose chats' agents are their reader's alone: a lanius session's
// agent is the noun of its in/agent/<noun> events, and one with none is an orphan to lanius's
// view (and to annals's query view, which answers its clients), not the tool's agent.
var readerAgents = map[string]bool{"lanius": true}

// chatAgent returns the agent an imported chat is given: the key's own agent when the import
// runs under one (a key with an agent creates chats only for it), else the chat's tool (the
// format, or the tool agentTools names for it), followed by "/<name>" for a sub-agent whose
// source names its kind (Claude Code's agent_type). A chat the reader already gave an agent
// (an annals export, a runtime's own agent column) keeps it.
func chatAgent(format, keyAgent string, c *annals.Chat) string {
	if c.AgentID != "" || readerAgents[format] && keyAgent == "" {
		return c.AgentID
	}
	if keyAgent != "" {
		return keyAgent
	}
	tool := format
	if t, ok := agentTools[format]; ok {
		tool = t
	}
	if sub := c.Attributes["agent_type"]; sub != "" {
		return reader.SafeID(tool+"/"+sub, annals.MaxIDBytes)
	}
	return tool
}
