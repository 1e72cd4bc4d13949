package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
)

// Main is the annals program with its inputs and outputs made explicit, so tests run the whole
// binary in-process: set the fields, call Run, then Close.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
	// HomeDir returns the user's home directory.
	HomeDir func() (string, error)
	// IsTerminal reports whether w is an interactive terminal (progress bars, colours).
	IsTerminal func(w io.Writer) bool

	// store is what Run opened, closed by Close.
	store annals.Store
}

// NewMain returns a Main wired to the real process.
func NewMain() *Main {
	return &Main{
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		HomeDir:    os.UserHomeDir,
		IsTerminal: isTerminal,
	}
}

// Close releases whatever Run opened.
// human is standard output for text meant for people: every character that a terminal would
// execute (escape sequences, carriage returns, bidirectional overrides) is shown escaped. JSON
// output goes to m.Stdout directly; its encoder escapes control characters itself.
func (m *Main) human() io.Writer { return termsafe.Writer{W: m.Stdout} }

// colour reports whether human output may use colour: on a terminal, unless NO_COLOR is set or
// TERM is dumb.
func (m *Main) colour() bool {
	return m.IsTerminal(m.Stdout) && m.Getenv("NO_COLOR") == "" && m.Getenv("TERM") != "dumb"
}

func (m *Main) Close() error {
	if m.store != nil {
		err := m.store.Close()
		m.store = nil
		return err
	}
	return nil
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, m *Main, args []string) error
}

func (m *Main) commands() []command {
	return []command{
		{"ingest", "read chats, entries, runs and truncations in the capture format (JSON Lines)", runIngest},
		{"import", "import the histories agent tools keep (Claude Code, Codex, Gemini CLI, Aider, ...)", runImport},
		{"list", "list chats, pinned first, then most recent activity", runList},
		{"search", "find chats by title, description, summary and tags", runSearch},
		{"show", "print one chat's transcript", runShow},
		{"export", "export one chat as Markdown or JSON", runExport},
		{"rename", "set a chat's title", runRename},
		{"tag", "replace a chat's tags or set its description", runTag},
		{"pin", "pin or unpin a chat", runPin},
		{"archive", "archive or restore a chat", runArchive},
		{"recap", "summarise a chat and store the summary", runRecap},
		{"related", "find chats close in meaning to a chat or text", runRelated},
		{"delete", "delete a chat and everything it holds", runDelete},
		{"redact", "re-apply redaction rules to stored data", runRedact},
		{"bench", "generate corpora and run benchmarks", runBench},
		{"migrate", "create or upgrade the database schema and print its version", runMigrate},
		{"copy", "copy a whole history between databases (SQLite, PostgreSQL)", runCopy},
		{"serve", "serve the history API over HTTP (docs/HTTP.md)", runServe},
		{"keys", "create, list and revoke the server's API keys", runKeys},
		{"version", "print the version", runVersion},
	}
}

// usageError is a mistake in how the command was called; it exits 2 like flag's own errors.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// Run runs the command line args (without the program name).
func (m *Main) Run(ctx context.Context, args []string) error {
	args, err := m.takeGlobalFlags(args) // --server URL --key KEY: client mode (remote.go)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		m.usage(m.Stderr)
		return usagef("no command given")
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		if len(args) > 1 {
			return m.Run(ctx, []string{args[1], "--help"})
		}
		m.usage(m.Stdout)
		return nil
	}
	for _, c := range m.commands() {
		if c.name == name {
			err := c.run(ctx, m, args[1:])
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
	}
	m.usage(m.Stderr)
	return usagef("unknown command %q", name)
}

func (m *Main) usage(w io.Writer) {
	fmt.Fprintln(w, "annals keeps, searches and serves the history of AI-agent conversations.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: annals <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range m.commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes --db PATH (or $ANNALS_DB); the default database is")
	fmt.Fprintln(w, "$XDG_DATA_HOME/annals/annals.db, else ~/.local/share/annals/annals.db.")
	fmt.Fprintln(w, "Configuration (YAML) is read from --config, $ANNALS_CONFIG, else")
	fmt.Fprintln(w, "$XDG_CONFIG_HOME/annals/config.yaml or ~/.config/annals/config.yaml (docs/CONFIG.md).")
	fmt.Fprintln(w, "annals --server URL --key KEY <command> (or $ANNALS_SERVER, $ANNALS_KEY) runs list,")
	fmt.Fprintln(w, "search, show, export, rename, tag, pin, archive, recap, related, delete and ingest")
	fmt.Fprintln(w, "against an annals server instead of a local database (docs/HTTP.md).")
	fmt.Fprintln(w, "Run 'annals <command> --help' for a command's flags.")
}

// flagSet returns a FlagSet whose usage prints the command's synopsis and flags to stdout when
// asked for with --help, and to stderr on a mistake.
func (m *Main) flagSet(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: annals %s %s\n\n%s\n\nFlags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, printing help to stdout for --help.
func (m *Main) parse(fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(m.Stdout)
			fs.Usage()
			return flag.ErrHelp
		}
	}
	if err := fs.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// dbFlag registers --db on a command.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", "", "database file (default $ANNALS_DB, else $XDG_DATA_HOME/annals/annals.db or ~/.local/share/annals/annals.db)")
}

// dbPath resolves the database location: --db, then $ANNALS_DB, then the XDG default.
func (m *Main) dbPath(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if v := m.Getenv("ANNALS_DB"); v != "" {
		return v, nil
	}
	if v := m.Getenv("XDG_DATA_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "annals", "annals.db"), nil
	}
	home, err := m.HomeDir()
	if err != nil || home == "" {
		return "", annals.Errorf(annals.EINVALID, "cannot find a home directory for the default database; pass --db PATH or set ANNALS_DB")
	}
	return filepath.Join(home, ".local", "share", "annals", "annals.db"), nil
}

// describe renders an error for a person: the caller-facing message of an annals error, the
// full text of anything else (a usage mistake, a file that cannot be read).
func describe(err error) string {
	var ae *annals.Error
	if errors.As(err, &ae) && ae.Code == annals.EINTERNAL {
		return fmt.Sprintf("internal error: %v", errors.Unwrap(ae))
	}
	return err.Error()
}

func exitCode(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// flagT shortens flag.Flag in Visit callbacks.
type flagT = flag.Flag
