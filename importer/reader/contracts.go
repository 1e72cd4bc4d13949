// Package reader is what every source tool's reader shares: the contracts a tool implements
// (Format, and FileParser or LineParser; ServerParser for a database server) and the Output it
// emits capture ops to, and the helpers tools read with (ids, times, metadata and JSON fields,
// detection by a file's first lines, read-only SQLite sources, derived titles, a tool call
// queue). It imports only the root (and the SQLite driver, to read other tools' databases
// read-only): the tools import it, and importer (detection, state, watch, reports) imports the
// tools through its registry, Formats.
package reader

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/annals-dev/annals"
)

// ServerParser is a FileParser whose source may also be a database server, named on the command
// line by a connection URL instead of a path (`annals import loomcycle postgres://me@db/lc`).
// Such a source has no file to stat or hash, so it is read whole on every import; its entries
// are idempotent by id, so a re-read appends only what is new. It is never watched and never
// marked gone.
type ServerParser interface {
	FileParser
	// AcceptsServer reports whether dsn is a connection URL this format reads (by its scheme:
	// it must not connect to find out).
	AcceptsServer(dsn string) bool
}

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
func (s *Source) Open() (io.ReadCloser, error) { return OpenReadOnly(s.Path) }

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

// ProvisionalMarker is implemented by the Output an import hands a FileParser. A database that
// is still being written (a running agent runtime) can hold an entry in a form that will change:
// a tool call whose result has not been recorded yet, a reply still streaming. Its entries are
// idempotent by id, so a later read could never change the stored form; marking the first such
// entry of a chat makes the next import remove it, and every entry after it, before reading the
// source again, so the finished form replaces it (as a LineParser's provisional entries are).
type ProvisionalMarker interface {
	// MarkProvisional marks entryID of chatID, already emitted, as provisional. The first
	// entry marked in a chat counts.
	MarkProvisional(chatID, entryID string)
}
