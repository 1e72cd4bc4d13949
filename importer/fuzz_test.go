package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// seedLines adds the files' lines, and the files whole, to a fuzz corpus.
func seedLines(f *testing.F, paths ...string) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f.Add(data)
		for _, l := range strings.Split(string(data), "\n") {
			f.Add([]byte(l))
		}
	}
}

// checkParsed fails on what a parser must never do with any input: emit an entry or chat that
// annals would refuse (a parser bug, not bad input), or render a signed or encrypted blob.
func checkParsed(t *testing.T, p *importer.Parsed, err error) {
	t.Helper()
	if err != nil {
		return // a whole-file format may refuse a file that is not its format at all
	}
	for _, w := range p.Warnings {
		if strings.Contains(w.Message, "not imported") {
			t.Fatalf("the parser emitted an invalid entry or chat: %s", w.Message)
		}
	}
	for _, c := range p.Chats {
		if c.ID == "" {
			t.Fatal("a chat without an id")
		}
	}
}

func fuzzLines(f *testing.F, name string, path string, seeds ...string) {
	seedLines(f, seeds...)
	lp := importertest.Format(f, name).(importer.LineParser)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := importer.ParseBytes(context.Background(), lp, path, data)
		checkParsed(t, p, err)
	})
}

func FuzzClaudeCodeLines(f *testing.F) {
	fuzzLines(f, "claude-code", "/p/sess.jsonl",
		importertest.Testdata("claude-code", "project", "sess-main.jsonl"),
		filepath.Join(corpusDir, "claude-code", "jazzyalex__claude_small_schema_catalog.jsonl"))
}

func FuzzClaudeCodeSubAgentLines(f *testing.F) {
	fuzzLines(f, "claude-code", "/p/sess/subagents/agent-x.jsonl",
		importertest.Testdata("claude-code", "project", "sess-main", "subagents", "agent-a1b2.jsonl"))
}

func FuzzCodexLines(f *testing.F) {
	fuzzLines(f, "codex", "/p/rollout-x.jsonl",
		importertest.Testdata("codex", "rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"),
		filepath.Join(corpusDir, "codex", "jazzyalex__codex_small_schema_catalog.jsonl"))
}

func FuzzAiderLines(f *testing.F) {
	fuzzLines(f, "aider", "/p/.aider.chat.history.md", importertest.Testdata("aider", ".aider.chat.history.md"))
}

// fuzzFile runs a whole-file format over data written to a file named name.
func fuzzFile(f *testing.F, formatName, name string, seeds ...string) {
	seedLines(f, seeds...)
	fm := importertest.Format(f, formatName)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := importer.Parse(context.Background(), fm, path)
		checkParsed(t, p, err)
	})
}

func FuzzGeminiLines(f *testing.F) {
	fuzzFile(f, "gemini-cli", "session.jsonl", importertest.Testdata("gemini", "session-2025-07-01T10-00-rewind.jsonl"))
}

func FuzzGeminiDocument(f *testing.F) {
	fuzzFile(f, "gemini-cli", "session.json", importertest.Testdata("gemini", "session-2025-07-02T09-00-legacy.json"))
}

func FuzzChatGPTExport(f *testing.F) {
	fuzzFile(f, "chatgpt", "conversations.json", importertest.Testdata("chatgpt", "conversations.json"))
}

func FuzzMessagesLines(f *testing.F) {
	fuzzFile(f, "messages", "log.jsonl", importertest.Testdata("messages", "log.jsonl"), importertest.Testdata("messages", "openai-chat.json"))
}

func FuzzMessagesDocument(f *testing.F) {
	fuzzFile(f, "messages", "exchange.json", importertest.Testdata("messages", "anthropic-request.json"),
		filepath.Join(corpusDir, "anthropic-messages", "simonw-llm-anthropic__test_tools.exchanges.json"),
		filepath.Join(corpusDir, "openai-chat-completions", "simonw-llm__test_tool_use_basic_streaming.exchanges.json"))
}
