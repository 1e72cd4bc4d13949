package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

func runImport(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("import", "[flags] [FORMAT] [PATH...]", `Import the histories that agent tools keep on this machine (docs/IMPORT.md).

With no PATH, every supported tool's default location is searched (Claude Code's
~/.claude/projects, Codex's ~/.codex/sessions, Gemini CLI's ~/.gemini/tmp, ...) and
everything found is imported. FORMAT limits the import to one format; PATH names files or
directories (each file's format is detected unless FORMAT is given). A loomcycle
deployment on PostgreSQL is named by its connection URL instead of a path:
annals import --format loomcycle postgres://user@host:5432/loomcycle (the password, if the
URL holds one, is never written down; PGPASSWORD and ~/.pgpass work too).

Importing again reads only what changed: a file whose size and time are the same is skipped,
and lines appended to a JSON Lines transcript are read from where the last import stopped.
Everything imported passes through redaction. Formats: `+strings.Join(importer.Names(importer.Formats()), ", "))
	c := commonFlags(fs)
	c.local = true // the import state lives in the local database; replication carries chats on
	o := importFlags{
		asJSON: fs.Bool("json", false, "print the report (or --status) as JSON"),
		dryRun: fs.Bool("dry-run", false, "read and count, write nothing"),
		watch:  fs.Bool("watch", false, "after importing, keep watching the locations and import changes as they happen"),
		status: fs.Bool("status", false, "list the imported sources and whether they still exist, then exit"),
		list:   fs.Bool("list", false, "list the formats, their default locations and whether they exist on this machine, then exit"),
		quiet:  fs.Bool("quiet", false, "no progress display"),
		batch:  fs.Int("batch", importer.DefaultBatchSize, "entries per transaction"),
	}
	formatName := fs.String("format", "", "read every PATH as this format, as the FORMAT argument does")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	formats, format, paths, err := importTargets(fs.Args(), *formatName)
	if err != nil {
		return err
	}
	if *o.watch && *o.dryRun {
		return usagef("--watch and --dry-run do not go together: a watch writes what it finds")
	}
	for _, p := range paths {
		if *o.watch && importer.IsServerURL(p) {
			return usagef("--watch watches files; a database server cannot be watched (import it again, e.g. on a schedule, to pick up what is new)")
		}
	}
	if *o.list {
		home, _ := m.HomeDir()
		return writeImportList(m.Stdout, formats, home, *o.asJSON)
	}
	a, err := m.open(ctx, c, *o.dryRun || *o.status)
	if err != nil && *o.status && annals.ErrorCode(err) == annals.ENOTFOUND {
		fmt.Fprintln(m.Stdout, "Nothing imported yet.")
		return nil
	}
	if err != nil && *o.dryRun && annals.ErrorCode(err) == annals.ENOTFOUND {
		// A dry run before the first import: there is no database, so nothing was imported
		// yet and nothing will be written.
		a, err = &app{ctx: annals.NewContextWithPrincipal(ctx, nil)}, nil
	}
	if err != nil {
		return err
	}
	im, bar, err := m.newImporter(a, formats, o)
	if err != nil {
		return err
	}
	switch {
	case *o.status:
		return m.importStatus(a, im, *o.asJSON)
	case *o.watch:
		return m.importWatch(a, im, bar, paths, *o.asJSON)
	}
	home, _ := m.HomeDir()
	report, unknown, err := im.ImportLocations(a.ctx, home, paths, format)
	reportUnknown(m.Stderr, unknown)
	if bar != nil {
		bar.done()
	}
	return m.finishImport(a, report, err, len(paths) == 0, *o.asJSON)
}

// finishImport prints the report and turns the outcome into the command's error: interrupted,
// failed, some sources failed, or nil.
func (m *Main) finishImport(a *app, report *importer.Report, err error, defaults, asJSON bool) error {
	interrupted := err != nil && a.ctx.Err() != nil
	if report != nil {
		if asJSON {
			if jerr := json.NewEncoder(m.Stdout).Encode(report); jerr != nil {
				return jerr
			}
		} else {
			writeImportReport(m.Stdout, m.Stderr, report, defaults, interrupted)
		}
	}
	if interrupted {
		return annals.Errorf(annals.EUNAVAILABLE, "interrupted: %d of %d sources were imported and are kept; run the same import again to continue", report.Done, report.Sources)
	}
	if err != nil {
		return err
	}
	if len(report.Errors) > 0 {
		return annals.Errorf(annals.EUNAVAILABLE, "%d of %d sources could not be imported (listed above); the others were", len(report.Errors), report.Sources)
	}
	return nil
}

// importFlags are the flags of annals import.
type importFlags struct {
	asJSON, dryRun, watch, status, quiet, list *bool
	batch                                      *int
}

// importTargets reads the arguments of annals import: an optional FORMAT (a path named like a
// format is a path), then paths. --format names the format instead.
func importTargets(args []string, name string) ([]importer.Format, importer.Format, []string, error) {
	formats := importer.Formats()
	if name != "" {
		f, ok := importer.Lookup(formats, name)
		if !ok {
			return nil, nil, nil, usagef("unknown --format %q (want one of: %s)", name, strings.Join(importer.Names(formats), ", "))
		}
		return []importer.Format{f}, f, args, nil
	}
	var format importer.Format
	paths := args
	if len(paths) > 0 {
		if f, ok := importer.Lookup(formats, paths[0]); ok {
			if _, err := os.Stat(paths[0]); err != nil {
				format, paths = f, paths[1:]
			}
		} else if _, err := os.Stat(paths[0]); err != nil && !strings.ContainsAny(paths[0], `/\.`) {
			return nil, nil, nil, usagef("unknown format %q (want one of: %s), and no such file", paths[0], strings.Join(importer.Names(formats), ", "))
		}
	}
	if format != nil {
		formats = []importer.Format{format}
	}
	return formats, format, paths, nil
}

