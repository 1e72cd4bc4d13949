package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// A native client (sqlite3, psql) runs as one long-lived process fed one repetition of the
// traced statements per sample, so that its samples interleave with the library's one by one:
// a warm process on a warm page cache, as the library's pooled connections are. After each
// repetition the script switches output back to standard output and prints a sync line; that
// switch also flushes what the tool buffered, so every timing line of the repetition arrives
// before the sync line.

// syncLine ends every repetition's output.
const syncLine = "@@annals-bench-sync@@"

// toolTimeout bounds one repetition: a tool that stops answering (a buffered output this
// harness did not foresee, a lock) fails the baseline instead of hanging the run.
const toolTimeout = 5 * time.Minute

// toolDialect is what differs between the clients: how to start one, how its script begins,
// how a repetition ends, and how a timing line reads.
type toolDialect struct {
	name  string
	args  []string
	env   []string
	init  string
	sync  string
	parse func(line string) (sample, bool, error)
}

func sqlite3Dialect(dbPath string) toolDialect {
	return toolDialect{
		name: "sqlite3", args: []string{"-batch", "-bail", dbPath},
		init: ".timer on\n.output /dev/null\n",
		sync: ".output stdout\n.print " + syncLine + "\n.output /dev/null\n",
		parse: func(line string) (sample, bool, error) {
			return parseSQLiteTimerLine(line)
		},
	}
}

func psqlDialect(dsn string) toolDialect {
	dsn, env := libpqDSN(dsn)
	return toolDialect{
		name: "psql", args: []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", "-"}, env: env,
		init: "\\timing on\n\\o /dev/null\n",
		sync: "\\echo " + syncLine + "\n",
		parse: func(line string) (sample, bool, error) {
			s, ok := parsePsqlTimingLine(line)
			return s, ok, nil
		},
	}
}

// toolSession is one running client.
type toolSession struct {
	d      toolDialect
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr bytes.Buffer
	script string
	want   int
	// ended is set once the process has been waited for (killed, or closed).
	ended bool
}

// startTool starts the client at path with the statements, arguments inlined as SQL literals
// (a client has no way to bind them).
func startTool(ctx context.Context, path string, d toolDialect, stmts []annals.Statement) (*toolSession, error) {
	group, err := inlineAll(stmts)
	if err != nil {
		return nil, err
	}
	t := &toolSession{d: d, script: group + d.sync, want: len(stmts), lines: make(chan string, 16)}
	t.cmd = exec.CommandContext(ctx, path, d.args...)
	t.cmd.Stderr = &t.stderr
	if len(d.env) > 0 {
		t.cmd.Env = append(os.Environ(), d.env...)
	}
	if t.stdin, err = t.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.lines <- sc.Text()
		}
		close(t.lines)
	}()
	if _, err := io.WriteString(t.stdin, d.init); err != nil {
		return nil, t.fail(err)
	}
	return t, nil
}

// next runs one repetition and returns its summed time.
func (t *toolSession) next(ctx context.Context) (sample, error) {
	if _, err := io.WriteString(t.stdin, t.script); err != nil {
		return sample{}, t.fail(err)
	}
	var sum sample
	got := 0
	timeout := time.NewTimer(toolTimeout)
	defer timeout.Stop()
	for {
		select {
		case line, ok := <-t.lines:
			if !ok {
				return sample{}, t.fail(io.ErrUnexpectedEOF)
			}
			if line == syncLine {
				if got != t.want {
					return sample{}, fmt.Errorf("%s printed %d timings for %d statements", t.d.name, got, t.want)
				}
				return sum, nil
			}
			s, ok, err := t.d.parse(line)
			if err != nil {
				return sample{}, err
			}
			if ok {
				sum.wall += s.wall
				sum.cpu += s.cpu
				got++
			}
		case <-timeout.C:
			t.kill()
			return sample{}, fmt.Errorf("%s gave no answer within %s", t.d.name, toolTimeout)
		case <-ctx.Done():
			t.kill()
			return sample{}, ctx.Err()
		}
	}
}

// fail ends a client that stopped early and returns the first line of what it said.
func (t *toolSession) fail(err error) error {
	t.kill()
	if msg := firstLine(t.stderr.String()); msg != "" {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %w", t.d.name, err)
}

func (t *toolSession) kill() {
	if t.ended {
		return
	}
	t.ended = true
	if t.cmd.Process != nil {
		_ = t.cmd.Process.Kill()
	}
	go func() {
		for range t.lines { // let the reader finish
		}
	}()
	_ = t.cmd.Wait()
}

// close ends the client: end of input makes it exit.
func (t *toolSession) close() error {
	if t.ended {
		return nil
	}
	t.ended = true
	t.stdin.Close()
	for range t.lines {
	}
	if err := t.cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w: %s", t.d.name, err, firstLine(t.stderr.String()))
	}
	return nil
}

// toolSide is a client as a side of an interleaved measurement; the first repetition, untimed,
// warms it.
func toolSide(ctx context.Context, path string, d toolDialect, stmts []annals.Statement) (*side, error) {
	t, err := startTool(ctx, path, d, stmts)
	if err != nil {
		return nil, err
	}
	s := &side{name: d.name, next: t.next, close: t.close}
	if _, err := t.next(ctx); err != nil {
		t.close()
		return nil, err
	}
	return s, nil
}

// libpqDSN turns a connection URL the store accepts into one psql accepts: libpq refuses the
// query parameters only pgx knows, so a search_path moves into PGOPTIONS and pgx's pool_*
// settings are dropped. The key=value form passes through unchanged.
func libpqDSN(dsn string) (string, []string) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn, nil
	}
	q := u.Query()
	var env []string
	if sp := q.Get("search_path"); sp != "" {
		env = append(env, "PGOPTIONS=-c search_path="+sp)
		q.Del("search_path")
	}
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), env
}
