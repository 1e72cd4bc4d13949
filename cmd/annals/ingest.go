package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/annals-dev/annals/internal/human"

	"github.com/annals-dev/annals/ingest"
)

func runIngest(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("ingest", "[flags] [FILE|-]", "Read the annals capture format (JSON Lines: chat, entry, run and truncate\nrecords; see docs/FORMAT.md) from FILE, or standard input when FILE is - or absent.\nThe whole input is validated before anything is written; it is then applied in\nbatches, each one transaction. Ingesting the same input again changes nothing.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	batch := fs.Int("batch", ingest.DefaultBatchSize, "records per transaction")
	quiet := fs.Bool("quiet", false, "no progress display")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usagef("ingest reads one FILE (or - for standard input), got %d arguments", fs.NArg())
	}
	var in io.Reader = m.Stdin
	name := "standard input"
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("cannot read %s: %w", fs.Arg(0), err)
		}
		defer f.Close()
		in, name = f, fs.Arg(0)
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	var bar *progressLine
	if !*quiet && m.IsTerminal(m.Stderr) {
		bar = &progressLine{w: m.Stderr}
	}
	// Through the redacting capture path: what is stored is already scrubbed.
	report, err := ingest.Ingest(ctx, a.capture, in, ingest.Options{
		BatchSize: *batch,
		Progress: func(p ingest.Progress) {
			if bar != nil {
				bar.update(p)
			}
		},
	})
	if bar != nil {
		bar.done()
	}
	if err != nil {
		if report != nil && report.Batches > 0 {
			fmt.Fprintf(m.Stderr, "annals: %s (%s) committed before the failure; fix the input and ingest it again: committed records are skipped\n", plural(report.Batches, "batch was", "batches were"), plural(report.EntriesAppended, "entry", "entries"))
		}
		if format := importFormatOf(fs.Arg(0)); fs.NArg() == 1 && format != "" && report.Batches == 0 {
			return usagef("%s is a %s file, not the capture format: import it with 'annals import --format %s %s'", name, format, format, name)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := m.optimizeAfterBulkLoad(ctx, a, report.EntriesAppended); err != nil {
		return err
	}
	if a.store != nil {
		m.embedCaptured(a.ctx, a.base, !*quiet && m.IsTerminal(m.Stderr))
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(report)
	}
	return writeIngestReport(m.Stdout, name, report)
}

// bulkLoadEntries is the size of a load after which the full-text indexes are merged: a bulk
// load leaves many segments that every search then seeks (docs/BENCHMARKS.md).
const bulkLoadEntries = 50000

// optimizeAfterBulkLoad merges the store's full-text indexes after a large load, for stores
// that have the operation (SQLite); it takes seconds at a million entries.
func (m *Main) optimizeAfterBulkLoad(ctx context.Context, a *app, appended int) error {
	opt, ok := a.store.(interface{ Optimize(context.Context) error })
	if !ok || appended < bulkLoadEntries {
		return nil
	}
	if m.IsTerminal(m.Stderr) {
		fmt.Fprint(m.Stderr, "merging the search indexes…")
		defer fmt.Fprint(m.Stderr, "\r\033[K")
	}
	return opt.Optimize(ctx)
}

func writeIngestReport(w io.Writer, name string, r *ingest.Report) error {
	rate := 0.0
	if secs := r.Duration.Seconds(); secs > 0 {
		rate = float64(r.EntriesAppended) / secs
	}
	fmt.Fprintf(w, "Ingested %s: %s in %s (%.0f entries/s)\n", name, plural(r.Lines, "line", "lines"), r.Duration.Round(time.Millisecond), rate)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "chats created\t%d\t\n", r.ChatsCreated)
	fmt.Fprintf(tw, "chats already present\t%d\t\n", r.ChatsUnchanged)
	fmt.Fprintf(tw, "entries appended\t%d\t\n", r.EntriesAppended)
	fmt.Fprintf(tw, "entries already present\t%d\t\n", r.EntriesSkipped)
	fmt.Fprintf(tw, "entries removed by truncation\t%d\t\n", r.EntriesRemoved)
	fmt.Fprintf(tw, "runs recorded\t%d\t\n", r.RunsRecorded)
	return tw.Flush()
}

// progressLine redraws one status line on a terminal.
type progressLine struct {
	w     io.Writer
	last  time.Time
	drawn bool
}

func (p *progressLine) update(pr ingest.Progress) {
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	pct := ""
	if pr.TotalBytes > 0 {
		pct = fmt.Sprintf(" %3.0f%%", 100*float64(pr.Bytes)/float64(pr.TotalBytes))
	}
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.EntriesAppended) / s
	}
	verb := "validating"
	if pr.Phase == ingest.PhaseApply {
		verb = "writing"
	}
	fmt.Fprintf(p.w, "\r\033[K%s%s  %s  %s  %s  %s  %.0f entries/s",
		verb, pct, plural(pr.Lines, "line", "lines"), human.Bytes(pr.Bytes), plural(pr.ChatsCreated, "chat", "chats"), plural(pr.EntriesAppended, "entry", "entries"), rate)
	p.drawn = true
}

func (p *progressLine) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
