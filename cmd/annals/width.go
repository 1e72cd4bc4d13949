package main

import (
	"io"
	"strconv"
)

// width is how wide human tables may be (docs/CLI.md): $COLUMNS when it is a positive number,
// else the terminal's width when standard output is a terminal, else 0, no limit: what a pipe
// or a file gets is read by programs, which need whole ids.
func (m *Main) width() int {
	if n, err := strconv.Atoi(m.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if m.IsTerminal(m.Stdout) {
		if n := terminalWidth(m.Stdout); n > 0 {
			return n
		}
		return 80 // a terminal that does not say its width
	}
	return 0
}

// terminalWidth asks the terminal w for its width in columns; 0 when it cannot tell.
func terminalWidth(w io.Writer) int {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return 0
	}
	return fdWidth(f.Fd())
}
