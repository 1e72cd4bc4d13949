// Package importer reads the histories that agent tools already write on disk (Claude Code,
// Codex CLI, Gemini CLI, Aider, ChatGPT exports, ...) and turns them into annals capture ops.
//
// # Layout
//
// Each source tool's reader is a package of its own, importer/<tool>/ (claudecode, codex,
// gemini, ...), which imports only the root and importer/reader: the contracts (Format, the
// parser interfaces, Output) and the helpers readers share. This package is the orchestration:
// the registry (Formats), detection and discovery, the incremental runner and its per-source
// state, titles, resume attributes, reports and Watch.
//
// # Adding a format
//
// Add one folder, importer/<tool>/, holding an exported type that implements reader.Format and
// exactly one of the two parser interfaces:
//
//   - LineParser, for an append-only line-oriented file (JSON Lines). The framework reads the
//     lines, hands them to a LineSession one at a time, remembers the byte offset of the last
//     complete line and the session's State, and on the next import resumes right there, so an
//     appended line costs one line of work.
//   - FileParser, for everything else: a JSON document, a Markdown file, a SQLite database or a
//     directory tree. The framework fingerprints the source (size, modification time, content
//     hash) and calls ParseFile again only when it changed; entries are idempotent by id, so a
//     re-parse appends only what is new. A FileParser that can also read a database server,
//     named by a connection URL instead of a path, implements ServerParser too (dsn.go).
//
// A tool with its own command to continue a session implements reader.Resumer. Then add the
// type to the slice in Formats() below. That function is the whole registry:
// there is no init() registration and no package state, so a test (or a program embedding
// annals) can build its own list. Keep the generic formats (the plain message arrays) last,
// because detection tries formats in order and takes the first that claims a file.
//
// A helper private to one tool stays unexported in its folder; a helper two tools need goes in
// importer/reader (ChatID, EntryID, SafeID, ParseTime, Metadata, Unknown, Truncated,
// ValidText, the JSON field readers, detection by first lines, SQLite sources).
//
// To test a format, importer.Parse(ctx, format, path) returns what it emits (ops, chats,
// transcripts as a store would hold them, warnings) without a store, and importer.ParseBytes
// feeds a LineParser from memory for fuzz tests. Fixtures go under importer/testdata/<format>/.
//
// Rules every parser follows (docs/IMPORT.md explains them to users):
//   - Read-only on the source, always: open files with os.Open and databases with mode=ro.
//   - Stable ids: chat ids from the source's own session id (ChatID helps), entry ids from the
//     source's message ids (plus a part index), never from a counter that shifts when the source
//     is re-read, so importing twice leaves the store as once.
//   - A line or record that cannot be decoded is reported with Output.Warnf (the line number
//     names it) and skipped; it is never fatal. Unknown record types and fields go into entry
//     metadata (see Unknown). Encrypted or signed reasoning blobs are dropped, never rendered.
//   - A tool call and its result become one KindTool entry (name, call id, arguments, result,
//     outcome); reasoning goes into Entry.Reasoning, not Text; a compaction summary is a
//     KindSystem entry with metadata {"compaction": true}; sub-agents and side chains are
//     separate chats with the attribute parent=<chat id>.
//   - Chats carry the attribute source=<Format.Name()>, and cwd, repository, git_branch and
//     model when the source knows them.
package importer

import (
	"github.com/annals-dev/annals/importer/aider"
	"github.com/annals-dev/annals/importer/aistudio"
	"github.com/annals-dev/annals/importer/amp"
	"github.com/annals-dev/annals/importer/annalsexport"
	"github.com/annals-dev/annals/importer/antigravity"
	"github.com/annals-dev/annals/importer/chatgpt"
	"github.com/annals-dev/annals/importer/claudeai"
	"github.com/annals-dev/annals/importer/claudecode"
	"github.com/annals-dev/annals/importer/claudecodeweb"
	"github.com/annals-dev/annals/importer/cline"
	"github.com/annals-dev/annals/importer/clinesession"
	"github.com/annals-dev/annals/importer/codex"
	"github.com/annals-dev/annals/importer/continuedev"
	"github.com/annals-dev/annals/importer/copilot"
	"github.com/annals-dev/annals/importer/copilotchat"
	"github.com/annals-dev/annals/importer/copilotlegacy"
	"github.com/annals-dev/annals/importer/crush"
	"github.com/annals-dev/annals/importer/cursor"
	"github.com/annals-dev/annals/importer/cursoride"
	"github.com/annals-dev/annals/importer/droid"
	"github.com/annals-dev/annals/importer/gemini"
	"github.com/annals-dev/annals/importer/goose"
	"github.com/annals-dev/annals/importer/gptme"
	"github.com/annals-dev/annals/importer/grok"
	"github.com/annals-dev/annals/importer/hermes"
	"github.com/annals-dev/annals/importer/iflow"
	"github.com/annals-dev/annals/importer/kimi"
	"github.com/annals-dev/annals/importer/lanius"
	"github.com/annals-dev/annals/importer/llmlogs"
	"github.com/annals-dev/annals/importer/loomcycle"
	"github.com/annals-dev/annals/importer/messages"
	"github.com/annals-dev/annals/importer/opencode"
	"github.com/annals-dev/annals/importer/openhands"
	"github.com/annals-dev/annals/importer/pi"
	"github.com/annals-dev/annals/importer/qwen"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/importer/tau"
	"github.com/annals-dev/annals/importer/vibe"
	"github.com/annals-dev/annals/importer/zed"
)

// Formats returns every format annals imports, in detection order, as a new slice each time.
func Formats() []reader.Format {
	formats := []reader.Format{
		claudecode.ClaudeCode{},
		claudecodeweb.ClaudeCodeWeb{},
		qwen.QwenCode{},
		codex.Codex{},
		gemini.Gemini{},
		aider.Aider{},
		chatgpt.ChatGPT{},
		// A new tool's reader goes anywhere before the generic formats below.
		opencode.OpenCode{},
		copilot.CopilotCLI{},
		cursor.Cursor{},
		cursor.CursorStore{},
		llmlogs.LLMLogs{},
		tau.Tau{},
		loomcycle.Loomcycle{},
		lanius.Lanius{},
		kimi.KimiCLI{},
		goose.Goose{},
		crush.Crush{},
		continuedev.ContinueDev{},
		copilotchat.CopilotChat{},
		openhands.OpenHands{},
		amp.Amp{},
		droid.FactoryDroid{},
		cursoride.CursorIDE{},
		iflow.IFlow{},
		hermes.Hermes{},
		hermes.Trajectory{},
		gptme.Gptme{},
		pi.Pi{},
		claudeai.ClaudeAI{},
		vibe.Vibe{},
		grok.Grok{},
		aistudio.AIStudio{},
		copilotlegacy.CopilotLegacy{},
		antigravity.Antigravity{},
		clinesession.ClineSession{},
		zed.Zed{},
	}
	formats = append(formats, cline.Formats()...)
	// The generic formats last: they claim what no tool's own format does.
	return append(formats, annalsexport.AnnalsExport{}, messages.Messages{})
}

// Lookup returns the format called name among formats.
func Lookup(formats []reader.Format, name string) (reader.Format, bool) {
	for _, f := range formats {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Names lists the names of formats, in order.
func Names(formats []reader.Format) []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name()
	}
	return out
}
