package main

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// newImporter wires an importer over the sink: writes through its capture path, the import
// state in its state store, titles through its chats, progress on a terminal.
func (m *Main) newImporter(sink *importSink, formats []importer.Format, o importFlags) (*importer.Importer, *importProgress, error) {
	var store importer.Store = noImportState{}
	if sink.state != nil {
		store = importStore{CaptureStore: sink.capture, ImportStateStore: sink.state, sameDB: sink.local != nil}
	}
	opts := importer.Options{
		Formats:   formats,
		DryRun:    *o.dryRun,
		BatchSize: *o.batch,
		Redact:    sink.redact(),
		Logger:    slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		// Into the local database, small sources are written several to a transaction when its
		// store can (SQLite; its CaptureEach is the same redacting capture path as its Capture).
		WriteTogether: sink.local != nil && canCaptureEach(sink.capture),
	}
	if sink.chats != nil {
		opts.Titles = sink.titles()
	}
	opts.Agents = sink.agents
	if principal := annals.PrincipalFromContext(sink.ctx); principal != nil {
		opts.TenantID, opts.UserID, opts.AgentID = principal.TenantID, principal.UserID, principal.AgentID
	}
	var bar *importProgress
	if !*o.quiet && !*o.asJSON && m.IsTerminal(m.Stderr) {
		bar = &importProgress{w: m.Stderr}
		opts.Progress = bar.update
	}
	return importer.New(store, opts), bar, nil
}

// importStatus prints the imported sources and whether they still exist.
func (m *Main) importStatus(sink *importSink, im *importer.Importer, asJSON bool) error {
	srcs, err := im.Status(sink.ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"sources": srcs})
	}
	return writeImportStatus(m.Stdout, srcs)
}

// importWatch imports, then keeps importing what changes until Ctrl-C.
func (m *Main) importWatch(sink *importSink, im *importer.Importer, bar *importProgress, paths []string, asJSON bool) error {
	home, _ := m.HomeDir()
	if len(paths) == 0 && home == "" {
		return annals.Errorf(annals.EINVALID, "no home directory to find default locations in; name the paths to watch")
	}
	wopts := importer.WatchOptions{Paths: paths, OnReport: func(r *importer.Report) {
		if bar != nil {
			bar.done()
		}
		m.embedCaptured(sink.ctx, sink.embeddings, bar != nil)
		if asJSON {
			_ = json.NewEncoder(m.Stdout).Encode(r)
			return
		}
		writeWatchLine(m.Stdout, r)
	}}
	if len(paths) == 0 {
		wopts.Home = home
	}
	if sink.local != nil {
		// A long-running capture pushes what it captures, as annals serve does.
		logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
		rep, err := m.startReplication(sink.ctx, sink.local, logger, false)
		if err != nil {
			return err
		}
		defer rep.stop()
	}
	fmt.Fprintln(m.Stderr, "annals: watching for new and changed transcripts; press Ctrl-C to stop")
	return importer.Watch(sink.ctx, im, wopts)
}
