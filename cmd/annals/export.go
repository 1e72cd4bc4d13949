package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
)

func runExport(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("export", "[flags] CHAT_ID", "Export one chat as portable Markdown (default) or JSON, to standard output or --out.")
	c := readFlags(fs)
	format := fs.String("format", "markdown", "markdown or json")
	out := fs.String("out", "", "write to this file (0600) instead of standard output")
	scope := fs.String("scope", "", "scope to find the chat in")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("export needs exactly one chat id")
	}
	if *format != "markdown" && *format != "json" {
		return usagef("--format %q: want markdown or json", *format)
	}
	a, err := m.openQuery(ctx, c)
	if err != nil {
		return err
	}
	// The chat first, by the full id the service resolves: a wrong id creates no --out file.
	sel, err := fullID(a, annals.ChatSelector{Scope: annals.Scope(*scope), ID: fs.Arg(0)})
	if err != nil {
		return err
	}
	var w io.Writer = m.Stdout
	if *out == "" && *format == "markdown" && m.IsTerminal(m.Stdout) {
		// Read on a terminal, the transcript's own escape sequences are shown, not run; a file or
		// a pipe gets the export byte for byte.
		w = m.human()
	}
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", *out, err)
		}
		defer f.Close()
		// An existing file keeps its mode on open: the transcript is private all the same.
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("cannot make %s private: %w", *out, err)
		}
		w = f
	}
	if *format == "markdown" {
		res, err := a.svc.GetChat(a.ctx, annals.GetParams{Chat: sel, Format: annals.ChatFormat(history.FormatMarkdown)})
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, res.Markdown)
		return err
	}
	return exportJSON(a, sel, w)
}

// jsonExport is what `annals export --format json` writes: the chat view that GetChat answers,
// every entry in one page, and then the chat's runs, shaped as `annals show --json` prints
// them, so that an import of the file gives the runs back too.
type jsonExport struct {
	*envelope.GetResponse
	Runs []*annals.Run `json:"runs"`
}

// exportJSON writes the chat, all its entries and its runs as one indented JSON document.
func exportJSON(a *app, sel annals.ChatSelector, w io.Writer) error {
	params := annals.GetParams{Chat: sel, Limit: history.MaxGetLimit}
	var all *envelope.GetResponse
	for {
		res, err := a.svc.GetChat(a.ctx, params)
		if err != nil {
			return err
		}
		if all == nil {
			all = res
		} else {
			all.Entries = append(all.Entries, res.Entries...)
		}
		if !res.HasMore {
			break
		}
		params.Cursor = res.NextCursor
	}
	all.HasMore, all.NextCursor, all.Limit = false, "", 0
	// The runs are read by the chat id GetChat answered with, as show reads them.
	runs, err := a.svc.FindChatRuns(a.ctx, annals.ChatSelector{Scope: sel.Scope, ID: all.Chat.ID})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonExport{GetResponse: all, Runs: runs})
}
