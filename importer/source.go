package importer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// readJob reads one candidate: it compares the source with its import state and reads what
// changed, handing what it produced to send (the writer) as it goes, and last the job's end.
// It reads the store but never writes it.
func (im *Importer) readJob(ctx context.Context, c Candidate, run *runState, send func(item)) {
	job := &sourceJob{c: c, w: &applier{ctx: ctx, im: im, run: run, path: c.Path, format: c.Format.Name()}}
	defer send(item{job: job})
	src, fi, err := candidateSource(c)
	if err != nil {
		job.err = err
		return
	}
	path := src.Path
	job.w.path = path
	prev, err := im.previousSource(ctx, path, c.Format.Name())
	if err != nil {
		job.err = err
		return
	}
	if prev != nil && prev.Format != "" && prev.GoneAt == nil && prev.LastError == "" && src.DSN == "" &&
		prev.Size == src.Size && prev.ModTime.Equal(src.ModTime) {
		job.parsed.Unchanged++
		return
	}

	out := newOutput(ctx, im, run, src, c.Format.Name(), &job.parsed, job, func(b *batch) { send(item{job: job, batch: b}) })
	next := &annals.ImportSource{Path: path, Format: c.Format.Name(), Size: src.Size, ModTime: src.ModTime, ImportedAt: im.opts.Now()}
	if prev != nil {
		next.ChatIDs, next.Entries = prev.ChatIDs, prev.Entries
		// Entries stored in a preliminary form (a tool call without its result) are read
		// again from the checkpoint before them, so they are removed first.
		for _, p := range prev.Provisional {
			out.truncateProvisional(p)
		}
	}
	job.err = im.readSource(ctx, c.Format, src, fi, prev, next, out, &job.parsed)
	job.warns = out.takeWarnings()
	job.save = !im.opts.DryRun
	job.prev, job.next, job.chatOrder = prev, next, out.chatOrder
}

// finishSource ends a job on the writer's side, after its batches: it saves the new import
// state (or records the failure, keeping the old checkpoint) and returns what the source did.
func (im *Importer) finishSource(ctx context.Context, job *sourceJob) (*Counts, error) {
	job.w.run.addWarnings(job.warns)
	counts := job.parsed
	counts.add(&job.w.counts)
	err := job.err
	if job.w.err != nil {
		err = job.w.err // what stopped the reading, when it was a write
	}
	if !job.save {
		return &counts, err
	}
	path, format := job.w.path, job.c.Format.Name()
	if err != nil {
		if ctx.Err() != nil {
			return &counts, err
		}
		return &counts, im.saveFailed(ctx, path, format, job.prev, job.next, job.chatOrder, err)
	}
	if job.stateSaved {
		return &counts, nil // saved in the transaction of its data (group.go)
	}
	if err := im.store.SaveImportSource(ctx, job.state(&counts)); err != nil {
		return &counts, fmt.Errorf("saving import state of %s: %w", path, err)
	}
	return &counts, nil
}

// state is the import state a source read without failure leaves, given what it wrote (counts):
// a new value, job.next itself unchanged, so that it may be computed inside a transaction that
// then fails.
func (job *sourceJob) state(counts *Counts) *annals.ImportSource {
	next := *job.next
	next.ChatIDs = mergeIDs(next.ChatIDs, job.chatOrder)
	next.Entries += int64(counts.Entries - counts.Removed)
	if next.Entries < 0 {
		next.Entries = 0
	}
	return &next
}

// previousSource is the import state of path, or nil when it was never read.
func (im *Importer) previousSource(ctx context.Context, path, format string) (*annals.ImportSource, error) {
	prev, err := im.store.FindImportSource(ctx, path)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		prev, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading import state of %s: %w", path, err)
	}
	if prev != nil && prev.Format != format {
		// Another format read this path before (a file that changed shape, or a forced
		// format): start over, keeping the chat list so the bookkeeping stays complete.
		prev = &annals.ImportSource{Path: path, ChatIDs: prev.ChatIDs, Entries: prev.Entries}
	}
	return prev, nil
}

