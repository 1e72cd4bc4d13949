package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals/internal/human"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/redact"
)

// ingestScenario measures entries/s into fresh SQLite databases, each from the same cached
// corpus file: one decode pass alone (an upper bound), the raw baseline (plain SQL), the library
// (ingest.Ingest on the store) and the annals binary (annals ingest, with redaction), these
// three alternately, then HTTP.
func (b *runner) ingestScenario(ctx context.Context, scratch string) error {
	b.logf("ingest: decoding only")
	decoded, err := decodePass(ctx, b.data.corpusPath, nil)
	if err != nil {
		return err
	}
	b.add(Row{Scenario: "ingest", Case: "decode only (1 pass, no database)", Backend: "-",
		Rate: rate(b.data.stats.Entries, decoded), Unit: "entries/s", Note: "the capture-format decoder alone: an upper bound"})

	b.logf("ingest: decoding and redacting only")
	redacting, err := redactingDiscard()
	if err != nil {
		return err
	}
	redacted, err := decodePass(ctx, b.data.corpusPath, redacting)
	if err != nil {
		return err
	}
	b.add(Row{Scenario: "ingest", Case: "decode + redact only (1 pass, no database)", Backend: "-",
		Rate: rate(b.data.stats.Entries, redacted), Unit: "entries/s", Note: "the decoder and the built-in redaction rules over every text field, as annals ingest runs them: redaction's share of its time"})

	libPath := filepath.Join(scratch, "library.db")
	rawRate, err := b.ingestRawAndLibrary(ctx, scratch, libPath)
	if err != nil {
		return err
	}
	if b.opts.AnnalsBin == "" {
		b.gap("ingest: annals ingest", "not running from an annals binary (a test binary); pass --annals PATH")
		b.gap("ingest: HTTP", "not running from an annals binary (a test binary); pass --annals PATH")
	} else if err := b.httpIngest(ctx, scratch, rawRate); err != nil {
		return err
	}

	// The library's database is the corpus ingested through the library, which is exactly how
	// the cached bench database starts: reuse it rather than ingest a fourth time.
	if b.data.meta == nil {
		return b.ensureDatabase(ctx, libPath)
	}
	removeDB(libPath)
	return nil
}

// ingestBest is one side of the alternating ingest runs: the best run and every run's rate.
type ingestBest struct {
	entries  int
	duration time.Duration
	rates    []string
	// cpu is the least CPU time per entry of any run, for the sides measured in this process.
	cpu time.Duration
}

func (s *ingestBest) record(entries int, d time.Duration) {
	s.rates = append(s.rates, groupThousands(rate(entries, d)))
	if s.duration == 0 || d < s.duration {
		s.duration, s.entries = d, entries
	}
}

// recordCPU notes a run's CPU time. CPU time, unlike wall time, hardly grows when other work
// shares the machine, so the ratio of CPU per entry is the steadier comparison there.
func (s *ingestBest) recordCPU(entries int, cpu time.Duration) {
	if entries <= 0 || cpu <= 0 {
		return
	}
	if per := cpu / time.Duration(entries); s.cpu == 0 || per < s.cpu {
		s.cpu = per
	}
}

func (s *ingestBest) best() float64 { return rate(s.entries, s.duration) }

// note names the runs behind the best rate, when there was more than one.
func (s *ingestBest) note() string {
	if len(s.rates) < 2 {
		return ""
	}
	return fmt.Sprintf("; best of %d runs (%s)", len(s.rates), strings.Join(s.rates, ", "))
}

// ingestRawAndLibrary runs the raw baseline, the library and (when there is an annals binary)
// 'annals ingest' alternately, IngestRuns times each, and reports the best rate of each: noise
// from other work on a shared machine only ever slows a run down, and alternating keeps a slow
// spell from landing on one side only. It leaves the library's last database at libPath and
// returns the raw baseline's rate.
func (b *runner) ingestRawAndLibrary(ctx context.Context, scratch, libPath string) (float64, error) {
	rawPath := filepath.Join(scratch, "raw.db")
	var raw, lib, cli ingestBest
	var cliLast *ingestRun
	for run := range b.opts.IngestRuns {
		of := fmt.Sprintf("run %d of %d", run+1, b.opts.IngestRuns)
		removeDB(rawPath)
		b.logf("ingest: raw baseline (plain SQL) into %s, %s", rawPath, of)
		c0 := processCPU()
		r, err := rawIngest(ctx, b.opts.SQLite, rawPath, b.data.corpusPath)
		if err != nil {
			return 0, fmt.Errorf("raw baseline: %w", err)
		}
		raw.record(r.entries, r.duration)
		raw.recordCPU(r.entries, processCPU()-c0)
		c0 = processCPU()
		rep, err := b.libraryIngest(ctx, libPath, "ingest: library (ingest.Ingest), "+of)
		if err != nil {
			return 0, err
		}
		lib.record(rep.EntriesAppended, rep.Duration)
		lib.recordCPU(rep.EntriesAppended, processCPU()-c0)
		if b.opts.AnnalsBin != "" {
			if cliLast, err = b.binaryIngest(ctx, scratch, of); err != nil {
				return 0, err
			}
			cli.record(cliLast.entries, cliLast.duration)
		}
	}
	rawRate, libRate := raw.best(), lib.best()
	b.add(Row{Scenario: "ingest", Case: "raw SQL baseline", Backend: "sqlite", Rate: rawRate, Unit: "entries/s",
		Note: fmt.Sprintf("1 decode pass + plain INSERTs, same driver, schema, triggers and %d records per transaction%s", ingest.DefaultBatchSize, raw.note())})
	row := Row{Scenario: "ingest", Case: "library (ingest.Ingest)", Backend: "sqlite", Rate: libRate, Unit: "entries/s",
		Baseline: &Baseline{Name: "raw", Rate: rawRate}, Ratio: ratio(libRate, rawRate),
		Target: fmt.Sprintf(">= %.1fx", targetIngestRatio), Met: boolp(ratio(libRate, rawRate) >= targetIngestRatio),
		Note: "validate + apply passes, no redaction" + lib.note()}
	if raw.cpu > 0 && lib.cpu > 0 {
		// For a rate, higher is better: the raw side's CPU per entry over the library's.
		row.CPURatio = ratio(float64(raw.cpu), float64(lib.cpu))
		row.Note += fmt.Sprintf("; CPU per entry %s (raw %s)", lib.cpu.Round(time.Microsecond), raw.cpu.Round(time.Microsecond))
	}
	if diff := compareDatabases(ctx, b.opts.SQLite, libPath, rawPath); diff != "" {
		row.Note += "; raw rows differ: " + diff
	}
	b.add(row)
	removeDB(rawPath)
	if cliLast != nil {
		cliRate := cli.best()
		b.add(Row{Scenario: "ingest", Case: "annals ingest (binary)", Backend: "sqlite", Rate: cliRate, Unit: "entries/s",
			Baseline: &Baseline{Name: "raw", Rate: rawRate}, Ratio: ratio(cliRate, rawRate),
			Target: fmt.Sprintf(">= %.1fx", targetBinaryIngestRatio), Met: boolp(ratio(cliRate, rawRate) >= targetBinaryIngestRatio),
			Note: fmt.Sprintf("with redaction; last run's wall %.1f s, max RSS %s%s", cliLast.wall.Seconds(), human.Bytes(cliLast.maxRSS), cli.note())})
	}
	return rawRate, nil
}

