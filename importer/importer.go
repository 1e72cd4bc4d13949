// Package importer reads the histories that agent tools already write on disk (Claude Code,
// Codex CLI, Gemini CLI, Aider, ChatGPT exports, ...) and turns them into annals capture ops.
//
// # Adding a format
//
// Write one file, importer/<format>.go, holding an unexported type that implements Format and
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
// Then add its constructor to the slice in Formats() below. That function is the whole registry:
// there is no init() registration and no package state, so a test (or a program embedding
// annals) can build its own list. Keep the generic formats (the plain message arrays) last,
// because detection tries formats in order and takes the first that claims a file.
//
// Two engineers write formats in this one package at the same time: name a private helper
// after its format (ccX for Claude Code, cxX for Codex, ...) unless it is meant to be shared,
// and shared helpers go in helpers.go (ChatID, EntryID, SafeID, ParseTime, Metadata, Unknown,
// Truncated, ValidText).
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
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/annals-dev/annals"
)

// HeadSize is how many leading bytes of a file Detect sees.
const HeadSize = 8192

// Format is one source format: its name, how to recognise its files and where its tool keeps
// them by default.
type Format interface {
	// Name is the format's stable name: the value of the chat attribute source, the FORMAT
	// argument of `annals import`, and the prefix of its chat ids ("claude-code").
	Name() string
	// Detect reports whether the source at path is in this format. head holds up to HeadSize
	// leading bytes of a regular file, and is nil for a directory. Detect must not read path
	// itself unless head is not enough (a SQLite file's tables, a directory's layout); it is
	// called for every candidate file of an explicit `annals import PATH`.
	Detect(path string, head []byte) bool
	// DefaultPaths returns the glob patterns, rooted at home, where the format's tool keeps its
	// history on this kind of machine. Patterns use filepath.Match syntax per path element
	// plus "**" for any number of directories (see Glob). A match may be a file or a directory.
	DefaultPaths(home string) []string
}

// Source is one file, database or directory being imported.
type Source struct {
	// Path is the source's absolute, clean path; for a database server (see ServerParser),
	// its connection URL without the password.
	Path string
	// DSN is the connection URL of a database server source, password included; "" for a
	// file or directory. Only the parser sees it: the import state and reports use Path.
	DSN string
	// Size and ModTime are as stat'ed before the parse (for a directory: the total size and
	// newest modification time of the files beneath it).
	Size    int64
	ModTime time.Time
}

// Open opens the source read-only.
func (s *Source) Open() (io.ReadCloser, error) { return openReadOnly(s.Path) }

// FileParser is a format whose source is read whole every time it changes: a JSON document, a
// Markdown history, a SQLite database (the parser opens Source.Path itself, read-only), or a
// directory tree.
type FileParser interface {
	Format
	// ParseFile reads the whole source and emits its chats, entries and runs to out, in
	// transcript order. It returns an error only when the source as a whole cannot be read
	// (unreadable, not this format at all); a bad record inside it is a warning.
	ParseFile(ctx context.Context, src *Source, out Output) error
}

// LineParser is a format whose source is an append-only line-oriented file, imported
// incrementally: only the lines appended since the last import are parsed.
type LineParser interface {
	Format
	// NewSession starts parsing one file. state is nil for a parse from the first line, or
	// the value LineSession.State returned at the checkpoint the parse resumes from.
	NewSession(src *Source, state json.RawMessage) (LineSession, error)
}

// LineSession parses the lines of one file in order. The framework calls Line for each complete
// line (one that ends with '\n'; a partial last line is left for the next import), and Finish
// once at the end of the bytes available now.
type LineSession interface {
	// Line handles one line, without its line ending. n is the 1-based line number in the file.
	// A line that cannot be decoded is reported with out.Warnf(n, ...) and skipped; an error
	// return stops the file (use it for a failing out.Emit or a cancelled ctx only).
	Line(ctx context.Context, n int, line []byte, out Output) error
	// Settled reports whether everything read so far has been emitted in its final form: no
	// tool call waits for its result, no split message waits for its next part. The framework
	// checkpoints only at settled lines.
	Settled() bool
	// State returns what the session needs to resume after the last line it was given. It is
	// called only when Settled is true, so it should be small (ids, counters), not a history.
	State() (json.RawMessage, error)
	// Finish emits whatever is still held back (a tool call without a result yet, in its
	// current form). What Finish emits, and everything emitted since the last settled line, is
	// provisional: when the file grows, the framework truncates the chat back to the first
	// provisional entry and re-parses from the checkpoint, so a tool result that arrives later
	// still lands on its call.
	Finish(ctx context.Context, out Output) error
}

// Output receives what a parser reads.
type Output interface {
	// Emit hands over one capture op. Ops of one source are applied in the order emitted; a
	// chat op must come before the entries, runs and truncations of that chat. Entries of one
	// chat emitted one at a time are batched by the framework.
	Emit(op annals.CaptureOp) error
	// TitleBySourceID asks for a title for the chat holding the entry whose SourceIDs contain
	// sourceID, wherever that chat came from (Claude Code writes a conversation's summary into
	// a later session's file). It is applied after the import, only to a chat without a title,
	// and kept until such a chat exists.
	TitleBySourceID(sourceID, title string)
	// TitleForChat asks for a title for the chat chatID (a title the source gave the session
	// after it started). Like TitleBySourceID, it is applied after the import, only to a chat
	// without a title; the first title asked for a chat in one import wins.
	TitleForChat(chatID, title string)
	// Warnf reports a problem with one line or record (line 0 when the source has no lines).
	// The import of the source goes on.
	Warnf(line int, format string, args ...any)
}

// Formats returns every format annals imports, in detection order, as a new slice each time.
func Formats() []Format {
	formats := []Format{
		claudeCode{},
		claudeCodeWeb{},
		qwenCode{},
		codex{},
		gemini{},
		aider{},
		chatGPT{},
		// The other engineer's formats (OpenCode, Copilot CLI, Cursor, llm logs.db, lanius,
		// loomcycle, Tau) go here, before the generic message arrays.
		openCode{},
		copilotCLI{},
		cursor{},
		cursorStore{},
		llmLogs{},
		tau{},
		loomcycle{},
		lanius{},
		kimiCLI{},
		goose{},
		crush{},
		continueDev{},
		copilotChat{},
		openHands{},
		amp{},
		factoryDroid{},
		cursorIDE{},
	}
	formats = append(formats, clineFormats()...)
	// The generic formats last: they claim what no tool's own format does.
	return append(formats, annalsExport{}, messages{})
}

// Lookup returns the format called name among formats.
func Lookup(formats []Format, name string) (Format, bool) {
	for _, f := range formats {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Names lists the names of formats, in order.
func Names(formats []Format) []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name()
	}
	return out
}
