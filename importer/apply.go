package importer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// The write side of an import. Reading a source (parsing, validating, holding chats for their
// titles) and writing what it produced are split: the reader hands batches to an applier, which
// applies them in order. Import reads the next sources on a goroutine of its own while the
// goroutine that called it writes (pipelined), so on two cores the parsing of one file overlaps
// the transactions of the one before; ImportPath reads and writes on one goroutine. Everything
// that touches the store's writes, the report and progress runs on the calling goroutine.

// batch is what the reader hands the writer: a flush's ops, or a provisional entry to remove,
// with the warnings the reader kept since the batch before (added to the report first, so it
// lists warnings in the order they happened) and its counts so far (for progress).
type batch struct {
	ops    []annals.CaptureOp
	trunc  *annals.ProvisionalEntry
	line   int
	warns  []Warning
	parsed Counts
}

// errWriteFailed stops the reading of a source whose writes failed; the applier holds the
// failure itself, which is what the source reports.
var errWriteFailed = errors.New("importer: a write of this source failed")

// sourceJob is one source on its way through an import: its reader fills the fields below
// before it hands over the job's end (a nil batch), and the writer reads them after.
type sourceJob struct {
	c Candidate
	w *applier
	// parsed is what reading counted (warnings, unchanged, and in a dry run what was read).
	parsed Counts
	warns  []Warning
	// save is set when the source's import state is to be saved (or its failure recorded):
	// not for a source left unread (unchanged, or failed before it was read) or a dry run.
	save       bool
	prev, next *annals.ImportSource
	// batched is set by the writer once a batch of the source reached it (group.go).
	chatOrder []string
	err       error
	batched   bool
	// stateSaved is set by the writer once the source's import state was saved in the
	// transaction of its data (group.go): its end saves nothing more.
	stateSaved bool
}

// item is one step of a source for the writer: a batch, or with none the source's end.
type item struct {
	job   *sourceJob
	batch *batch
}

// applier applies one source's batches. Its fields are the writer's, except failed, which the
// reader reads to stop early.
type applier struct {
	ctx    context.Context
	im     *Importer
	run    *runState
	path   string
	format string
	counts Counts
	line   int // the line of the batch being applied, for warnings
	err    error
	failed atomic.Bool
}

// fail records the source's first write failure.
func (w *applier) fail(err error) {
	if w.err == nil {
		w.err = err
		w.failed.Store(true)
	}
}

// addWarnings adds the reader's kept warnings to the report, up to the report's bound.
func (run *runState) addWarnings(ws []Warning) {
	for _, w := range ws {
		if len(run.report.WarningList) < run.im.opts.MaxWarnings {
			run.report.WarningList = append(run.report.WarningList, w)
		}
	}
}

// Warnf counts and keeps a warning of the write side.
func (w *applier) Warnf(line int, format string, args ...any) {
	w.counts.Warnings++
	w.run.addWarnings([]Warning{{Path: w.path, Line: line, Message: fmt.Sprintf(format, args...)}})
}

// apply applies one batch, unless a batch of the source failed before.
func (w *applier) apply(b *batch) {
	w.run.addWarnings(b.warns)
	if w.err != nil {
		return
	}
	w.line = b.line
	if b.trunc != nil {
		w.truncateProvisional(*b.trunc)
		return
	}
	if err := w.applyOps(b.ops); err != nil {
		w.fail(err)
		return
	}
	w.progress(b)
}

// stateAfter is the import state to save with a group's transaction, given what the source's
// one batch wrote (res): nil when its end saves none, or only a failure (a reading error).
func (job *sourceJob) stateAfter(res *annals.CaptureResult) *annals.ImportSource {
	if !job.savesState() {
		return nil
	}
	counts := job.parsed
	counts.add(&job.w.counts)
	counts.Entries += res.EntriesAppended // as countCapture will count them once it committed
	counts.Removed += res.EntriesRemoved
	return job.state(&counts)
}

// savesState reports whether the source's end saves its import state (not only a failure).
func (job *sourceJob) savesState() bool { return job.save && job.err == nil && job.w.err == nil }

// applied counts a batch that a group's transaction wrote (group.go), as apply would have.
func (w *applier) applied(b *batch, res *annals.CaptureResult) {
	w.run.addWarnings(b.warns)
	w.countCapture(res)
	w.progress(b)
}

// progress reports the run with the source so far, after one of its batches.
func (w *applier) progress(b *batch) {
	cur := b.parsed
	cur.add(&w.counts)
	w.run.progressWith(w.path, &cur)
}

// truncateProvisional removes an entry stored in a preliminary form, and what follows it.
func (w *applier) truncateProvisional(p annals.ProvisionalEntry) {
	res, err := annals.TruncateChat(w.ctx, w.im.store, p.ChatID, annals.TruncatePoint{EntryID: p.EntryID})
	switch {
	case err == nil:
		w.counts.Removed += res.Removed
	case annals.ErrorCode(err) == annals.ENOTFOUND:
		// Already gone (the chat was deleted, or a previous run truncated it and failed).
	default:
		w.fail(fmt.Errorf("removing provisional entries of %s: %w", p.ChatID, err))
	}
}

