package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/annals-dev/annals/internal/human"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/ingest"
)

// serveProc is an 'annals serve' subprocess in local mode (no keys, loopback) and a client of it.
type serveProc struct {
	cmd    *exec.Cmd
	client *httpapi.Client
	done   chan error
}

// startServe runs the annals binary's serve command on dbPath, on a free loopback port, with the
// built-in configuration, and waits until it answers /healthz. Its access log is discarded:
// writing it is part of serving, reading it is not part of the benchmark.
func (b *runner) startServe(ctx context.Context, scratch, dbPath string, readOnly bool) (*serveProc, error) {
	cfgPath, err := emptyConfig(scratch)
	if err != nil {
		return nil, err
	}
	portPath := filepath.Join(scratch, "serve-port.json")
	os.Remove(portPath)
	args := []string{"serve", "--db", dbPath, "--config", cfgPath, "--addr", "127.0.0.1:0", "--port-file", portPath}
	if readOnly {
		args = append(args, "--read-only")
	}
	cmd := exec.Command(b.opts.AnnalsBin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start annals serve: %w", err)
	}
	p := &serveProc{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		// The port file (--port-file) says where the server listens once it does.
		var pf struct {
			Port int `json:"port"`
		}
		if raw, err := os.ReadFile(portPath); err == nil && json.Unmarshal(raw, &pf) == nil && pf.Port > 0 {
			c, err := httpapi.NewClient(fmt.Sprintf("http://127.0.0.1:%d", pf.Port), "")
			if err != nil {
				p.stop()
				return nil, err
			}
			if _, err := c.Health(ctx); err == nil {
				p.client = c
				return p, nil
			}
		}
		select {
		case err := <-p.done:
			return nil, fmt.Errorf("annals serve exited before it listened: %w", err)
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, errors.New("annals serve did not answer /healthz within 60 s")
		}
	}
}

// peakRSS is the server's VmHWM so far.
func (p *serveProc) peakRSS() (int64, error) { return peakRSS(p.cmd.Process.Pid) }

// stop asks the server to finish (SIGINT, as a person's Ctrl-C) and kills it if it does not.
func (p *serveProc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// httpIngest measures entries/s through the HTTP server: ingest.Ingest driving the Go client,
// whose Capture posts each batch of records to POST /v1/capture, where the server applies it
// through the redacting capture path, one transaction per batch.
func (b *runner) httpIngest(ctx context.Context, scratch string, rawRate float64) error {
	dbPath := filepath.Join(scratch, "http.db")
	defer removeDB(dbPath)
	srv, err := b.startServe(ctx, scratch, dbPath, false)
	if err != nil {
		return err
	}
	defer srv.stop()
	b.logf("ingest: through annals serve at %s", srv.client.URL())
	f, err := os.Open(b.data.corpusPath)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := ingest.Ingest(ctx, srv.client, f, ingest.Options{})
	if err != nil {
		return fmt.Errorf("ingest over HTTP: %w", err)
	}
	r := rate(rep.EntriesAppended, rep.Duration)
	note := fmt.Sprintf("ingest.Ingest -> Go client -> POST /v1/capture (%d records per request), with redaction", ingest.DefaultBatchSize)
	if rss, err := srv.peakRSS(); err == nil {
		note += "; server peak RSS " + human.Bytes(rss)
	}
	b.add(Row{Scenario: "ingest", Case: "HTTP (annals serve)", Backend: "sqlite", Rate: r, Unit: "entries/s",
		Baseline: &Baseline{Name: "raw", Rate: rawRate}, Ratio: ratio(r, rawRate), Note: note})
	return nil
}

// memoryScenario starts 'annals serve' read-only on the bench database (a SQLite file or the
// PostgreSQL database), sends it the search
// scenario's queries (each one warm-up and --iterations timed runs, as the search scenario does
// in-process) and reports its peak resident set size (VmHWM), with the latencies seen through
// HTTP.
func (b *runner) memoryScenario(ctx context.Context, t *target, scratch string) error {
	if b.opts.AnnalsBin == "" {
		b.gap("memory", "not running from an annals binary (a test binary); pass --annals PATH")
		return nil
	}
	location := t.dbPath
	if t.backend != "sqlite" {
		location = t.dsn
	}
	srv, err := b.startServe(ctx, scratch, location, true)
	if err != nil {
		return err
	}
	defer srv.stop()
	start, _ := srv.peakRSS()
	for _, c := range searchCases() {
		if c.scope != "" {
			continue // the server's key is an admin's: one owner's cases are the search scenario's
		}
		req := annals.SearchParams{Scope: annals.ScopeGlobal, Query: c.query, Mode: c.mode}
		var res *annals.SearchPage
		search := func() (err error) {
			res, err = srv.client.SearchChats(ctx, req)
			return err
		}
		if err := search(); err != nil {
			return fmt.Errorf("search %q over HTTP: %w", c.query, err)
		}
		s, err := b.measure(ctx, search)
		if err != nil {
			return fmt.Errorf("search %q over HTTP: %w", c.query, err)
		}
		b.add(latencyRow(Row{Scenario: "memory", Case: "search over HTTP: " + c.name, Backend: t.backend, Query: c.query,
			Hits: intp(res.Total), Note: "POST /v1/history to annals serve --read-only"}, s))
	}
	peak, err := srv.peakRSS()
	if err != nil {
		b.gap("memory", "cannot read the server's peak RSS: "+err.Error())
		return nil
	}
	mib := float64(peak) / (1 << 20)
	note := fmt.Sprintf("%s right after start", human.Bytes(start))
	if anon, file, err := residentSplit(srv.cmd.Process.Pid); err == nil {
		note += fmt.Sprintf("; at the end %s anonymous + %s file-backed", human.Bytes(anon), human.Bytes(file))
	}
	b.add(Row{Scenario: "memory", Case: "annals serve peak RSS (VmHWM) over the search cases", Backend: t.backend,
		Rate: roundTo(mib, 1), Unit: "MiB", Target: fmt.Sprintf("< %d MB", targetServeRSS/1_000_000), Met: boolp(float64(peak) < targetServeRSS),
		Note: note})
	return nil
}