// newImporter wires an importer over the app: writes through the redacting capture path, the
// import state through the store, titles through the title setter, progress on a terminal.
func (m *Main) newImporter(a *app, formats []importer.Format, o importFlags) (*importer.Importer, *importProgress, error) {
	var store importer.Store = noImportState{}
	if a.store != nil {
		state, ok := a.store.(annals.ImportStateStore)
		if !ok {
			return nil, nil, annals.Errorf(annals.EINVALID, "import needs a database that keeps import state (a SQLite database); this one does not")
		}
		store = importStore{CaptureStore: a.capture, ImportStateStore: state}
	}
	opts := importer.Options{
		Formats:   formats,
		DryRun:    *o.dryRun,
		BatchSize: *o.batch,
		Logger:    slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if a.store != nil {
		opts.Titles = importTitles(a)
	}
	if principal := annals.PrincipalFromContext(a.ctx); principal != nil {
		opts.TenantID, opts.UserID = principal.TenantID, principal.UserID
	}
	var bar *importProgress
	if !*o.quiet && !*o.asJSON && m.IsTerminal(m.Stderr) {
		bar = &importProgress{w: m.Stderr}
		opts.Progress = bar.update
	}
	return importer.New(store, opts), bar, nil
}

// importStatus prints the imported sources and whether they still exist.
func (m *Main) importStatus(a *app, im *importer.Importer, asJSON bool) error {
	srcs, err := im.Status(a.ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"sources": srcs})
	}
	return writeImportStatus(m.Stdout, srcs)
}

// importWatch imports, then keeps importing what changes until Ctrl-C.
func (m *Main) importWatch(a *app, im *importer.Importer, bar *importProgress, paths []string, asJSON bool) error {
	home, _ := m.HomeDir()
	if len(paths) == 0 && home == "" {
		return annals.Errorf(annals.EINVALID, "no home directory to find default locations in; name the paths to watch")
	}
	wopts := importer.WatchOptions{Paths: paths, OnReport: func(r *importer.Report) {
		if bar != nil {
			bar.done()
		}
		if asJSON {
			_ = json.NewEncoder(m.Stdout).Encode(r)
			return
		}
		writeWatchLine(m.Stdout, r)
	}}
	if len(paths) == 0 {
		wopts.Home = home
	}
	fmt.Fprintln(m.Stderr, "annals: watching for new and changed transcripts; press Ctrl-C to stop")
	return importer.Watch(a.ctx, im, wopts)
}

// ImportConfig is the import section of the config file.
type ImportConfig struct {
	// Watch makes `annals serve` import the default locations (and Paths) when it starts and
	// keep watching them, as `annals import --watch` does.
	Watch bool `yaml:"watch"`
	// Formats limits the watch to these formats; empty means all.
	Formats []string `yaml:"formats"`
	// Paths are more files or directories to watch besides the default locations.
	Paths []string `yaml:"paths"`
}

func (c *ImportConfig) validate() error {
	all := importer.Formats()
	for i, name := range c.Formats {
		if _, ok := importer.Lookup(all, name); !ok {
			return annals.Errorf(annals.EINVALID, "import.formats[%d]: unknown format %q (want one of: %s)", i, name, strings.Join(importer.Names(all), ", "))
		}
	}
	for i, p := range c.Paths {
		if p == "" {
			return annals.Errorf(annals.EINVALID, "import.paths[%d] is empty", i)
		}
	}
	return nil
}

// startImportWatch runs the watch configured by import.watch until ctx ends, logging what it
// imports; `annals serve` calls it in a goroutine when the config asks for it. It returns at
// once when the config does not ask for a watch.
func (m *Main) startImportWatch(ctx context.Context, a *app, logger *slog.Logger) error {
	cfg := a.cfg.Import
	if !cfg.Watch {
		return nil
	}
	state, ok := a.store.(annals.ImportStateStore)
	if !ok {
		return annals.Errorf(annals.EINVALID, "import.watch needs a database that keeps import state (a SQLite database)")
	}
	formats := importer.Formats()
	if len(cfg.Formats) > 0 {
		var some []importer.Format
		for _, name := range cfg.Formats {
			f, _ := importer.Lookup(formats, name) // validated at load
			some = append(some, f)
		}
		formats = some
	}
	opts := importer.Options{Formats: formats, Logger: logger, Titles: importTitles(a)}
	if p := annals.PrincipalFromContext(a.ctx); p != nil {
		opts.TenantID, opts.UserID = p.TenantID, p.UserID
	}
	im := importer.New(importStore{CaptureStore: a.capture, ImportStateStore: state}, opts)
	home, _ := m.HomeDir()
	return importer.Watch(ctx, im, importer.WatchOptions{Home: home, Paths: cfg.Paths, OnReport: func(r *importer.Report) {
		if r.Entries > 0 || r.Chats > 0 || r.Gone > 0 || len(r.Errors) > 0 {
			logger.Info("import", "sources", r.Done, "chats", r.Chats, "entries", r.Entries, "gone", r.Gone, "errors", len(r.Errors))
		}
	}})
}
