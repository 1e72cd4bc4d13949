// Package tui is the terminal browser of `annals browse`: a search box with results as you type,
// a results pane and a transcript pane that pages, with the curation keys. It is one more
// adapter over annals.HistoryService (a local history or the HTTP client), so it decides
// nothing: every refusal comes from the service and is shown in the status line. Every string
// from the history is made safe for the terminal (internal/termsafe) before it is laid out.
package tui

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
)

// Options are what the browser is handed by its caller (cmd/annals).
type Options struct {
	// Service is the history, already bound to the caller (the door's answer); Context carries
	// the caller's principal and ends the browser when cancelled.
	Service annals.HistoryService
	Context context.Context
	// Scope is the scope every call asks for ("" is the widest the caller may use).
	Scope annals.Scope
	// Query is typed into the search box at the start.
	Query string
	// Filter is the initial filter (the command line's flags).
	Filter annals.ChatQuery
	// FilterText says what Filter is, for the header (the command line's flags).
	FilterText string
	// ReadOnly is said in the header; the service refuses writes whether or not it is set.
	ReadOnly bool
	// Color allows colours; without it (NO_COLOR, TERM=dumb) the browser uses bold, underline
	// and reverse video only.
	Color bool
	// WebURL returns the address of a chat in the web UI of a running server, or an error
	// saying why there is none; nil means no server is known.
	WebURL func(ctx context.Context, chatID string) (string, error)
	// OpenURL opens an address in a browser; nil copies it to the clipboard instead.
	OpenURL func(url string) error
	// Dir is the folder an export path is relative to ("" is the working directory).
	Dir string
	// Now is the clock for "2h ago"; nil is time.Now.
	Now func() time.Time
	// Debounce is how long a keystroke waits for the next before its search starts (it is
	// cancelled, not queued, when the next one comes); 0 means 40 ms.
	Debounce time.Duration
}

// Result is what the browser leaves its caller to do once the terminal is restored.
type Result struct {
	// Resume is the chat to resume, confirmed by the user: the caller runs Resume.ShellLine().
	Resume *annals.ResumeHandle
}

// Run runs the browser on a terminal (in, out) until the user quits.
func Run(opts Options, in io.Reader, out io.Writer) (Result, error) {
	m := New(opts)
	final, err := tea.NewProgram(m, tea.WithContext(opts.Context), tea.WithInput(in), tea.WithOutput(out)).Run()
	if fm, ok := final.(*Model); ok {
		fm.stopSearch()
		return fm.result, err
	}
	return Result{}, err
}

// Result is what the browser left its caller to do (Run returns it too).
func (m *Model) Result() Result { return m.result }

// Dir is the folder exports are written to.
func (m *Model) Dir() string { return m.opts.Dir }

// Status is the status line's message ("" when it shows the key hints).
func (m *Model) Status() string { return m.status }
