package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Defaults of Options.
const (
	DefaultBatchSize  = 1000
	DefaultBatchBytes = 64 << 20
	DefaultMaxErrors  = 20
)

// Options tune Ingest. The zero value is ready to use.
type Options struct {
	// BatchSize is how many records (non-blank lines) one transaction applies at most.
	// Zero or less means DefaultBatchSize.
	BatchSize int
	// BatchBytes bounds the input bytes of one batch, so that a file of large entries does not
	// hold BatchSize of them in memory at once. A single line larger than this is a batch of its
	// own. Zero or less means DefaultBatchBytes.
	BatchBytes int64
	// MaxErrors is how many invalid lines validation reports before it stops reading.
	// Zero or less means DefaultMaxErrors.
	MaxErrors int
	// Now gives records without a time their default, as in DecoderOptions. It is called once
	// per Ingest. Nil means time.Now.
	Now func() time.Time
	// Progress, when set, is called after every batch of both phases, from the calling goroutine.
	Progress func(Progress)
}

// Phase is the stage an ingest is in.
type Phase string

// Phases of an ingest, in order.
const (
	// PhaseValidate reads and checks the whole input; nothing is written.
	PhaseValidate Phase = "validate"
	// PhaseApply writes the input in batches.
	PhaseApply Phase = "apply"
)