// readSource reads the source with its format's parser and flushes what it produced; a source
// the parser finds unchanged counts as such and is no error.
func (im *Importer) readSource(ctx context.Context, f reader.Format, src *reader.Source, fi fs.FileInfo, prev, next *annals.ImportSource, out *output, counts *Counts) error {
	var err error
	switch p := f.(type) {
	case reader.LineParser:
		err = im.readLines(ctx, p, src, prev, next, out)
	case reader.FileParser:
		err = im.readWhole(ctx, p, src, fi, prev, next, out, counts)
	default:
		err = fmt.Errorf("format %s implements neither LineParser nor FileParser", f.Name())
	}
	if err == nil {
		out.releaseAll()
		err = out.flush()
	}
	if errors.Is(err, errUnchanged) {
		counts.Unchanged++
		err = nil
	}
	return err
}

// saveFailed records a failed read. It keeps the old checkpoint, so the next run reads the
// same bytes again; the error makes the next run retry even if the source does not change.
func (im *Importer) saveFailed(ctx context.Context, path, format string, prev, next *annals.ImportSource, chatOrder []string, err error) error {
	failed := next
	if prev != nil {
		cp := *prev
		failed = &cp
		failed.Format = format
	}
	failed.Path, failed.LastError = path, describeErr(err)
	failed.ChatIDs = mergeIDs(failed.ChatIDs, chatOrder)
	if serr := im.store.SaveImportSource(ctx, failed); serr != nil {
		return errors.Join(err, serr)
	}
	return err
}

// errUnchanged reports a source whose content is what was imported last time.
var errUnchanged = errors.New("unchanged")

// readWhole reads a FileParser source when its content hash differs from the last import.
func (im *Importer) readWhole(ctx context.Context, p reader.FileParser, src *reader.Source, fi fs.FileInfo, prev, next *annals.ImportSource, out *output, counts *Counts) error {
	if src.DSN != "" {
		// A database server has no content to hash: it is read whole every time, and the
		// entries already stored are skipped by id.
		return parseWhole(ctx, p, src, next, out)
	}
	sum, err := fingerprint(src.Path, fi)
	if err != nil {
		return err
	}
	next.Hash = sum
	if prev != nil && prev.Hash == sum && prev.LastError == "" && prev.GoneAt == nil && len(prev.Provisional) == 0 {
		// Touched but not changed: remember the new size and time, read nothing. (Provisional
		// entries were removed before this read, so a source holding some is read again.)
		return errUnchanged
	}
	return parseWhole(ctx, p, src, next, out)
}

// parseWhole parses a FileParser source and keeps what it marked provisional.
func parseWhole(ctx context.Context, p reader.FileParser, src *reader.Source, next *annals.ImportSource, out *output) error {
	if err := p.ParseFile(ctx, src, out); err != nil {
		return fmt.Errorf("%s: %w", src.Path, err)
	}
	next.Provisional = out.markedProvisional()
	return nil
}

