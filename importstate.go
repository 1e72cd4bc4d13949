package annals

import (
	"context"
	"encoding/json"
	"time"
)

// ImportSource is what a store remembers about one source an importer read (a transcript file,
// an export, another tool's database), so that importing again reads only what changed and so
// that a source that later disappears can be reported as gone while its chats are kept.
type ImportSource struct {
	// Path is the source's absolute path: the key.
	Path string `json:"path"`
	// Format is the importer format that read it ("claude-code").
	Format string `json:"format"`
	// Size and ModTime are the source's as of the last import.
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	// Hash is the hex SHA-256 of what was imported: the whole content for a source read whole,
	// the bytes before Offset for an incrementally read line file (so a file that was rewritten
	// rather than appended to is recognised and read again from the start).
	Hash string `json:"hash,omitempty"`
	// Offset is, for a line file, the byte offset just after the last line the import can resume
	// after; Line is the number of lines before it; State is the parser's own state there.
	Offset int64           `json:"offset,omitempty"`
	Line   int             `json:"line,omitempty"`
	State  json.RawMessage `json:"state,omitempty"`
	// Provisional lists, per chat, the first entry imported after Offset. Those entries were
	// stored in a preliminary form (a tool call still waiting for its result); the next import
	// of the grown file truncates the chat back to them before reading on from Offset.
	Provisional []ProvisionalEntry `json:"provisional,omitempty"`
	// ChatIDs are the chats this source produced.
	ChatIDs []string `json:"chat_ids,omitempty"`
	// Entries counts the entries read from the source over all imports (appended or already
	// present).
	Entries int64 `json:"entries"`
	// ImportedAt is when the source was last read; GoneAt, when set, is when an import found
	// the source missing. The chats stay; a source that comes back clears GoneAt.
	ImportedAt time.Time  `json:"imported_at"`
	GoneAt     *time.Time `json:"gone_at,omitempty"`
	// LastError is the last failure reading the source, empty after a success.
	LastError string `json:"last_error,omitempty"`
}

// ProvisionalEntry names one chat's first provisional entry.
type ProvisionalEntry struct {
	ChatID  string `json:"chat_id"`
	EntryID string `json:"entry_id"`
}

// ImportSourceFilter selects import sources. Empty fields do not constrain.
type ImportSourceFilter struct {
	// Format keeps sources of this format.
	Format string
	// PathPrefix keeps sources whose path starts with it (a directory and what is beneath it).
	PathPrefix string
	// GoneOnly keeps sources marked gone.
	GoneOnly bool
	// ChatID keeps sources that produced this chat.
	ChatID string
}

// PendingTitle is a title waiting for its chat: a source named the conversation that ends at an
// entry with this source id before the entry itself was imported.
type PendingTitle struct {
	SourceID  string    `json:"source_id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
}

// ImportStateStore keeps the importers' bookkeeping. It is separate from Store because only a
// local importing store needs it; the SQLite store implements both.
//
// Errors: not_found (FindImportSource and ChatIDBySourceID when there is none), invalid (an
// empty path or id), forbidden (the store is read-only; writes only), unavailable, internal.
type ImportStateStore interface {
	// FindImportSource returns the state of the source at path.
	FindImportSource(ctx context.Context, path string) (*ImportSource, error)
	// FindImportSources returns the matching sources ordered by path.
	FindImportSources(ctx context.Context, filter ImportSourceFilter) ([]*ImportSource, error)
	// SaveImportSource inserts or replaces the state of src.Path.
	SaveImportSource(ctx context.Context, src *ImportSource) error
	// MarkImportSourceGone records that the source at path no longer exists, keeping the
	// earliest time it was found missing. A path that was never imported is not_found.
	MarkImportSourceGone(ctx context.Context, path string, at time.Time) error

	// SavePendingTitle remembers a title for the chat that will hold sourceID (the latest
	// title for one source id wins).
	SavePendingTitle(ctx context.Context, t PendingTitle) error
	// FindPendingTitles returns every pending title, oldest first.
	FindPendingTitles(ctx context.Context) ([]PendingTitle, error)
	// DeletePendingTitle forgets the pending title of sourceID (absent is not an error).
	DeletePendingTitle(ctx context.Context, sourceID string) error
	// ChatIDBySourceID returns the id of a chat holding an entry whose source ids include
	// sourceID.
	ChatIDBySourceID(ctx context.Context, sourceID string) (string, error)
}

// ImportCaptureStore is a CaptureEachStore that saves, in the transaction of the lists it
// applies, the import state of the sources those lists came from: a crash after the commit
// leaves every source's data and state, and a crash before it neither, so the next import reads
// again exactly what was not stored (docs/IMPORT.md). The SQLite store implements it.
type ImportCaptureStore interface {
	CaptureEachStore
	// CaptureEachSaving applies lists as CaptureEach does and then, in the same transaction,
	// saves (as SaveImportSource) each state that states returns for the lists' results; a nil
	// state saves nothing. states may be called more than once (a transaction tried again) and
	// must not change anything of its own. All or nothing: on an error neither the lists nor the
	// states are stored.
	CaptureEachSaving(ctx context.Context, lists [][]CaptureOp, states func([]*CaptureResult) []*ImportSource) ([]*CaptureResult, error)
}
