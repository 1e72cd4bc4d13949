package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/tui"
)

func runBrowse(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("browse", "[flags] [QUERY...]", `Browse the history in the terminal: a search box with results as you type (the query
language of docs/QUERY.md), the results, and the transcript of the chat you open, which
pages as you move. Keys pin, tag, rename, archive, export, copy or run the resume command
and open the chat in the web UI; ? lists every key (docs/TUI.md). 'annals' alone on a
terminal runs it too. Against a server (--server URL) it is read-only where the key is. With a
remote block in the config it browses the remote collection (--local: this database); the
curation keys still change this host's copy, which replicates.`)
	c := commonFlags(fs)
	c.remoteReads, c.forceLocal = true, localFlag(fs, "local")
	ff := addFilterFlags(fs)
	readOnly := fs.Bool("read-only", false, "open the local database read-only: the curation keys are refused")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if !m.interactive() || !m.IsTerminal(m.Stdout) {
		return usagef("browse needs a terminal on standard input and output; for scripts use list, search and show")
	}
	filter, _, err := ff.query()
	if err != nil {
		return invalidIsUsage(err)
	}
	c.existing = true
	a, err := m.open(ctx, c, *readOnly)
	if err != nil {
		return err
	}
	var given []string
	fs.Visit(func(f *flagT) {
		if f.Name != "db" && f.Name != "config" && f.Name != "scope" && f.Name != "read-only" && f.Name != "local" {
			given = append(given, "--"+f.Name+"="+f.Value.String())
		}
	})
	dir, _ := os.Getwd()
	res, err := tui.Run(tui.Options{
		Service:    a.svc,
		Context:    a.ctx,
		Scope:      annals.Scope(*ff.scope),
		Query:      strings.Join(fs.Args(), " "),
		Filter:     filter,
		FilterText: strings.Join(given, " "),
		ReadOnly:   *readOnly,
		Color:      m.colour(),
		WebURL:     m.webURL(),
		OpenURL:    m.openURL,
		Dir:        dir,
	}, m.Stdin, m.Stdout)
	if err != nil || res.Resume == nil {
		return err
	}
	return m.runResume(ctx, res.Resume)
}

// runResume runs the resume command the user confirmed in the browser, once the browser has
// left the terminal: in a shell, in the chat's folder, with the terminal as its input and output.
func (m *Main) runResume(ctx context.Context, h *annals.ResumeHandle) error {
	line := h.ShellLine()
	fmt.Fprintf(m.human(), "running: %s\n", line)
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = m.Stdin, m.Stdout, m.Stderr
	if err := cmd.Run(); err != nil {
		return annals.Errorf(annals.EUNAVAILABLE, "the resume command failed: %v", err)
	}
	return nil
}

// webURL finds the web UI a chat opens in: the server of client mode, else a local server on
// the default address, if one answers.
func (m *Main) webURL() func(ctx context.Context, id string) (string, error) {
	base := m.Getenv("ANNALS_SERVER")
	if base == "" {
		base = "http://" + httpapi.DefaultAddr
	}
	base = strings.TrimRight(base, "/")
	return func(ctx context.Context, id string) (string, error) {
		client, err := httpapi.NewClient(base, "")
		if err != nil {
			return "", err
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := client.Health(ctx); err != nil {
			return "", annals.Errorf(annals.EUNAVAILABLE, "no annals server answers at %s (start one with 'annals serve')", base)
		}
		return base + "/chats/" + url.PathEscape(id), nil
	}
}

// openURL opens u with $BROWSER, else xdg-open or open, without waiting for it.
func (m *Main) openURL(u string) error {
	for _, name := range []string{m.Getenv("BROWSER"), "xdg-open", "open"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			cmd := exec.Command(path, u)
			if err := cmd.Start(); err != nil {
				return err
			}
			go func() { _ = cmd.Wait() }()
			return nil
		}
	}
	return fmt.Errorf("no browser found")
}