// applyOps applies a flush's ops: runs of chats, appends and runs as one transaction each, split
// at truncations, which are applied one by one. A chat is created in the transaction of its
// first entries, titled already when its title is derived (titleAtCreation), so its search
// document is built once, not at creation, at its entries and again at its title.
func (w *applier) applyOps(ops []annals.CaptureOp) error {
	var seg []annals.CaptureOp
	for _, op := range ops {
		if op.Truncate == nil {
			if op.Chat != nil {
				op = w.titleAtCreation(op)
			}
			seg = append(seg, op)
			continue
		}
		if err := w.captureSeg(seg); err != nil {
			return err
		}
		seg = nil
		res, err := annals.TruncateChat(w.ctx, w.im.store, op.Truncate.ChatID, op.Truncate.Point)
		switch {
		case err == nil:
			w.counts.Removed += res.Removed
		case annals.ErrorCode(err) == annals.ENOTFOUND:
			w.Warnf(w.line, "rewind of chat %s: %s", op.Truncate.ChatID, annals.ErrorMessage(err))
		default:
			return fmt.Errorf("rewinding chat %s: %w", op.Truncate.ChatID, err)
		}
	}
	return w.captureSeg(seg)
}

// titleAtCreation gives a chat op carrying a derived title (DerivedTitleAttr) that title, so
// the chat is created titled. Only when Options.Titles can replace a derived title: a title
// from the source applied later (applyTitles) then still wins, as when the derived title was
// applied last. Otherwise the op is returned as it is and its derived title applied last.
func (w *applier) titleAtCreation(op annals.CaptureOp) annals.CaptureOp {
	t := op.Chat.Attributes[reader.DerivedTitleAttr]
	if t == "" || op.Chat.Title != "" {
		return op
	}
	if _, ok := w.im.opts.Titles.(TitleReplacer); !ok {
		return op
	}
	c := *op.Chat
	c.Title = reader.Truncated(t, annals.MaxTitleBytes)
	return annals.CaptureOp{Chat: &c}
}

// captureSeg applies a segment of chats, appends and runs in one transaction. When the store
// refuses one of its chats (a conflict with a stored chat's immutable data, or an agent the key
// may not create chats for), the transaction was rolled back and the segment is applied again
// with each chat on its own (captureApart), where those refusals are handled.
func (w *applier) captureSeg(seg []annals.CaptureOp) error {
	if len(seg) == 0 {
		return nil
	}
	chats, derivedLast := 0, false
	for _, op := range seg {
		if op.Chat != nil {
			chats++
			derivedLast = derivedLast || op.Chat.Title == "" && op.Chat.Attributes[reader.DerivedTitleAttr] != ""
		}
	}
	if derivedLast {
		// A derived title applied last needs to know which chat this run created.
		return w.captureApart(seg)
	}
	res, err := w.im.store.Capture(w.ctx, compact(seg))
	if err != nil && chats > 0 {
		if c := annals.ErrorCode(err); c == annals.ECONFLICT || c == annals.EFORBIDDEN {
			return w.captureApart(seg)
		}
	}
	if err != nil {
		return fmt.Errorf("writing entries of %s: %w", w.path, err)
	}
	w.countCapture(res)
	return nil
}

func (w *applier) countCapture(res *annals.CaptureResult) {
	w.counts.Chats += res.ChatsCreated
	w.counts.Entries += res.EntriesAppended
	w.counts.Skipped += res.EntriesSkipped
	w.counts.Removed += res.EntriesRemoved
}

// captureApart applies a segment with each chat created in a transaction of its own, and the
// appends and runs between them as one transaction each.
func (w *applier) captureApart(ops []annals.CaptureOp) error {
	st := w.im.store
	var seg []annals.CaptureOp
	capture := func() error {
		if len(seg) == 0 {
			return nil
		}
		res, err := st.Capture(w.ctx, compact(seg))
		seg = nil
		if err != nil {
			return fmt.Errorf("writing entries of %s: %w", w.path, err)
		}
		w.countCapture(res)
		return nil
	}
	for _, op := range ops {
		if op.Chat == nil {
			seg = append(seg, op)
			continue
		}
		if err := capture(); err != nil {
			return err
		}
		res, err := w.createChat(st, op)
		switch {
		case err == nil:
			w.counts.Chats += res.ChatsCreated
			if t := op.Chat.Attributes[reader.DerivedTitleAttr]; t != "" && op.Chat.Title == "" && res.ChatsCreated > 0 {
				w.run.derived = append(w.run.derived, annals.PendingTitle{SourceID: op.Chat.ID, Title: t})
			}
		case annals.ErrorCode(err) == annals.ECONFLICT:
			// The chat exists with other immutable data: a chat first imported from a
			// partial file (before its model was known), or by an older parser. The
			// stored chat stands; its transcript is still completed.
		default:
			return fmt.Errorf("creating chat %s: %w", op.Chat.ID, err)
		}
	}
	return capture()
}

// createChat creates one chat. When the store refuses the chat for the agent the importer gave
// it (a member key without a user or agent creates only chats without one), the chat is
// created without an agent, and so is every later chat of this importer; the refusal is
// reported once (a source read ahead may still ask for the agent, and is refused quietly).
func (w *applier) createChat(st annals.CaptureStore, op annals.CaptureOp) (*annals.CaptureResult, error) {
	res, err := st.Capture(w.ctx, []annals.CaptureOp{op})
	if annals.ErrorCode(err) != annals.EFORBIDDEN || op.Chat.AgentID == "" || w.format == "annals" || w.im.opts.AgentID != "" {
		return res, err
	}
	if !w.im.agentRefused.Swap(true) {
		w.Warnf(w.line, "chats imported without an agent: %s", annals.ErrorMessage(err))
	}
	c := *op.Chat
	c.AgentID = ""
	return st.Capture(w.ctx, []annals.CaptureOp{{Chat: &c}})
}
