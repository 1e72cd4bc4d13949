package main

import (
	"context"
	"encoding/json"
	"fmt"
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
Everything imported passes through redaction.

With --server (or ANNALS_SERVER) the files are read here and their chats are captured
through the server, as the key's principal; what was imported from which file (the import
state) is kept on this machine, in a file of its own per server (docs/IMPORT.md). Formats: `+strings.Join(importer.Names(importer.Formats()), ", "))
	c := commonFlags(fs)
	o := importFlags{
		asJSON: fs.Bool("json", false, "print the report (or --status) as JSON"),
		dryRun: fs.Bool("dry-run", false, "read and count, write nothing"),
		watch:  fs.Bool("watch", false, "after importing, keep watching the locations and import changes as they happen (with a remote block, pushing them to the remote)"),
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
	sink, err := m.openImport(ctx, c, *o.dryRun || *o.status)
	if err != nil && *o.status && annals.ErrorCode(err) == annals.ENOTFOUND {
		fmt.Fprintln(m.Stdout, "Nothing imported yet.")
		return nil
	}
	if err != nil && *o.dryRun && annals.ErrorCode(err) == annals.ENOTFOUND {
		// A dry run before the first import: there is no database, so nothing was imported
		// yet and nothing will be written.
		sink, err = &importSink{ctx: annals.NewContextWithPrincipal(ctx, nil)}, nil
	}
	if err != nil {
		return err
	}
	im, bar, err := m.newImporter(sink, formats, o)
	if err != nil {
		return err
	}
	switch {
	case *o.status:
		return m.importStatus(sink, im, *o.asJSON)
	case *o.watch:
		return m.importWatch(sink, im, bar, paths, *o.asJSON)
	}
	home, _ := m.HomeDir()
	report, unknown, err := im.ImportLocations(sink.ctx, home, paths, format)
	reportUnknown(m.Stderr, unknown)
	if bar != nil {
		bar.done()
	}
	m.embedCaptured(sink.ctx, sink.embeddings, bar != nil)
	return m.finishImport(sink.ctx, report, err, len(paths) == 0, *o.asJSON)
}

// finishImport prints the report and turns the outcome into the command's error: interrupted,
// failed, some sources failed, or nil.
func (m *Main) finishImport(ctx context.Context, report *importer.Report, err error, defaults, asJSON bool) error {
	interrupted := err != nil && ctx.Err() != nil
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
		return annals.Errorf(annals.EUNAVAILABLE, "interrupted: %d of %s imported and kept; run the same import again to continue", report.Done, plural(report.Sources, "source", "sources"))
	}
	if err != nil {
		return err
	}
	if len(report.Errors) > 0 {
		return annals.Errorf(annals.EUNAVAILABLE, "%d of %s could not be imported (listed above); the others were", len(report.Errors), plural(report.Sources, "source", "sources"))
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
