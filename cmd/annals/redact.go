package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/annals-dev/annals"
)

func runRedact(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("redact", "--rescan [flags]", "Re-apply the current redaction rules (built-in, redact.env and redact.rules from\nthe config) to everything already stored, full-text index included, and report\nwhat changed. Captured data is always redacted at write; run this after adding rules.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rescan := fs.Bool("rescan", false, "scan stored chats and entries")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if !*rescan || fs.NArg() > 0 {
		return usagef("redact needs --rescan (and no arguments)")
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	if a.store == nil {
		return needsLocal("redact --rescan")
	}
	rescanner, ok := a.store.(annals.Rescanner)
	if !ok {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot rescan stored data")
	}
	bar := m.IsTerminal(m.Stderr)
	rep, err := rescanner.Rescan(ctx, a.redactor, func(p annals.RescanReport) {
		if bar {
			fmt.Fprintf(m.Stderr, "\r\033[Krescanning: %s scanned, %d changed", plural(p.EntriesScanned, "entry", "entries"), p.EntriesChanged)
		}
	})
	if bar {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "entries scanned\t%d\t\n", rep.EntriesScanned)
	fmt.Fprintf(tw, "entries changed\t%d\t\n", rep.EntriesChanged)
	fmt.Fprintf(tw, "chats scanned\t%d\t\n", rep.ChatsScanned)
	fmt.Fprintf(tw, "chats changed\t%d\t\n", rep.ChatsChanged)
	fmt.Fprintf(tw, "secrets replaced\t%d\t\n", rep.Replacements)
	return tw.Flush()
}
