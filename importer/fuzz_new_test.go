package importer_test

import (
	"github.com/annals-dev/annals/importer/importertest"
	"testing"
)

// Fuzz targets of the readers added for issue 13, seeded with their fixtures: whatever the
// input, a reader never emits a chat or entry annals would refuse.

func FuzzQwenCodeLines(f *testing.F) {
	fuzzLines(f, "qwen-code", "/h/.qwen/projects/p/chats/s.jsonl", importertest.QwenFixture())
}

func FuzzKimiCLILines(f *testing.F) {
	fuzzLines(f, "kimi-cli", "/h/.kimi/sessions/x/s/context.jsonl",
		importertest.Testdata("kimi-cli", "sessions", "4b9d3c1e8f7a6b5c4d3e2f1a0b9c8d7e", "2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50", "context.jsonl"))
}

func FuzzClineTask(f *testing.F) {
	fuzzFile(f, "cline", "api_conversation_history.json",
		importertest.Testdata("cline", "globalStorage", "saoudrizwan.claude-dev", "tasks", "1767225600000", "api_conversation_history.json"))
}

func FuzzCopilotChatSession(f *testing.F) {
	fuzzFile(f, "copilot-chat", "s.jsonl",
		importertest.Testdata("copilot-chat", "workspaceStorage", "5f3e2d1c0b9a8f7e6d5c4b3a29181716", "chatSessions", "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d.jsonl"))
}

func FuzzAnnalsMarkdownExport(f *testing.F) {
	fuzzFile(f, "annals", "chat.md", importertest.Testdata("annals", "sess-main.md"))
}

func FuzzAmpThread(f *testing.F) {
	fuzzFile(f, "amp", "T-1.json", importertest.Testdata("amp", ".local", "share", "amp", "threads", "T-019b9d03-62e3-772f-9780-3e637f90eaec.json"))
}