// libraryIngest ingests the corpus through ingest.Ingest into a fresh database at path.
func (b *runner) libraryIngest(ctx context.Context, path, what string) (*ingest.Report, error) {
	removeDB(path)
	store, err := b.opts.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	rep, err := b.ingestFile(ctx, store, b.data.corpusPath, what)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	return rep, err
}

// binaryIngest runs 'annals ingest' (the whole command, with redaction) into a fresh database.
func (b *runner) binaryIngest(ctx context.Context, scratch, of string) (*ingestRun, error) {
	cliPath := filepath.Join(scratch, "cli.db")
	defer removeDB(cliPath)
	b.logf("ingest: %s ingest into %s, %s", b.opts.AnnalsBin, cliPath, of)
	return b.cliIngest(ctx, scratch, cliPath, b.data.corpusPath)
}

// decodePass times one pass of the capture-format decoder over the corpus. When capture is set,
// every op is handed to it: the redaction row passes history.RedactingCapture in front of a
// store that keeps nothing, the very path annals ingest takes, without the database.
func decodePass(ctx context.Context, path string, capture annals.CaptureStore) (time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := time.Now()
	dec := ingest.NewDecoder(f)
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		if capture != nil {
			if _, err := capture.Capture(ctx, []annals.CaptureOp{line.Op}); err != nil {
				return 0, err
			}
		}
		if dec.LineNumber()%10000 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(start), nil
}

// redactingDiscard is the capture path with the built-in redaction rules in front of discard.
func redactingDiscard() (annals.CaptureStore, error) {
	red, err := redact.New(redact.Config{})
	if err != nil {
		return nil, err
	}
	return &history.RedactingCapture{Store: discard{}, Redactor: red}, nil
}

// discard is a capture store that keeps nothing; only Capture is ever called on it.
type discard struct{ annals.CaptureStore }

func (discard) Capture(context.Context, []annals.CaptureOp) (*annals.CaptureResult, error) {
	return &annals.CaptureResult{}, nil
}

type ingestRun struct {
	entries  int
	duration time.Duration
	wall     time.Duration
	maxRSS   int64
}

// emptyConfig writes a configuration file holding nothing, so the binary runs with the built-in
// defaults whatever the user's own configuration says.
func emptyConfig(scratch string) (string, error) {
	cfgPath := filepath.Join(scratch, "empty-config.yaml")
	if err := os.WriteFile(cfgPath, []byte("# annals bench: the built-in defaults\n"), 0o600); err != nil {
		return "", err
	}
	return cfgPath, nil
}

// cliIngest runs 'annals ingest' as a subprocess with the built-in configuration, and takes the
// rate from its own report (both passes, without process start).
func (b *runner) cliIngest(ctx context.Context, scratch, dbPath, corpusPath string) (*ingestRun, error) {
	cfgPath, err := emptyConfig(scratch)
	if err != nil {
		return nil, err
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, b.opts.AnnalsBin, "ingest", "--db", dbPath, "--config", cfgPath, "--json", "--quiet", corpusPath)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s ingest: %w: %s", b.opts.AnnalsBin, err, strings.TrimSpace(errOut.String()))
	}
	wall := time.Since(start)
	var rep struct {
		EntriesAppended int   `json:"entries_appended"`
		DurationNS      int64 `json:"duration_ns"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("annals ingest printed no JSON report: %w: %q", err, out.String())
	}
	return &ingestRun{entries: rep.EntriesAppended, duration: time.Duration(rep.DurationNS), wall: wall, maxRSS: maxRSS(cmd.ProcessState)}, nil
}
