package main

import (
	"fmt"
	"github.com/annals-dev/annals/internal/human"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

func writeImportReport(w, errw io.Writer, r *importer.Report, defaults, interrupted bool) {
	verb := "Imported"
	if r.DryRun {
		verb = "Dry run (nothing written):"
	}
	if interrupted {
		// Ctrl-C: say what was done, not that everything was.
		verb = fmt.Sprintf("Interrupted after %d of", r.Done)
		if r.DryRun {
			verb = fmt.Sprintf("Dry run interrupted after %d of", r.Done)
		}
	}
	if r.Sources == 0 {
		if defaults {
			fmt.Fprintln(w, "No transcripts found at the default locations (annals import --help lists them by format; name a PATH to import from elsewhere).")
		} else {
			fmt.Fprintln(w, "Nothing to import.")
		}
		return
	}
	rate := 0.0
	if s := r.Duration.Seconds(); s > 0 {
		rate = float64(r.Entries) / s
	}
	fmt.Fprintf(w, "%s %s in %s (%.0f entries/s)\n", verb, plural(r.Sources, "source", "sources"), r.Duration.Round(time.Millisecond), rate)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "format\tfiles\tunchanged\tchats\tentries\tskipped\tremoved\twarnings\terrors\t\n")
	for _, f := range r.Formats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", f.Format, f.Files, f.Unchanged, f.Chats, f.Entries, f.Skipped, f.Removed, f.Warnings, f.Errors)
	}
	tot := r.Total()
	if len(r.Formats) > 1 {
		fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", tot.Files, tot.Unchanged, tot.Chats, tot.Entries, tot.Skipped, tot.Removed, tot.Warnings, tot.Errors)
	}
	_ = tw.Flush()
	if r.Titled > 0 {
		fmt.Fprintf(w, "%s the title %s source gave %s.\n", plural(r.Titled, "chat got", "chats got"), human.Noun(r.Titled, "its", "their"), human.Noun(r.Titled, "it", "them"))
	}
	if r.Agents > 0 {
		fmt.Fprintf(w, "%s imported before chats had agents got %s agent.\n", plural(r.Agents, "chat", "chats"), human.Noun(r.Agents, "its", "their"))
	}
	if r.Gone > 0 {
		fmt.Fprintf(w, "%d imported sources no longer exist; their chats are kept (annals import --status lists them).\n", r.Gone)
	}
	const show = 10
	for i, wn := range r.WarningList {
		if i == show {
			fmt.Fprintf(errw, "annals: ... and %d more skipped lines (--json lists up to %d)\n", r.Warnings-show, len(r.WarningList))
			break
		}
		if wn.Line > 0 {
			fmt.Fprintf(errw, "annals: %s:%d: %s (skipped)\n", wn.Path, wn.Line, wn.Message)
		} else {
			fmt.Fprintf(errw, "annals: %s: %s (skipped)\n", wn.Path, wn.Message)
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(errw, "annals: %s (%s): %s\n", e.Path, e.Format, e.Message)
	}
}

func writeWatchLine(w io.Writer, r *importer.Report) {
	if r.Entries == 0 && r.Chats == 0 && r.Gone == 0 && len(r.Errors) == 0 {
		return
	}
	fmt.Fprintf(w, "%s  %s  %s  %s", time.Now().Format("15:04:05"), plural(r.Done, "source", "sources"), plural(r.Chats, "chat", "chats"), plural(r.Entries, "entry", "entries"))
	if r.Gone > 0 {
		fmt.Fprintf(w, "  %d gone", r.Gone)
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "  %s (first: %s: %s)", plural(len(r.Errors), "error", "errors"), r.Errors[0].Path, r.Errors[0].Message)
	}
	fmt.Fprintln(w)
}

func writeImportStatus(w io.Writer, srcs []*annals.ImportSource) error {
	if len(srcs) == 0 {
		fmt.Fprintln(w, "Nothing imported yet.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "FORMAT\tSTATE\tCHATS\tENTRIES\tIMPORTED\tPATH\n")
	gone := 0
	for _, s := range srcs {
		st := "ok"
		switch {
		case s.GoneAt != nil:
			st = "gone since " + s.GoneAt.Local().Format("2006-01-02")
			gone++
		case s.LastError != "":
			st = "error: " + s.LastError
			if len(st) > 60 {
				st = st[:60] + "..."
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", s.Format, st, len(s.ChatIDs), s.Entries, s.ImportedAt.Local().Format("2006-01-02 15:04"), s.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if gone > 0 {
		fmt.Fprintf(w, "\n%s from disk; annals keeps %s chats.\n", plural(gone, "source is gone", "sources are gone"), human.Noun(gone, "its", "their"))
	}
	return nil
}

// importProgress redraws one status line on a terminal.
type importProgress struct {
	w     io.Writer
	last  time.Time
	drawn bool
}

func (p *importProgress) update(pr importer.Progress) {
	if time.Since(p.last) < 100*time.Millisecond && pr.Done < pr.Sources {
		return
	}
	p.last = time.Now()
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Entries) / s
	}
	width := 24
	filled := 0
	if pr.Sources > 0 {
		filled = width * pr.Done / pr.Sources
	}
	bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
	fmt.Fprintf(p.w, "\r\033[K[%s] %d/%s  %s  %s  %.0f entries/s", bar, pr.Done, plural(pr.Sources, "file", "files"), plural(pr.Chats, "chat", "chats"), plural(pr.Entries, "entry", "entries"), rate)
	p.drawn = true
}

func (p *importProgress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
