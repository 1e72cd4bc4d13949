package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// corpusDir holds real public transcripts (../shared/fixtures/transcripts from the repository
// root). They are read in place, never copied into the project; without them the corpus tests
// are skipped.
var corpusDir = filepath.Join("..", "..", "shared", "fixtures", "transcripts")

// corpusCase is what one corpus file is known to hold.
type corpusCase struct {
	file   string
	format string
	chats  int
	kinds  map[annals.EntryKind]int
	// tools is how many tool entries there are, linked how many of them carry a result or
	// an outcome.
	tools, linked int
	// contains are distinctive strings that must survive the import (text, reasoning, tool
	// arguments or results, metadata); absent must not appear anywhere.
	contains []string
	absent   []string
}

var corpus = []corpusCase{
	{file: "claude-code/d-kimuson__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", format: "claude-code", chats: 3,
		kinds: map[annals.EntryKind]int{annals.KindUser: 3, annals.KindAssistant: 7, annals.KindSystem: 1, annals.KindTool: 21}, tools: 21, linked: 21,
		contains: []string{"Package.json Analysis Summary", "lsd: 3: No such file or directory", "CLAUDE.mdファイルを最新の状態にアップデートしました", "InputValidationError", "/orchestrator"}},
	{file: "claude-code/daaain__dag_compact_after_rewind.jsonl", format: "claude-code", chats: 1,
		kinds:    map[annals.EntryKind]int{annals.KindUser: 5, annals.KindAssistant: 5, annals.KindSystem: 2},
		contains: []string{"First answer", "Second answer", "Final answer", "the user asked for a plan", `"branch_from":"a1"`}},
	{file: "claude-code/jazzyalex__claude_small_schema_catalog.jsonl", format: "claude-code", chats: 2,
		kinds: map[annals.EntryKind]int{annals.KindUser: 6, annals.KindAssistant: 10, annals.KindSystem: 9, annals.KindTool: 5, annals.KindEvent: 55}, tools: 5, linked: 3,
		contains: []string{"Reasoning goes here.", "Listing the files.", "a.txt\nb.txt\n", "Refused for policy reasons.", "stage0 placeholder result"}},
	{file: "codex/daaain__rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl", format: "codex", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 2, annals.KindTool: 3, annals.KindEvent: 1}, tools: 3, linked: 3,
		contains: []string{"The synthetic files are alpha.txt and beta.txt.", "I will inspect the synthetic directory.", "*** Add File: gamma.txt", "Done!", "mcp__synthetic__lookup"},
		absent:   []string{"SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER"}},
	{file: "codex/jazzyalex__codex_small_schema_catalog.jsonl", format: "codex", chats: 1, // three user messages: one written as item and event, two (the same trimmed text) as events only; two agent_message items are assistant text
		kinds: map[annals.EntryKind]int{annals.KindUser: 3, annals.KindAssistant: 5, annals.KindSystem: 8, annals.KindTool: 9, annals.KindEvent: 46}, tools: 9, linked: 9,
		contains: []string{"List the files", "Found 2 files.", "a.txt\nb.txt\n", "example_group"}},
	{file: "gemini/jazzyalex__gemini_jsonl_v040.jsonl", format: "gemini-cli", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 1}, tools: 1, linked: 1,
		contains: []string{"Say hello and list files.", "Hello! I listed the files.", "AgentSessions/", "ls -F"}},
	{file: "gemini/jazzyalex__gemini_large_legacy.json", format: "gemini-cli", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 3, annals.KindSystem: 1, annals.KindTool: 2}, tools: 2, linked: 2,
		contains: []string{"Run a command", "Captured multiline output.", "Exit Code: 1", "Request cancelled.", "Placeholder thoughts for schema coverage."}},
	{file: "gemini/wesm-agentsview__gemini_tool_calls.json", format: "gemini-cli", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 1}, tools: 1, linked: 1,
		contains: []string{"Read this file", "Let me read it.", "I need to read the file first.", "main.go"}},
	// 78 session headers, 19 of them with nothing after them, plus the session the file
	// begins in the middle of.
	{file: "aider/aider__chat-history_head-292627B.md", format: "aider", chats: 60,
		kinds:    map[annals.EntryKind]int{annals.KindUser: 80, annals.KindAssistant: 61, annals.KindSystem: 147},
		contains: []string{"Use the Spinner instead of the inlined custom spinner", "subtree_only", "Commit d0ffbf1 fix: Reorder imports in repomap.py", "Tokens: 5,244 sent, 604 received."}},
	{file: "chatgpt-export/mitkury__example-conversation.json", format: "chatgpt", chats: 2,
		kinds:    map[annals.EntryKind]int{annals.KindUser: 3, annals.KindAssistant: 2},
		contains: []string{"How do I write a function in JavaScript?", "Actually, can you help me with Python instead?", "function greet(name)"}},
	{file: "chatgpt-export/pionxzh__image-generation.json", format: "chatgpt", chats: 1,
		// The recaps after tool calls are the reasoning of the (empty) replies that follow them.
		kinds: map[annals.EntryKind]int{annals.KindUser: 4, annals.KindTool: 11, annals.KindAssistant: 4}, tools: 11, linked: 10,
		contains: []string{"question 4", "tool text 6", "code 2", "Thought for 33s"}},
	{file: "chatgpt-export/pionxzh__thinking-summaries.json", format: "chatgpt", chats: 1,
		// Each recap ends the reasoning of the thoughts before it: no event is left.
		kinds: map[annals.EntryKind]int{annals.KindUser: 2, annals.KindAssistant: 6, annals.KindTool: 2}, tools: 2, linked: 2,
		contains: []string{"answer 1", "answer 2", "thought 3", "summary 7", "Thought for 14s"}},
	{file: "openai-chat-completions/simonw-llm__test_responses_tool_use.responses-api.exchanges.json", format: "messages", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 1}, tools: 1, linked: 1,
		contains: []string{"What is 1231 * 2331? Use the multiply tool.", "2869461", "2,869,461"}},
	{file: "openai-chat-completions/simonw-llm__test_tool_use_basic_streaming.exchanges.json", format: "messages", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 1}, tools: 1, linked: 1,
		contains: []string{"What is 1231 * 2331?", `"a": 1231`, "2,869,461"}},
	{file: "openai-chat-completions/simonw-llm__test_tool_use_chain_of_two_calls.exchanges.json", format: "messages", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 2}, tools: 2, linked: 2,
		contains: []string{"Can the country of Crumpet have dragons?", "123124", "can_have_dragons", "YES"}},
	{file: "anthropic-messages/simonw-llm-anthropic__test_fixed_version_tool_chain_with_thinking_display_regression.exchanges.json", format: "messages", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 2, annals.KindTool: 1}, tools: 1, linked: 1,
		contains: []string{"Use the fixed_version tool.", "0.32a0", "The user wants me to:"}},
	{file: "anthropic-messages/simonw-llm-anthropic__test_image_prompt.exchanges.json", format: "messages", chats: 1,
		kinds:    map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1},
		contains: []string{"Describe image in three words", "Red square, green square.", `"attachments":1`},
		absent:   []string{"iVBORw0KGgo"}},
	{file: "anthropic-messages/simonw-llm-anthropic__test_tools.exchanges.json", format: "messages", chats: 1,
		kinds: map[annals.EntryKind]int{annals.KindUser: 1, annals.KindAssistant: 1, annals.KindTool: 2}, tools: 2, linked: 2,
		contains: []string{"Two names for a pet pelican", "Charles", "Sammy"}},
}

