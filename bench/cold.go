package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The cold scenario: the first call of 'annals search' from a new process, with the database
// file out of the page cache (issue 33 item 5: < 0.3 s at 1M entries). The harness copies the
// bench database to a private file no other process has open or mapped, and before each call
// writes back and drops that copy's pages (posix_fadvise POSIX_FADV_DONTNEED; the kernel drops
// only clean, unmapped pages, so the share still resident is measured with mincore and
// reported). Each cold call is followed by a warm one, the same command on the now cached file,
// so the two differ only by the page cache.

// coldRounds is the most cold calls per query: each reads the database from disk.
const coldRounds = 10

// coldCase is one query of the cold scenario.
type coldCase struct {
	name, query string
	entries     bool
}

func coldCases() []coldCase {
	return []coldCase{
		{"head word timeout", "timeout", false},
		{"two letters re*", "re*", false},
		{"three words fix failing test", "fix failing test", false},
		{"entry-level timeout", "timeout", true},
	}
}

func (b *runner) coldScenario(ctx context.Context, t *target, scratch string) error {
	switch {
	case t.backend != "sqlite":
		b.gap("cold: "+t.backend, "the cold first call drops a SQLite file from the page cache; a database server's cache is its own")
		return nil
	case b.opts.AnnalsBin == "":
		b.gap("cold", "needs the annals binary (--annals) to start a new process per call")
		return nil
	}
	db := filepath.Join(scratch, "cold.db")
	removeDB(db)
	defer removeDB(db)
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(t.dbPath + suffix); err != nil {
			continue
		}
		if err := copyFile(db+suffix, t.dbPath+suffix); err != nil {
			return fmt.Errorf("cannot copy the database for the cold scenario: %w", err)
		}
	}
	cfg, err := emptyConfig(scratch)
	if err != nil {
		return err
	}
	for _, c := range coldCases() {
		row, err := b.coldCase(ctx, db, cfg, c)
		if err != nil {
			return fmt.Errorf("cold %q: %w", c.query, err)
		}
		b.add(row)
	}
	return nil
}

// coldCase samples one query: rounds of a cold call then a warm one, each a new process.
func (b *runner) coldCase(ctx context.Context, db, cfg string, c coldCase) (Row, error) {
	args := []string{"search", "--db", db, "--config", cfg, "--json", "--limit", "20"}
	if c.entries {
		args = append(args, "--entries")
	}
	args = append(args, c.query)
	var cold, warm []sample
	resident := 0.0
	start := time.Now()
	for round := 0; round < min(coldRounds, b.opts.Iterations); round++ {
		if round >= 3 && time.Since(start) > b.opts.Budget {
			break
		}
		for _, f := range []string{db, db + "-wal"} {
			if _, err := os.Stat(f); err != nil {
				continue
			}
			if err := dropFromPageCache(f); err != nil {
				return Row{}, err
			}
		}
		share, err := residentShare(db)
		if err != nil {
			return Row{}, err
		}
		resident = max(resident, share)
		for _, into := range []*[]sample{&cold, &warm} {
			s, err := runProcess(ctx, b.opts.AnnalsBin, args)
			if err != nil {
				return Row{}, err
			}
			*into = append(*into, s)
		}
	}
	row := latencyRow(Row{Scenario: "cold", Case: "first call, " + c.name, Backend: "sqlite", Query: c.query}, cold)
	if c.entries {
		row.Mode = "entries"
	}
	w := latencyRow(Row{}, warm)
	row.Target, row.Met = "p50<300 ms", boolp(row.P50 < 300)
	row.Note = fmt.Sprintf("a new annals search process per call (CPU: the child's); at most %.1f%% of the file resident after the drop; the same command right after, file cached: p50 %s ms, CPU %s ms (n=%d)",
		100*resident, fmtMS(w.P50), fmtMS(w.CPU50), w.N)
	return row, nil
}

// runProcess runs the annals binary once, output discarded, and returns its wall time and the
// child's CPU time (user + system).
func runProcess(ctx context.Context, bin string, args []string) (sample, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), args[0], err, firstLine(stderr.String()))
	}
	wall := time.Since(t0)
	return sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}
