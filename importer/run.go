package importer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Store is what an import writes to: the capture path (give it history.RedactingCapture's
// store so redaction applies) and the import bookkeeping.
type Store interface {
	annals.CaptureStore
	annals.ImportStateStore
}

// TitleSetter gives a chat a title when it has none. The command line implements it with the
// redactor in front of ChatStore.UpdateChat, so a title a person gave is never overwritten.
type TitleSetter interface {
	// SetTitleIfEmpty reports whether it set the title. Errors: not_found (no such chat),
	// and the store's.
	SetTitleIfEmpty(ctx context.Context, chatID, title string) (bool, error)
}

// Defaults of Options.
const (
	DefaultBatchSize   = 1000
	DefaultMaxWarnings = 200
)

// Options tune an Importer. The zero value imports every format of Formats().
type Options struct {
	// Formats are the formats to detect and import; nil means Formats().
	Formats []reader.Format
	// DryRun parses and counts without writing anything, import state included.
	DryRun bool
	// BatchSize is how many entries one transaction appends at most; 0 means DefaultBatchSize.
	BatchSize int
	// Titles applies titles that a source gives a chat after the chat was created (Claude
	// Code's summary lines). Nil leaves them pending in the import state.
	Titles TitleSetter
	// Redact, when set, redacts a title derived from a prompt or a sub-agent's description
	// before it is cut to reader.MaxDerivedTitle characters (the command line passes its
	// redactor): the capture path redacts it too, but only after the cut, when a secret the cut
	// runs through is no longer recognized.
	Redact func(string) string
	// Progress, when set, is called after each source and every few thousand entries, from
	// the goroutine running the import.
	Progress func(Progress)
	// MaxWarnings bounds the warnings a Report keeps (the count is always exact); 0 means
	// DefaultMaxWarnings.
	MaxWarnings int
	// Now is the clock; nil means time.Now. Import calls it from two goroutines (reading and
	// writing run apart), so it must be safe for concurrent use.
	Now func() time.Time
	// Logger receives per-source failures; nil discards them.
	Logger *slog.Logger
	// TenantID and UserID own the imported chats (a parser never sets them); an empty
	// TenantID means "local", the tenant of a local database's owner.
	TenantID string
	UserID   string
	// AgentID is the key's own agent when the import runs under a key that has one: every
	// imported chat is then that agent's. Empty gives each chat its tool's agent (chatAgent).
	AgentID string
	// WriteTogether lets Import write several small sources in one transaction when the store
	// is an annals.CaptureEachStore (group.go), saving their import states in that transaction
	// when it is an annals.ImportCaptureStore too. Set it only when the store's CaptureEach and
	// CaptureEachSaving go the way its Capture goes (the same redaction and checks): a wrapper
	// that changes Capture alone would be bypassed.
	WriteTogether bool
	// Agents, when set, gives the chats imported before imported chats had agents their agent
	// on the first Import (fillAgents). Nil leaves them without one.
	Agents AgentStore
}

// Importer imports sources into a store, remembering what it read so that the next run reads
// only what changed. It is not safe for concurrent use; Watch serialises its calls.
type Importer struct {
	store    Store
	opts     Options
	resumers map[string]reader.Resumer // of the whole registry, by name (see withResume)
	// agentRefused is set once the store refused a chat for the agent the importer gave it
	// (a member key without user or agent may create only chats without one): later chats
	// are created without an agent.
	// The writer sets it; the reader, on a goroutine of its own, reads it.
	agentRefused atomic.Bool
	// agentsFilled is set once fillAgents went through the store.
	agentsFilled bool
}

// New returns an Importer writing to store.
func New(store Store, opts Options) *Importer {
	if opts.Formats == nil {
		opts.Formats = Formats()
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.BatchSize > annals.MaxBatchEntries {
		opts.BatchSize = annals.MaxBatchEntries
	}
	if opts.MaxWarnings <= 0 {
		opts.MaxWarnings = DefaultMaxWarnings
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Importer{store: store, opts: opts, resumers: resumers(Formats())}
}

// Formats returns the importer's formats.
func (im *Importer) Formats() []reader.Format { return im.opts.Formats }

// Candidate is one source to import and the format that reads it.
type Candidate struct {
	Path   string
	Format reader.Format
	dsn    string // a database server's connection URL (Path is it without the password)
}

// Discover finds the sources at the default locations of the importer's formats under home,
// each path once (the first format whose pattern matches and whose Detect accepts it wins).
// roots are the directories the patterns start from (what Watch watches).
func (im *Importer) Discover(home string) (cands []Candidate, roots []string) {
	seen := map[string]bool{}
	rootSeen := map[string]bool{}
	for _, f := range im.opts.Formats {
		for _, pat := range f.DefaultPaths(home) {
			if r := GlobRoot(pat); !rootSeen[r] {
				rootSeen[r] = true
				roots = append(roots, r)
			}
			matches, err := Glob(pat)
			if err != nil {
				im.opts.Logger.Warn("import: bad default pattern", "format", f.Name(), "pattern", pat, "err", annals.ErrorDetail(err))
				continue
			}
			for _, p := range matches {
				if seen[p] {
					continue
				}
				if detect(f, p) {
					seen[p] = true
					cands = append(cands, Candidate{Path: p, Format: f})
				}
			}
		}
	}
	return cands, roots
}

// Resolve turns paths given on the command line into candidates. A file is read by format when
// it is given, else by the first format whose Detect accepts it. A directory is one source when
// a format accepts the directory itself; otherwise every file beneath it that a format accepts
// is a source. Files no format accepts are returned as unknown, each once, except the files a
// format knows as companions of its transcripts (see companion).
func (im *Importer) Resolve(paths []string, format reader.Format) (cands []Candidate, unknown []string, err error) {
	formats := im.opts.Formats
	if format != nil {
		formats = []reader.Format{format}
	}
	seen := map[string]bool{}
	add := func(p string, f reader.Format) {
		if !seen[p] {
			seen[p] = true
			cands = append(cands, Candidate{Path: p, Format: f})
		}
	}
	unknownSeen := map[string]bool{}
	skip := func(p string) {
		if !unknownSeen[p] {
			unknownSeen[p] = true
			unknown = append(unknown, p)
		}
	}
	for _, raw := range paths {
		if c, ok, err := serverCandidate(formats, raw); ok {
			if err != nil {
				return nil, nil, err
			}
			if !seen[c.Path] {
				seen[c.Path] = true
				cands = append(cands, c)
			}
			continue
		}
		p, err := filepath.Abs(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("resolving %s: %w", raw, err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot import %s: %w", raw, err)
		}
		if !fi.IsDir() {
			if f := detectAmong(formats, p); f != nil {
				add(p, f)
			} else {
				skip(p)
			}
			continue
		}
		if f := detectAmong(formats, p); f != nil {
			add(p, f)
			continue
		}
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable parts of a tree are skipped, like a default location
			}
			if d.IsDir() {
				if q != p {
					if f := detectAmong(formats, q); f != nil {
						add(q, f)
						return fs.SkipDir
					}
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if f := detectAmong(formats, q); f != nil {
				add(q, f)
			} else if !isCompanion(im.opts.Formats, q) {
				// Reported once, by the caller, and never read as something it is not.
				skip(q)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("walking %s: %w", raw, err)
		}
	}
	return cands, unknown, nil
}

func detectAmong(formats []reader.Format, path string) reader.Format {
	for _, f := range formats {
		if detect(f, path) {
			return f
		}
	}
	return nil
}

// detect runs f.Detect with the head of a regular file, or nil for a directory.
func detect(f reader.Format, path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		return f.Detect(path, nil)
	}
	if !fi.Mode().IsRegular() {
		return false
	}
	head, err := reader.ReadHead(path)
	if err != nil {
		return false
	}
	return f.Detect(path, head)
}

// Import imports every candidate, then applies pending titles and marks the tracked sources of
// the importer's formats that no longer exist as gone. A failure of one source is recorded in
// the report (and in its import state) and does not stop the others; the returned error is for
// what stops the whole run: a cancelled ctx, or a store that cannot be read.
func (im *Importer) Import(ctx context.Context, cands []Candidate) (*Report, error) {
	run := newRun(im)
	run.report.Sources = len(cands)
	run.importPipelined(ctx, cands)
	if err := ctx.Err(); err != nil {
		run.finish()
		return run.report, err
	}
	if !im.opts.DryRun {
		if err := run.applyTitles(ctx); err != nil {
			run.finish()
			return run.report, err
		}
		n, err := run.fillAgents(ctx)
		run.report.Agents += n
		if err != nil {
			run.finish()
			return run.report, err
		}
		if err := run.markGone(ctx); err != nil {
			run.finish()
			return run.report, err
		}
	}
	run.finish()
	return run.report, nil
}

// pipelineDepth bounds how many batches the reader may be ahead of the writer: a batch holds
// at most Options.BatchSize entries, so the memory a pipelined import holds stays bounded.
const pipelineDepth = 4

// importPipelined imports cands with the reading on a goroutine of its own, ahead of the
// writes by at most pipelineDepth batches, and everything else (writes, report, progress) on
// this one. Once ctx ends nothing more is written; the reader stops at its next line.
func (run *runState) importPipelined(ctx context.Context, cands []Candidate) {
	items := make(chan item, pipelineDepth)
	go func() {
		defer close(items)
		for _, c := range cands {
			if ctx.Err() != nil {
				return
			}
			run.im.readJob(ctx, c, run, func(it item) { items <- it })
		}
	}()
	g := newGrouper(run)
	for it := range items {
		// After ctx ends, the rest is drained so the reader ends.
		if g != nil {
			g.add(ctx, it)
		} else {
			run.deliver(ctx, it)
		}
	}
	if g != nil {
		g.end(ctx)
	}
}

// importInline imports cands reading and writing on this goroutine.
func (run *runState) importInline(ctx context.Context, cands []Candidate) {
	for _, c := range cands {
		if ctx.Err() != nil {
			return
		}
		run.im.readJob(ctx, c, run, func(it item) { run.deliver(ctx, it) })
	}
}

// deliver applies it while ctx lasts. Once ctx ended (Ctrl-C) nothing more is written, except
// the import state of a source read whole whose writes all went through: a rerun then finds it
// unchanged, with its entries counted, instead of reading it again to find every entry stored.
func (run *runState) deliver(ctx context.Context, it item) {
	switch {
	case ctx.Err() == nil:
		run.applyItem(ctx, it)
	case it.batch != nil:
		it.job.w.fail(ctx.Err()) // not written: the source's state must not be saved
	case it.job.save && it.job.err == nil && it.job.w.err == nil:
		run.applyItem(context.WithoutCancel(ctx), it)
	}
}

// ImportPath imports one source if a format (the given one, else any) accepts it, for Watch.
// It returns false when no format accepts path.
func (im *Importer) ImportPath(ctx context.Context, path string, format reader.Format) (*Report, bool, error) {
	formats := im.opts.Formats
	if format != nil {
		formats = []reader.Format{format}
	}
	f := detectAmong(formats, path)
	if f == nil {
		return nil, false, nil
	}
	rep, err := im.importSources(ctx, []Candidate{{Path: path, Format: f}})
	return rep, true, err
}

// importSources imports candidates and applies titles, without the gone sweep.
func (im *Importer) importSources(ctx context.Context, cands []Candidate) (*Report, error) {
	run := newRun(im)
	run.report.Sources = len(cands)
	run.importInline(ctx, cands)
	if err := ctx.Err(); err != nil {
		run.finish()
		return run.report, err
	}
	var err error
	if !im.opts.DryRun {
		err = run.applyTitles(ctx)
	}
	run.finish()
	return run.report, err
}

// MarkGone records that the source at path disappeared, if it was ever imported. The chats
// it produced stay in the store.
func (im *Importer) MarkGone(ctx context.Context, path string) (bool, error) {
	if im.opts.DryRun {
		return false, nil
	}
	err := im.store.MarkImportSourceGone(ctx, path, im.opts.Now())
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return false, nil
	}
	return err == nil, err
}

// Status returns the import state of every tracked source of the importer's formats.
func (im *Importer) Status(ctx context.Context) ([]*annals.ImportSource, error) {
	all, err := im.store.FindImportSources(ctx, annals.ImportSourceFilter{})
	if err != nil {
		return nil, err
	}
	var out []*annals.ImportSource
	for _, s := range all {
		if _, ok := Lookup(im.opts.Formats, s.Format); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

type runState struct {
	im     *Importer
	report *Report
	start  time.Time
	titles []annals.PendingTitle
	// chatTitles are titles for chats by id, in the order first asked for.
	chatTitles     map[string]string
	chatTitleOrder []string
	// derived are the derived titles of the chats this run created (SourceID holds the chat
	// id), applied last, to chats that have no title by then.
	derived []annals.PendingTitle
	// lines is the line reader of the goroutine reading the sources (lineReader).
	lines *bufio.Reader
}

func newRun(im *Importer) *runState {
	rep := newReport()
	rep.DryRun = im.opts.DryRun
	return &runState{im: im, report: rep, start: im.opts.Now(), chatTitles: map[string]string{}}
}

func (run *runState) finish() {
	run.report.Duration = run.im.opts.Now().Sub(run.start)
	run.report.sortFormats()
}

// applyItem applies one step of a source: a batch, or the source's end (its state saved and
// its counts added to the report).
func (run *runState) applyItem(ctx context.Context, it item) {
	if it.batch != nil {
		it.job.w.apply(it.batch)
		return
	}
	c := it.job.c
	fr := run.report.format(c.Format.Name())
	fr.Files++
	res, err := run.im.finishSource(ctx, it.job)
	if res != nil {
		fr.add(res)
		run.report.add(res)
	}
	if err != nil && ctx.Err() == nil {
		fr.Errors++
		run.report.Errors = append(run.report.Errors, SourceError{Path: c.Path, Format: c.Format.Name(), Message: describeErr(err)})
		run.im.opts.Logger.Warn("import: source failed", "path", c.Path, "format", c.Format.Name(), "err", annals.ErrorDetail(err))
	}
	run.report.Done++
	run.progress(c.Path)
}

func (run *runState) progress(current string) { run.progressWith(current, &Counts{}) }

// progressWith reports the run so far plus what the current source has done (cur), so a
// large file moves the display while it is read.
func (run *runState) progressWith(current string, cur *Counts) {
	if run.im.opts.Progress == nil {
		return
	}
	run.im.opts.Progress(Progress{
		Sources:  run.report.Sources,
		Done:     run.report.Done,
		Current:  current,
		Chats:    run.report.Chats + cur.Chats,
		Entries:  run.report.Entries + cur.Entries,
		Skipped:  run.report.Skipped + cur.Skipped,
		Warnings: run.report.Warnings + cur.Warnings,
		Elapsed:  run.im.opts.Now().Sub(run.start),
	})
}

// applyTitles saves this run's titles as pending, then gives every pending title whose chat now
// exists to that chat.
func (run *runState) applyTitles(ctx context.Context) error {
	st := run.im.store
	for _, t := range run.titles {
		if err := st.SavePendingTitle(ctx, t); err != nil {
			return fmt.Errorf("import: saving a pending title: %w", err)
		}
	}
	if run.im.opts.Titles == nil {
		return nil
	}
	// A title from the source replaces a derived one, when the setter can tell them apart.
	setSource := run.im.opts.Titles.SetTitleIfEmpty
	if r, ok := run.im.opts.Titles.(TitleReplacer); ok {
		setSource = r.ReplaceDerivedTitle
	}
	for _, chatID := range run.chatTitleOrder {
		set, err := setSource(ctx, chatID, run.chatTitles[chatID])
		if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
			return fmt.Errorf("import: titling chat %s: %w", chatID, err)
		}
		if set {
			run.report.Titled++
		}
	}
	pending, err := st.FindPendingTitles(ctx)
	if err != nil {
		return fmt.Errorf("import: reading pending titles: %w", err)
	}
	for _, t := range pending {
		chatID, err := st.ChatIDBySourceID(ctx, t.SourceID)
		if annals.ErrorCode(err) == annals.ENOTFOUND {
			continue
		}
		if err != nil {
			return fmt.Errorf("import: finding the chat of a title: %w", err)
		}
		set, err := setSource(ctx, chatID, t.Title)
		if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
			return fmt.Errorf("import: titling chat %s: %w", chatID, err)
		}
		if err := st.DeletePendingTitle(ctx, t.SourceID); err != nil {
			return fmt.Errorf("import: clearing a pending title: %w", err)
		}
		if set {
			run.report.Titled++
		}
	}
	// Last, the derived titles of the chats created now: only where nothing better came.
	for _, d := range run.derived {
		set, err := run.im.opts.Titles.SetTitleIfEmpty(ctx, d.SourceID, d.Title)
		if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
			return fmt.Errorf("import: titling chat %s: %w", d.SourceID, err)
		}
		if set {
			run.report.Titled++
		}
	}
	return nil
}

// markGone marks tracked sources of the importer's formats that no longer exist.
func (run *runState) markGone(ctx context.Context) error {
	srcs, err := run.im.Status(ctx)
	if err != nil {
		return fmt.Errorf("import: reading import state: %w", err)
	}
	for _, s := range srcs {
		if s.GoneAt != nil || IsServerURL(s.Path) {
			continue
		}
		if _, err := os.Lstat(s.Path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if _, err := run.im.MarkGone(ctx, s.Path); err != nil {
			return fmt.Errorf("import: marking %s gone: %w", s.Path, err)
		}
		run.report.Gone++
	}
	return nil
}

func describeErr(err error) string {
	var ae *annals.Error
	if errors.As(err, &ae) && ae.Code != annals.EINTERNAL {
		return ae.Message
	}
	return err.Error()
}

// companion is implemented by a format whose tool writes files beside its transcripts that
// are not transcripts themselves (Claude Code's agent-*.meta.json, Kimi CLI's wire.jsonl and
// state.json, OpenCode's storage migration marker). A walk of a directory skips them silently
// instead of listing them as files no format reads.
type companion interface {
	Companion(path string) bool
}

// isCompanion reports whether any of formats knows the file at path as a companion file.
func isCompanion(formats []reader.Format, path string) bool {
	for _, f := range formats {
		if c, ok := f.(companion); ok && c.Companion(path) {
			return true
		}
	}
	return false
}