func requireCorpus(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		tb.Skipf("corpus %s not present: %v", corpusDir, err)
	}
}

func TestCorpusFilesKeepWhatTheyHold(t *testing.T) {
	requireCorpus(t)
	for _, c := range corpus {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(corpusDir, c.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("not present: %v", err)
			}
			if !importertest.Format(t, c.format).Detect(path, importertest.Head(t, path)) {
				t.Errorf("%s does not detect %s", c.format, c.file)
			}
			p := importertest.MustParse(t, c.format, path)
			if len(p.Chats) != c.chats {
				t.Errorf("%d chats, want %d", len(p.Chats), c.chats)
			}
			got := map[annals.EntryKind]int{}
			tools, linked := 0, 0
			for _, es := range p.Entries {
				for _, e := range es {
					got[e.Kind]++
					if e.Tool != nil {
						tools++
						if e.Tool.Result != "" || e.Tool.Outcome != "" {
							linked++
						}
					}
				}
			}
			if !reflect.DeepEqual(got, c.kinds) {
				t.Errorf("entries by kind %v, want %v", got, c.kinds)
			}
			if tools != c.tools || linked != c.linked {
				t.Errorf("%d tool entries, %d with a result; want %d and %d", tools, linked, c.tools, c.linked)
			}
			text := importertest.AllText(p)
			for _, s := range c.contains {
				if !strings.Contains(text, s) {
					t.Errorf("lost %q", s)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(text, s) {
					t.Errorf("%q must not be stored", s)
				}
			}
			for _, w := range p.Warnings {
				t.Errorf("warning: line %d: %s", w.Line, w.Message)
			}
		})
	}
}

// TestCorpusImportsIntoAStoreTwiceAlike imports every corpus file of these formats into a
// store, twice, and compares.
func TestCorpusImportsIntoAStoreTwiceAlike(t *testing.T) {
	requireCorpus(t)
	db := openDB(t)
	var cands []importer.Candidate
	for _, c := range corpus {
		path, _ := filepath.Abs(filepath.Join(corpusDir, c.file))
		if _, err := os.Stat(path); err == nil {
			cands = append(cands, importer.Candidate{Path: path, Format: importertest.Format(t, c.format)})
		}
	}
	opts := importer.Options{Formats: importertest.FormatsNamed(t, myFormats...), Titles: importertest.Titles{DB: db}}
	rep, err := importer.New(forgetful{db}, opts).Import(context.Background(), cands)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("import: %v %+v", err, rep.Errors)
	}
	before := importertest.TakeSnapshot(t, db)
	rep, err = importer.New(forgetful{db}, opts).Import(context.Background(), cands)
	if err != nil || len(rep.Errors) > 0 || rep.Chats != 0 {
		t.Fatalf("second import: %v %+v, %d chats created", err, rep.Errors, rep.Chats)
	}
	if !reflect.DeepEqual(before, importertest.TakeSnapshot(t, db)) {
		t.Error("the store differs after importing the corpus again")
	}
	if err := db.CheckIndex(context.Background()); err != nil {
		t.Errorf("full-text index: %v", err)
	}
}
