package main

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/redact"
)

// importStore joins the redacting capture path and the store's import state.
type importStore struct {
	annals.CaptureStore
	annals.ImportStateStore
	// sameDB: the capture path writes the database that keeps the import state (a local
	// database), so both can be saved in one transaction.
	sameDB bool
}

// CaptureEach applies several sources' ops in one transaction when the capture path can (the
// local SQLite database); otherwise it writes nothing and refuses, and the importer writes the
// sources one by one (importer.Importer uses it for small sources).
func (s importStore) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	if each, ok := s.CaptureStore.(annals.CaptureEachStore); ok {
		return each.CaptureEach(ctx, lists)
	}
	return nil, history.ErrNoCaptureEach
}

// CaptureEachSaving applies several sources' ops and saves their import states in one
// transaction when the capture path can and writes the database that keeps the import state
// (the local SQLite database: both are the same database there); otherwise it writes nothing and
// refuses.
func (s importStore) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	if st, ok := s.CaptureStore.(annals.ImportCaptureStore); ok && s.CanCaptureEachSaving() {
		return st.CaptureEachSaving(ctx, lists, states)
	}
	return nil, history.ErrNoCaptureEachSaving
}

// CanCaptureEachSaving reports whether CaptureEachSaving writes: the capture path can, and its
// store is the one keeping the import state (importStore.sameDB).
func (s importStore) CanCaptureEachSaving() bool {
	if !s.sameDB {
		return false
	}
	if r, ok := s.CaptureStore.(interface{ CanCaptureEachSaving() bool }); ok {
		return r.CanCaptureEachSaving()
	}
	_, ok := s.CaptureStore.(annals.ImportCaptureStore)
	return ok
}

// canCaptureEach reports whether a capture path applies several lists in one transaction.
func canCaptureEach(c annals.CaptureStore) bool {
	if r, ok := c.(interface{ CanCaptureEach() bool }); ok {
		return r.CanCaptureEach()
	}
	_, ok := c.(annals.CaptureEachStore)
	return ok
}

// noImportState is the store of a dry run without a database: nothing was imported before,
// and a dry run writes nothing.
type noImportState struct{}

var errNoDatabase = annals.Errorf(annals.EINVALID, "no database (a dry run writes nothing)")

func (noImportState) Capture(context.Context, []annals.CaptureOp) (*annals.CaptureResult, error) {
	return nil, errNoDatabase
}
func (noImportState) FindImportSource(_ context.Context, path string) (*annals.ImportSource, error) {
	return nil, annals.Errorf(annals.ENOTFOUND, "no import state for %s", path)
}
func (noImportState) FindImportSources(context.Context, annals.ImportSourceFilter) ([]*annals.ImportSource, error) {
	return nil, nil
}
func (noImportState) SaveImportSource(context.Context, *annals.ImportSource) error {
	return errNoDatabase
}
func (noImportState) MarkImportSourceGone(context.Context, string, time.Time) error {
	return errNoDatabase
}
func (noImportState) SavePendingTitle(context.Context, annals.PendingTitle) error {
	return errNoDatabase
}
func (noImportState) FindPendingTitles(context.Context) ([]annals.PendingTitle, error) {
	return nil, nil
}
func (noImportState) DeletePendingTitle(context.Context, string) error { return errNoDatabase }
func (noImportState) ChatIDBySourceID(_ context.Context, id string) (string, error) {
	return "", annals.Errorf(annals.ENOTFOUND, "no chat holds source id %s", id)
}

// importSink is where an import writes: the capture path, the import state, and the chats it
// titles. Locally all three are the database; through --server the first and last are the
// server and the state is a local file (import_server.go).
type importSink struct {
	// ctx carries the principal: the CLI's locally, none through a server (the key decides).
	ctx     context.Context
	capture annals.CaptureStore
	// state is nil for a dry run before the first import (there is nothing to read).
	state    annals.ImportStateStore
	chats    importer.ChatTitleStore
	redactor *redact.Redactor
	// agents gives chats imported before chats had agents theirs: the local database only
	// (nil through a server, whose chats keep none; docs/IMPORT.md).
	agents importer.AgentStore
	// embeddings embeds what was imported (a local database; a server's own worker does it).
	embeddings history.Backfiller
	// local is the app of a local database (nil through a server): a watch pushes its outbox
	// to the configured remote while it runs.
	local *app
}

// localImportSink is the sink of an app over a local database.
func localImportSink(a *app) (*importSink, error) {
	state, ok := a.store.(annals.ImportStateStore)
	if !ok {
		return nil, annals.Errorf(annals.EINVALID, "import needs a database that keeps import state (a SQLite database); this one does not")
	}
	sink := &importSink{ctx: a.ctx, capture: a.capture, state: state, chats: a.store, redactor: a.redactor, embeddings: a.base, local: a}
	if adopter, ok := a.store.(importer.AgentStore); ok {
		sink.agents = adopter
	}
	return sink, nil
}

// openImport opens where annals import writes: the local database, or the server named by
// --server or ANNALS_SERVER with the import state in a local file of its own.
func (m *Main) openImport(ctx context.Context, c *common, readOnly bool) (*importSink, error) {
	if m.Getenv("ANNALS_SERVER") != "" {
		return m.openServerImport(ctx, c, readOnly)
	}
	c.unmapped = true // see storeOpen.unmapped
	a, err := m.open(ctx, c, readOnly)
	if err != nil {
		return nil, err
	}
	return localImportSink(a)
}

// titles gives an imported chat the title its source named, unless a person gave it one; a
// derived title (the first prompt) gives way to the source's. Titles are redacted like every
// other imported text.
func (s *importSink) titles() *importer.StoreTitles {
	clean := s.redact()
	if clean == nil {
		clean = func(s string) string { return s }
	}
	return &importer.StoreTitles{Store: s.chats, Clean: clean}
}

// redact is the sink's redactor as importer.Options.Redact wants it (nil without one).
func (s *importSink) redact() func(string) string {
	if s.redactor == nil {
		return nil
	}
	return func(t string) string {
		out, _ := s.redactor.RedactText(t)
		return out
	}
}
