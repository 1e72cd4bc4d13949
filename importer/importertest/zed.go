package importertest

import (
	"testing"

	"github.com/klauspost/compress/zstd"
)

// ZedSchema is the threads table as Zed's ThreadsDatabase creates and migrates it
// (crates/agent/src/db.rs in github.com/zed-industries/zed, commit
// 0642ec7e49e2d2c06f55db8c5bb2d4eca0f5223b: the CREATE TABLE, then the columns added later).
var ZedSchema = []string{
	`CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL)`,
	`ALTER TABLE threads ADD COLUMN parent_id TEXT`,
	`ALTER TABLE threads ADD COLUMN folder_paths TEXT`,
	`ALTER TABLE threads ADD COLUMN folder_paths_order TEXT`,
	`ALTER TABLE threads ADD COLUMN created_at TEXT`,
}

// The threads are DbThread version 0.3.0 as serde writes it (db.rs save_thread_sync: the
// thread flattened beside "version"; thread.rs: Message, UserMessageContent,
// AgentMessageContent are externally tagged enums, Resume a bare string;
// language_model's LanguageModelToolUse and LanguageModelToolResult, whose content serializes
// as {"Text": …}).
const (
	// ZedMain: a prompt with a file mention; a reply that thinks, says and reads a file; a
	// reply that runs a failing command; a final reply; a Resume; a second prompt answered
	// with redacted thinking. Token usage for both prompts.
	ZedMain = `{"title":"Fix the flaky parser test","messages":[
{"User":{"id":"5f2c0a4e-1b7d-4c1e-9a0f-3d2b1c0e9f11","content":[{"Text":"Why does parser_test fail on CI? See "},{"Mention":{"uri":{"File":{"abs_path":"/home/u/src/demo/src/parser.rs"}},"content":"fn parse() {}"}}]}},
{"Agent":{"content":[{"Thinking":{"text":"Read the parser first.","signature":"c2ln"}},{"Text":"Let me read the parser."},{"ToolUse":{"id":"toolu_01","name":"read_file","raw_input":"{\"path\":\"demo/src/parser.rs\"}","input":{"path":"demo/src/parser.rs"},"is_input_complete":true}}],
 "tool_results":{"toolu_01":{"tool_use_id":"toolu_01","tool_name":"read_file","is_error":false,"content":{"Text":"fn parse() { todo!() }"},"output":null}},"reasoning_details":null}},
{"Agent":{"content":[{"ToolUse":{"id":"toolu_02","name":"terminal","raw_input":"{\"command\":\"cargo test parser\"}","input":{"command":"cargo test parser","cd":"demo"},"is_input_complete":true}}],
 "tool_results":{"toolu_02":{"tool_use_id":"toolu_02","tool_name":"terminal","is_error":true,"content":{"Text":"test parser_test ... FAILED"},"output":null}},"reasoning_details":null}},
{"Agent":{"content":[{"Text":"parse() is unimplemented: the test panics at todo!()."}],"tool_results":{},"reasoning_details":null}},
"Resume",
{"User":{"id":"8a9b7c6d-0e1f-4a2b-8c3d-4e5f6a7b8c9d","content":[{"Text":"Implement it."}]}},
{"Agent":{"content":[{"RedactedThinking":"ZW5jcnlwdGVk"},{"Text":"Done: parse() now returns the tokens."}],"tool_results":{},"reasoning_details":null}}
],"updated_at":"2026-05-04T10:12:30Z","detailed_summary":null,"initial_project_snapshot":null,
"cumulative_token_usage":{"input_tokens":3200,"output_tokens":410,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},
"request_token_usage":{"5f2c0a4e-1b7d-4c1e-9a0f-3d2b1c0e9f11":{"input_tokens":2000,"output_tokens":300,"cache_creation_input_tokens":100,"cache_read_input_tokens":500},"8a9b7c6d-0e1f-4a2b-8c3d-4e5f6a7b8c9d":{"input_tokens":1200,"output_tokens":110,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},
"model":{"provider":"zed.dev","model":"claude-sonnet-4"},"profile":"write","imported":false,"subagent_context":null,"speed":null,"thinking_enabled":true,"thinking_effort":null,"draft_prompt":null,"ui_scroll_position":null,"sandboxed_terminal_temp_dir":null,"version":"0.3.0"}`

	// ZedSub: a sub-agent's thread whose call has no result yet.
	ZedSub = `{"title":"Search for todo!()","messages":[
{"User":{"id":"0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f","content":[{"Text":"Find every todo!() in demo/src."}]}},
{"Agent":{"content":[{"ToolUse":{"id":"toolu_s1","name":"grep","raw_input":"{\"regex\":\"todo!\"}","input":{"regex":"todo!"},"is_input_complete":true}}],"tool_results":{},"reasoning_details":null}}
],"updated_at":"2026-05-04T10:05:00Z","model":{"provider":"zed.dev","model":"claude-sonnet-4"},"version":"0.3.0"}`

	// ZedPlain: a thread stored as plain JSON (data_type "json").
	ZedPlain = `{"title":"Hello","messages":[{"User":{"id":"u-plain","content":[{"Text":"hello"}]}},{"Agent":{"content":[{"Text":"Hi! How can I help?"}],"tool_results":{}}}],"updated_at":"2026-04-01T08:00:00Z","version":"0.3.0"}`
)

// ZedDB builds a threads.db as Zed writes it: the main thread and its sub-agent compressed with
// zstd at level 3, and one older thread kept as plain JSON.
func ZedDB(t testing.TB, path string) {
	db := SrcDB(t, path, ZedSchema...)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	ins := `INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	SrcExec(t, db, ins, "d1f0b6a2-7c3e-4f5a-9b8c-1d2e3f4a5b6c", nil, "/home/u/src/demo", "0", "Fix the flaky parser test", "2026-05-04T10:12:30+00:00", "zstd",
		enc.EncodeAll([]byte(ZedMain), nil), "2026-05-04T10:00:00+00:00")
	SrcExec(t, db, ins, "e2a1c7b3-8d4f-4a6b-8c9d-2e3f4a5b6c7d", "d1f0b6a2-7c3e-4f5a-9b8c-1d2e3f4a5b6c", "/home/u/src/demo", "0", "Search for todo!()", "2026-05-04T10:05:00+00:00", "zstd",
		enc.EncodeAll([]byte(ZedSub), nil), "2026-05-04T10:04:00+00:00")
	SrcExec(t, db, ins, "f3b2d8c4-9e5a-4b7c-9d0e-3f4a5b6c7d8e", nil, nil, nil, "Hello", "2026-04-01T08:00:00+00:00", "json", []byte(ZedPlain), "2026-04-01T07:59:00+00:00")
}
