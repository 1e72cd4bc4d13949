package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
)

// paged writes human output through the reader's pager on a terminal: $ANNALS_PAGER, else
// $PAGER, else less -FRX (which quits at once when the text fits on one screen). A pager that
// is not installed prints straight to the terminal (ANNALS_PAGER=cat, or --no-pager, asks for
// that). The text is escaped
// before it reaches the pager, so the pager shows transcripts as safely as the terminal would.
func (m *Main) paged(ctx context.Context, write func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	pager := m.Getenv("ANNALS_PAGER")
	if pager == "" {
		pager = m.Getenv("PAGER")
	}
	if pager == "" {
		pager = "less -FRX"
	}
	args := strings.Fields(pager)
	if len(args) == 0 {
		_, err := m.Stdout.Write(buf.Bytes())
		return err
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		_, err := m.Stdout.Write(buf.Bytes())
		return err
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &buf, m.Stdout, m.Stderr
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		// The pager failed (not the reader quitting it early): the text still has to show.
		if _, werr := m.Stdout.Write(buf.Bytes()); werr != nil {
			return werr
		}
	}
	return nil
}