// Progress is a snapshot of a running ingest, for progress bars.
type Progress struct {
	Phase Phase `json:"phase"`
	// Lines and Bytes are how far the current phase has read.
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
	// TotalBytes is the size of the input: known from the start for a seekable file, and
	// always during the apply phase. Zero means unknown.
	TotalBytes int64 `json:"total_bytes,omitempty"`
	// The committed counts so far (all zero while validating).
	annals.CaptureResult
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Report is what an ingest did.
type Report struct {
	// Lines and Bytes measure the input as validated, blank lines included.
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
	// Batches is how many transactions were committed.
	Batches int `json:"batches"`
	// The counts of what the committed batches did.
	annals.CaptureResult
	Duration time.Duration `json:"duration_ns"`
}

// Ingest reads the capture format from r and applies it to store.
//
// It first validates the whole input and writes nothing if any line is invalid: the error is an
// *annals.Error with code invalid listing up to Options.MaxErrors lines (errors.As finds the
// first *LineError). A seekable r (a regular file) is read twice from its current offset; any
// other reader is copied to a private temporary file while it is validated, and that copy is
// applied, so the input need not fit in memory.
//
// It then applies the input in batches of Options.BatchSize records, each batch one
// store.Capture call and so one transaction, in file order. Consecutive entries of one chat
// become one append. If a batch fails, that batch and everything after it is not written, while
// the batches before it stay committed; the error keeps the store's code (not_found, conflict,
// ...) and names the line of the failing record. Every record is idempotent (chats by id and
// immutable data, entries by chat and id, runs by id), so running the corrected input again
// finishes the job without duplicating anything.
//
// The returned Report is never nil: on error it counts what was committed before the failure.
// A failure to read r or to spool it is returned wrapped with %w; cancelling ctx stops the
// ingest between batches with ctx's error.
func Ingest(ctx context.Context, store annals.CaptureStore, r io.Reader, opts Options) (*Report, error) {
	in := &ingester{ctx: ctx, store: store, opts: opts.withDefaults(), start: time.Now(), report: &Report{}}
	now := in.opts.Now()
	in.now = func() time.Time { return now } // the same defaults in both passes
	err := in.run(r)
	in.report.Duration = time.Since(in.start)
	return in.report, err
}

func (o Options) withDefaults() Options {
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.MaxErrors <= 0 {
		o.MaxErrors = DefaultMaxErrors
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

type ingester struct {
	ctx    context.Context
	store  annals.CaptureStore
	opts   Options
	now    func() time.Time
	start  time.Time
	total  int64
	report *Report
}

func (in *ingester) run(r io.Reader) error {
	second, cleanup, err := in.validate(r)
	if err != nil {
		return err
	}
	defer cleanup()
	in.total = in.report.Bytes
	return in.apply(second)
}

// validate reads the whole input once and returns a reader over the same bytes for the apply
// pass, and a function that releases it.
func (in *ingester) validate(r io.Reader) (io.Reader, func(), error) {
	var (
		src   = r
		spool *os.File
		sw    *bufio.Writer
		seek  io.Seeker
		start int64
	)
	if s, ok := r.(io.ReadSeeker); ok {
		// A pipe is an *os.File too; only a Seek that works proves the input can be re-read.
		if off, err := s.Seek(0, io.SeekCurrent); err == nil {
			if end, err := s.Seek(0, io.SeekEnd); err == nil {
				if _, err := s.Seek(off, io.SeekStart); err != nil {
					return nil, nil, fmt.Errorf("ingest: rewinding input: %w", err)
				}
				seek, start, in.total = s, off, end-off
			}
		}
	}
	if seek == nil {
		f, err := os.CreateTemp("", "annals-ingest-*.jsonl") // mode 0600: transcripts are private
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: creating spool file: %w", err)
		}
		spool, sw = f, bufio.NewWriterSize(f, 256<<10)
		src = io.TeeReader(r, sw)
	}
	release := func() {
		if spool != nil {
			spool.Close()
			os.Remove(spool.Name())
		}
	}

	dec := NewDecoderOptions(src, DecoderOptions{Now: in.now})
	var lineErrs []error
	records := 0
	for {
		_, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) { // the reader or the spool failed
				release()
				return nil, nil, err
			}
			lineErrs = append(lineErrs, err)
			if len(lineErrs) >= in.opts.MaxErrors {
				break
			}
			continue
		}
		records++
		if records%in.opts.BatchSize == 0 {
			if err := in.ctx.Err(); err != nil {
				release()
				return nil, nil, err
			}
			in.progress(PhaseValidate, dec, annals.CaptureResult{})
		}
	}
	in.report.Lines, in.report.Bytes = dec.LineNumber(), dec.BytesRead()
	if len(lineErrs) > 0 {
		release()
		return nil, nil, invalidLines(lineErrs, len(lineErrs) >= in.opts.MaxErrors)
	}
	in.progress(PhaseValidate, dec, annals.CaptureResult{})

	if seek != nil {
		if _, err := seek.Seek(start, io.SeekStart); err != nil {
			return nil, nil, fmt.Errorf("ingest: rewinding input: %w", err)
		}
		// Only the validated bytes are applied, even if the file grew in between.
		return io.LimitReader(r, in.report.Bytes), release, nil
	}
	if err := sw.Flush(); err != nil {
		release()
		return nil, nil, fmt.Errorf("ingest: writing spool file: %w", err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		release()
		return nil, nil, fmt.Errorf("ingest: rewinding spool file: %w", err)
	}
	return spool, release, nil
}

// invalidLines combines line errors into one. A single error keeps its own message, so the
// common case reads exactly like the decoder's.
func invalidLines(errs []error, stopped bool) error {
	if len(errs) == 1 && !stopped {
		return errs[0]
	}
	var b strings.Builder
	if stopped {
		fmt.Fprintf(&b, "the input has at least %d invalid lines (stopped reading there); nothing was written:", len(errs))
	} else {
		fmt.Fprintf(&b, "the input has %d invalid lines; nothing was written:", len(errs))
	}
	for _, err := range errs {
		b.WriteString("\n")
		b.WriteString(annals.ErrorMessage(err))
	}
	return &annals.Error{Code: annals.EINVALID, Message: b.String(), Err: errors.Join(errs...)}
}

// batch is the ops of one transaction and the lines each op came from.
type batch struct {
	ops     []annals.CaptureOp
	lines   [][2]int // first and last line of each op
	records int
	bytes   int64
}

// add appends a line's op, merging an entry into the previous op when that op appends to the
// same chat, so a transcript becomes one append per batch instead of one per entry.
func (b *batch) add(l Line) {
	b.records++
	if a := l.Op.Append; a != nil && len(b.ops) > 0 {
		last := len(b.ops) - 1
		if prev := b.ops[last].Append; prev != nil && prev.ChatID == a.ChatID && len(prev.Entries) < annals.MaxBatchEntries {
			prev.Entries = append(prev.Entries, a.Entries...)
			b.lines[last][1] = l.Number
			return
		}
	}
	b.ops = append(b.ops, l.Op)
	b.lines = append(b.lines, [2]int{l.Number, l.Number})
}

func (in *ingester) apply(r io.Reader) error {
	dec := NewDecoderOptions(r, DecoderOptions{Now: in.now})
	var (
		b        batch
		lastRead int64
	)
	flush := func() error {
		if b.records == 0 {
			return nil
		}
		if err := in.ctx.Err(); err != nil {
			return fmt.Errorf("ingest: stopped before line %d: %w", b.lines[0][0], err)
		}
		res, err := in.store.Capture(in.ctx, b.ops)
		if err != nil {
			return applyError(err, &b, in.report.Batches > 0)
		}
		if res != nil {
			in.report.CaptureResult.Add(*res)
		}
		in.report.Batches++
		in.progress(PhaseApply, dec, in.report.CaptureResult)
		b = batch{}
		return nil
	}
	for {
		l, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// Validation passed, so this means the input changed under us (or the spool broke).
			return err
		}
		b.add(l)
		b.bytes += dec.BytesRead() - lastRead
		lastRead = dec.BytesRead()
		if b.records >= in.opts.BatchSize || b.bytes >= in.opts.BatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// applyError names the line of the op a batch failed on, keeping the store's code.
func applyError(err error, b *batch, committed bool) error {
	first := b.lines[0][0]
	where := fmt.Sprintf("lines %d-%d", first, b.lines[len(b.lines)-1][1])
	line := first
	if i, ok := annals.BatchIndex(err); ok && i >= 0 && i < len(b.ops) {
		lo, hi := b.lines[i][0], b.lines[i][1]
		line, where = lo, fmt.Sprintf("line %d", lo)
		if hi != lo {
			where = fmt.Sprintf("lines %d-%d", lo, hi)
		}
	}
	written := "nothing was written"
	if committed {
		written = fmt.Sprintf("lines before %d are committed, line %d and later were not written; running the corrected input again is safe", first, first)
	}
	return &annals.Error{
		Code:    annals.ErrorCode(err),
		Message: fmt.Sprintf("%s: %s (%s)", where, annals.ErrorMessage(err), written),
		Err:     &LineError{Line: line, Err: err},
	}
}

func (in *ingester) progress(phase Phase, dec *Decoder, res annals.CaptureResult) {
	if in.opts.Progress == nil {
		return
	}
	in.opts.Progress(Progress{
		Phase:         phase,
		Lines:         dec.LineNumber(),
		Bytes:         dec.BytesRead(),
		TotalBytes:    in.total,
		CaptureResult: res,
		Elapsed:       time.Since(in.start),
	})
}
