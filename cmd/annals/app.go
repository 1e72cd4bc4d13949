package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

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
	// Interactive, when set, reports whether a person answers at Stdin (delete asks); nil
	// means Stdin and Stderr are both terminals.
	Interactive func() bool

	// store is what Run opened, closed by Close.
	store annals.Store
	// describing makes parse stop right after a command has defined its flags, keeping them in
	// described: completion asks a command for its flags without running it.
	describing bool
	described  *pflag.FlagSet
	// jsonErrors makes Fail write the error as JSON: the command line asked for --json.
	jsonErrors bool
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

// human is standard output for text meant for people: every character that a terminal would
// execute (escape sequences, carriage returns, bidirectional overrides) is shown escaped. JSON
// output goes to m.Stdout directly; its encoder escapes control characters itself.
func (m *Main) human() io.Writer { return termsafe.Writer{W: m.Stdout} }

// colour reports whether human output may use colour: on a terminal, unless NO_COLOR is set or
// TERM is dumb.
func (m *Main) colour() bool {
	return m.IsTerminal(m.Stdout) && m.Getenv("NO_COLOR") == "" && m.Getenv("TERM") != "dumb"
}

// Close releases whatever Run opened.
func (m *Main) Close() error {
	if m.store != nil {
		err := m.store.Close()
		m.store = nil
		return err
	}
	return nil
}

// dbFlag registers --db on a command.
func dbFlag(fs *pflag.FlagSet) *string {
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
	return m.defaultDBPath()
}

// defaultDBPath is the default database file: $XDG_DATA_HOME/annals/annals.db, else
// ~/.local/share/annals/annals.db.
func (m *Main) defaultDBPath() (string, error) {
	if v := m.Getenv("XDG_DATA_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "annals", "annals.db"), nil
	}
	home, err := m.HomeDir()
	if err != nil || home == "" {
		return "", annals.Errorf(annals.EINVALID, "cannot find a home directory for the default database; pass --db PATH or set ANNALS_DB")
	}
	return filepath.Join(home, ".local", "share", "annals", "annals.db"), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// flagT shortens pflag.Flag in Visit callbacks.
type flagT = pflag.Flag
