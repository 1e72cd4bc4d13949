package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/annals-dev/annals/storecopy"
)

func runCopy(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("copy", "--from LOCATION --to LOCATION [flags]", "Copy a whole history between databases: every chat of every tenant with its metadata\n(title, description, tags, pinned, archived, summary and their times), its entries (every\nfield, same seq) and its runs. A LOCATION is sqlite:PATH (or a plain file path) or a\npostgres:// URL, so this moves SQLite to PostgreSQL and back. The copy is idempotent: run\nit again and it copies only what is new. At the end it verifies, chat by chat, that the\ndestination holds the same entries and runs. Data is copied as stored (already redacted);\nembeddings are not copied: the destination rebuilds them on demand.")
	from := fs.String("from", "", "the source database (sqlite:PATH, PATH or postgres://...)")
	to := fs.String("to", "", "the destination database, created or migrated as needed")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	quiet := fs.Bool("quiet", false, "no progress display")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return usagef("copy needs --from and --to (sqlite:PATH, PATH or postgres://...)")
	}
	if fs.NArg() > 0 {
		return usagef("copy takes no arguments, got %q", fs.Args())
	}
	if *from == *to {
		return usagef("--from and --to name the same database")
	}
	src, err := openStore(ctx, *from, true)
	if err != nil {
		return fmt.Errorf("source %s: %w", displayLocation(*from), err)
	}
	defer src.Close()
	dst, err := openStore(ctx, *to, false)
	if err != nil {
		return fmt.Errorf("destination %s: %w", displayLocation(*to), err)
	}
	defer dst.Close()

	var bar *copyProgress
	if !*quiet && m.IsTerminal(m.Stderr) {
		bar = &copyProgress{w: m.Stderr, start: time.Now()}
	}
	rep, err := storecopy.Copy(ctx, src, dst, func(r *storecopy.Report) {
		if bar != nil {
			bar.update(r)
		}
	})
	if bar != nil {
		bar.done()
	}
	if rep != nil {
		rep.From, rep.To = displayLocation(*from), displayLocation(*to)
	}
	if err != nil {
		if rep != nil && rep.Chats > 0 {
			fmt.Fprintf(m.Stderr, "annals: %s copied before the failure; run the same copy again to continue (what is there is skipped)\n", plural(rep.Chats, "chat was", "chats were"))
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	return writeCopyReport(m.Stdout, rep)
}

func writeCopyReport(w io.Writer, r *storecopy.Report) error {
	fmt.Fprintf(w, "Copied %s to %s in %s; verified %s\n", r.From, r.To, r.Duration.Round(time.Millisecond), plural(r.Chats, "chat", "chats"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "chats in the source\t%d\t\n", r.SourceChats)
	fmt.Fprintf(tw, "chats created\t%d\t\n", r.ChatsCreated)
	fmt.Fprintf(tw, "chats whose metadata was set\t%d\t\n", r.ChatsRestored)
	fmt.Fprintf(tw, "entries copied\t%d\t\n", r.EntriesCopied)
	fmt.Fprintf(tw, "entries already present\t%d\t\n", r.EntriesPresent)
	fmt.Fprintf(tw, "runs copied\t%d\t\n", r.RunsCopied)
	fmt.Fprintf(tw, "runs already present\t%d\t\n", r.RunsPresent)
	fmt.Fprintf(tw, "chats in the destination\t%d\t\n", r.DestinationChats)
	return tw.Flush()
}

// copyProgress redraws one status line on a terminal.
type copyProgress struct {
	w     io.Writer
	start time.Time
	last  time.Time
	drawn bool
}

func (p *copyProgress) update(r *storecopy.Report) {
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	rate := 0.0
	if s := time.Since(p.start).Seconds(); s > 0 {
		rate = float64(r.EntriesCopied) / s
	}
	fmt.Fprintf(p.w, "\r\033[Kcopying  %s  %s copied  %d present  %s  %.0f entries/s",
		plural(r.Chats, "chat", "chats"), plural(r.EntriesCopied, "entry", "entries"), r.EntriesPresent, plural(r.RunsCopied, "run", "runs"), rate)
	p.drawn = true
}

func (p *copyProgress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