// fingerprint is the hex SHA-256 of a file's content, or of a directory's listing (relative
// path, size and modification time of every file beneath it).
func fingerprint(path string, fi fs.FileInfo) (string, error) {
	h := sha256.New()
	if !fi.IsDir() {
		r, err := reader.OpenReadOnly(path)
		if err != nil {
			return "", err
		}
		defer r.Close()
		if _, err := io.Copy(h, r); err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	var lines []string
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(path, p)
		lines = append(lines, fmt.Sprintf("%s\x00%d\x00%d", rel, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	sort.Strings(lines)
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkpoint is a settled point of a line file: where the next import resumes.
type checkpoint struct {
	offset int64
	line   int
	state  json.RawMessage
	hash   []byte // the marshalled SHA-256 state over the bytes before offset
}

// lineBuffer is the size of the line reader's buffer.
const lineBuffer = 256 << 10

// lineReader returns the run's line reader, emptied and reading from f. Sources are read one
// after another, so one buffer serves them all: a buffer per source was a tenth of the bytes
// an import of 450 sessions allocated (117 MB), each a collection's worth of garbage to clear.
func (run *runState) lineReader(f io.Reader) *bufio.Reader {
	if run.lines == nil {
		run.lines = bufio.NewReaderSize(f, lineBuffer)
	} else {
		run.lines.Reset(f)
	}
	return run.lines
}

// readLines reads a LineParser source from its last checkpoint (when the bytes before it are
// unchanged) or from the start.
func (im *Importer) readLines(ctx context.Context, p reader.LineParser, src *reader.Source, prev, next *annals.ImportSource, out *output) error {
	f, err := os.Open(src.Path)
	if err != nil {
		return fmt.Errorf("opening %s: %w", src.Path, err)
	}
	defer f.Close()

	sess, h, cp, err := resumeLines(f, p, src, prev)
	if err != nil {
		return err
	}

	r := out.run.lineReader(f)
	offset, line := cp.offset, cp.line
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, complete, tooLong, rerr := reader.ReadLine(r, reader.MaxLineBytes)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("reading %s: %w", src.Path, rerr)
		}
		if len(b) == 0 && !tooLong && errors.Is(rerr, io.EOF) {
			break
		}
		if !complete {
			// The last line has no line ending yet: the tool may be writing it. It is parsed
			// provisionally (its entries are read again with the rest of the line next time)
			// and a parse failure is not reported, since the line may be half written.
			if !tooLong {
				out.line, out.quiet = line+1, true
				err := sess.Line(ctx, line+1, reader.TrimEOL(b), out)
				out.quiet = false
				if err != nil {
					return err
				}
			}
			break
		}
		line++
		offset += int64(len(b))
		h.Write(b)
		out.line = line
		if tooLong {
			out.Warnf(line, "line is longer than %d bytes; skipped", reader.MaxLineBytes)
		} else if err := sess.Line(ctx, line, reader.TrimEOL(b), out); err != nil {
			return err
		}
		if err := out.stopped(); err != nil {
			return err
		}
		if sess.Settled() {
			if cp, err = settledCheckpoint(sess, h, src, offset, line); err != nil {
				return err
			}
			out.settle()
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
	}
	if err := sess.Finish(ctx, out); err != nil {
		return err
	}
	sum, err := sumMarshalled(cp.hash)
	if err != nil {
		return err
	}
	next.Offset, next.Line, next.State, next.Hash = cp.offset, cp.line, cp.state, sum
	next.Provisional = out.provisional()
	return nil
}

// resumeLines starts the parser session: from the previous checkpoint when the file still
// begins with the bytes it covers, else from the start. h holds the hash of the bytes before
// the checkpoint, and the returned checkpoint its marshalled state.
func resumeLines(f *os.File, p reader.LineParser, src *reader.Source, prev *annals.ImportSource) (reader.LineSession, hash.Hash, checkpoint, error) {
	h := sha256.New()
	cp := checkpoint{}
	if prev != nil && prev.Offset > 0 && prev.Offset <= src.Size && prev.Hash != "" {
		n, err := io.CopyN(h, f, prev.Offset)
		if err == nil && n == prev.Offset && hex.EncodeToString(h.Sum(nil)) == prev.Hash {
			cp = checkpoint{offset: prev.Offset, line: prev.Line, state: prev.State}
		} else {
			// The file was rewritten, not appended to: read it all again. Entries already
			// stored are skipped by id.
			h.Reset()
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return nil, nil, cp, fmt.Errorf("rewinding %s: %w", src.Path, err)
			}
		}
	}
	sess, err := p.NewSession(src, cp.state)
	if err != nil && cp.state != nil {
		// A state written by another version of the parser: start over.
		h.Reset()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, cp, fmt.Errorf("rewinding %s: %w", src.Path, err)
		}
		cp = checkpoint{}
		sess, err = p.NewSession(src, nil)
	}
	if err != nil {
		return nil, nil, cp, fmt.Errorf("%s: %w", src.Path, err)
	}
	if cp.hash, err = marshalHash(h); err != nil {
		return nil, nil, cp, err
	}
	return sess, h, cp, nil
}

// settledCheckpoint is the checkpoint after line, where the session has nothing pending.
func settledCheckpoint(sess reader.LineSession, h hash.Hash, src *reader.Source, offset int64, line int) (checkpoint, error) {
	st, err := sess.State()
	if err != nil {
		return checkpoint{}, fmt.Errorf("%s line %d: saving parser state: %w", src.Path, line, err)
	}
	hs, err := marshalHash(h)
	if err != nil {
		return checkpoint{}, err
	}
	return checkpoint{offset: offset, line: line, state: st, hash: hs}, nil
}

func marshalHash(h hash.Hash) ([]byte, error) {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, errors.New("sha256 state cannot be saved")
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("saving sha256 state: %w", err)
	}
	return b, nil
}

func sumMarshalled(state []byte) (string, error) {
	h := sha256.New()
	if len(state) > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			return "", fmt.Errorf("restoring sha256 state: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func mergeIDs(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
