package importer

import (
	"context"
	"fmt"
	"maps"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// output is the Output of one source during a run: it validates what a parser emits, batches
// entries into transactions, applies chats and truncations on their own so that one conflict
// or missing rewind point does not fail a batch, and tracks the entries emitted since the last
// checkpoint.
type output struct {
	ctx    context.Context
	im     *Importer
	run    *runState
	src    *reader.Source
	format string
	counts *Counts

	line  int  // the line being parsed, for warnings without one
	quiet bool // drop warnings (a half-written last line)

	ops     []annals.CaptureOp
	pending int // entries in ops

	chats     map[string]bool
	chatOrder []string
	badChats  map[string]bool

	sinceCP    map[string]string
	sinceOrder []string
	marks      provisionalMarks // what a FileParser marked provisional (provisional.go)

	// held are the ops of chats whose creation waits for a title to derive (titles.go):
	// a chat without a title is held until its first real prompt names it.
	held      map[string]*heldChat
	heldOrder []string
	derived   map[string]bool // chats whose hold ended in this source

	// job is the source's way to the writer, send how a batch is handed to it, and warns the
	// warnings kept since the last batch (apply.go).
	job   *sourceJob
	send  func(*batch)
	warns []Warning

	err error
}

// heldChat is a chat's creation and the ops after it, held until its title is derived.
type heldChat struct {
	ops     []annals.CaptureOp
	entries int
}

// maxHeldEntries bounds how many entries of a chat wait for its first real prompt; past it,
// the chat is created without a derived title.
const maxHeldEntries = 64

func newOutput(ctx context.Context, im *Importer, run *runState, src *reader.Source, format string, counts *Counts, job *sourceJob, send func(*batch)) *output {
	return &output{
		ctx: ctx, im: im, run: run, src: src, format: format, counts: counts, job: job, send: send,
		chats: map[string]bool{}, badChats: map[string]bool{}, sinceCP: map[string]string{},
		held: map[string]*heldChat{}, derived: map[string]bool{},
	}
}

// Emit validates op and queues it.
func (o *output) Emit(op annals.CaptureOp) error {
	if err := o.stopped(); err != nil {
		return err
	}
	switch {
	case op.Chat != nil:
		if o.emitChat(*op.Chat) {
			return o.err
		}
	case op.Append != nil:
		chatID := op.Append.ChatID
		if o.badChats[chatID] {
			return nil
		}
		for _, e := range op.Append.Entries {
			if e == nil {
				continue
			}
			fitEntry(e)
			e.ChatID = chatID
			if err := e.Validate(); err != nil {
				o.Warnf(o.line, "entry %s not imported: %s", e.ID, annals.ErrorMessage(err))
				continue
			}
			if _, ok := o.sinceCP[chatID]; !ok {
				o.sinceCP[chatID] = e.ID
				o.sinceOrder = append(o.sinceOrder, chatID)
			}
			if o.im.opts.DryRun {
				o.counts.Entries++
				continue
			}
			if h := o.held[chatID]; h != nil {
				o.holdEntry(chatID, h, e)
				continue
			}
			o.addEntry(chatID, e)
		}
	case op.Run != nil:
		if o.badChats[op.Run.ChatID] {
			return nil
		}
		if err := op.Run.Validate(); err != nil {
			o.Warnf(o.line, "run %s not imported: %s", op.Run.ID, annals.ErrorMessage(err))
			return nil
		}
		if h := o.held[op.Run.ChatID]; h != nil {
			h.ops = append(h.ops, op)
			return o.err
		}
		o.ops = append(o.ops, op)
	case op.Truncate != nil:
		if o.badChats[op.Truncate.ChatID] {
			return nil
		}
		if err := op.Validate(); err != nil {
			o.Warnf(o.line, "rewind not applied: %s", annals.ErrorMessage(err))
			return nil
		}
		if h := o.held[op.Truncate.ChatID]; h != nil {
			h.ops = append(h.ops, op)
			return o.err
		}
		o.ops = append(o.ops, op)
	default:
		return fmt.Errorf("importer: an empty capture op")
	}
	if o.pending >= o.im.opts.BatchSize || len(o.ops) >= 4*o.im.opts.BatchSize {
		return o.flush()
	}
	return o.err
}

// emitChat validates and queues a chat op (or holds it until its title is derived). It
// reports true when nothing more is to be done for the op (a bad chat, or one held).
func (o *output) emitChat(c annals.Chat) bool {
	if c.TenantID == "" {
		c.TenantID = o.im.opts.TenantID
	}
	if c.TenantID == "" {
		c.TenantID = "local"
	}
	if c.UserID == "" {
		c.UserID = o.im.opts.UserID
	}
	c.Attributes = withResume(o.im.resumers, &c)
	if t := c.Attributes[reader.DerivedTitleAttr]; t != "" {
		attrs := maps.Clone(c.Attributes) // the reader's map is not ours to change
		attrs[reader.DerivedTitleAttr] = o.derivedTitle(t)
		c.Attributes = attrs
	}
	if !o.im.agentRefused.Load() && o.format != "annals" {
		c.AgentID = chatAgent(o.format, o.im.opts.AgentID, &c)
	}
	if err := c.Validate(); err != nil {
		o.Warnf(o.line, "chat %s not imported: %s", c.ID, annals.ErrorMessage(err))
		o.badChats[c.ID] = true
		return true
	}
	if !o.chats[c.ID] {
		o.chats[c.ID] = true
		o.chatOrder = append(o.chatOrder, c.ID)
		if o.im.opts.DryRun {
			o.counts.Chats++
		}
	}
	if h := o.held[c.ID]; h != nil {
		h.ops = append(h.ops, annals.CaptureOp{Chat: &c})
		return true
	}
	if c.Title == "" && c.Attributes[reader.DerivedTitleAttr] == "" && !o.derived[c.ID] && !o.im.opts.DryRun {
		o.held[c.ID] = &heldChat{ops: []annals.CaptureOp{{Chat: &c}}}
		o.heldOrder = append(o.heldOrder, c.ID)
		return true
	}
	o.ops = append(o.ops, annals.CaptureOp{Chat: &c})
	return false
}

// derivedTitle is a derived title's text (reader.DeriveTitleText) redacted, then cut: cut
// first, a secret the cut runs through would no longer be recognized and its first part kept.
func (o *output) derivedTitle(text string) string {
	if o.im.opts.Redact != nil {
		text = o.im.opts.Redact(text)
	}
	return reader.CutTitle(text)
}

// holdEntry adds an entry to a held chat. The first user entry that gives a title ends the
// hold, with the title as the chat's derived title; so does the maxHeldEntries-th entry,
// without one.
func (o *output) holdEntry(chatID string, h *heldChat, e *annals.Entry) {
	h.entries++
	if n := len(h.ops); n > 0 {
		if a := h.ops[n-1].Append; a != nil && a.ChatID == chatID && len(a.Entries) < annals.MaxBatchEntries {
			a.Entries = append(a.Entries, e)
		} else {
			h.ops = append(h.ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}})
		}
	} else {
		h.ops = append(h.ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}})
	}
	title := ""
	if e.Kind == annals.KindUser {
		title = o.derivedTitle(reader.DeriveTitleText(e.Text))
	}
	if title != "" || h.entries >= maxHeldEntries {
		o.release(chatID, title)
	}
}

// release ends the hold of a chat: its creation (with the derived title, when there is one,
// in its attributes) and the ops held after it are queued in their order.
func (o *output) release(chatID, title string) {
	h := o.held[chatID]
	if h == nil {
		return
	}
	delete(o.held, chatID)
	for i, id := range o.heldOrder {
		if id == chatID {
			o.heldOrder = append(o.heldOrder[:i:i], o.heldOrder[i+1:]...)
			break
		}
	}
	o.derived[chatID] = true
	for _, op := range h.ops {
		switch {
		case op.Chat != nil:
			if title != "" {
				c := *op.Chat
				attrs := make(annals.Attributes, len(c.Attributes)+1)
				for k, v := range c.Attributes {
					attrs[k] = v
				}
				attrs[reader.DerivedTitleAttr] = title
				if len(attrs) <= annals.MaxAttributes {
					c.Attributes = attrs
				}
				op = annals.CaptureOp{Chat: &c}
			}
			o.ops = append(o.ops, op)
		case op.Append != nil:
			for _, e := range op.Append.Entries {
				o.addEntry(chatID, e)
			}
		default:
			o.ops = append(o.ops, op)
		}
	}
}

// releaseAll ends every hold, at the end of a source: those chats have no prompt to be
// titled by (yet).
func (o *output) releaseAll() {
	for len(o.heldOrder) > 0 {
		o.release(o.heldOrder[0], "")
	}
}

// addEntry queues an entry, merging it into the previous append of the same chat.
func (o *output) addEntry(chatID string, e *annals.Entry) {
	o.pending++
	if n := len(o.ops); n > 0 {
		if a := o.ops[n-1].Append; a != nil && a.ChatID == chatID && len(a.Entries) < annals.MaxBatchEntries {
			a.Entries = append(a.Entries, e)
			return
		}
	}
	o.ops = append(o.ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}})
}

// fitEntry bounds an entry's content to annals.MaxEntryBytes by cutting the largest text
// field, so one huge tool output is kept (cut, and marked so) instead of lost.
func fitEntry(e *annals.Entry) {
	reader.SanitizeEntry(e)
	for i := 0; i < 4 && e.Size() > annals.MaxEntryBytes; i++ {
		over := e.Size() - annals.MaxEntryBytes + 1024
		switch {
		case e.Tool != nil && len(e.Tool.Result) >= len(e.Text) && len(e.Tool.Result) >= len(e.Reasoning) && len(e.Tool.Result) > over:
			e.Tool.Result = reader.Truncated(e.Tool.Result, len(e.Tool.Result)-over)
		case len(e.Text) >= len(e.Reasoning) && len(e.Text) > over:
			e.Text = reader.Truncated(e.Text, len(e.Text)-over)
		case len(e.Reasoning) > over:
			e.Reasoning = reader.Truncated(e.Reasoning, len(e.Reasoning)-over)
		case len(e.Metadata) > 0:
			e.Metadata = nil
		case e.Tool != nil && len(e.Tool.Arguments) > over:
			// Arguments are JSON: cutting them would make them invalid, so keep them as a
			// string holding their cut text.
			e.Tool.Arguments = reader.JSONString(reader.Truncated(string(e.Tool.Arguments), len(e.Tool.Arguments)-over))
		default:
			return
		}
	}
}

// TitleBySourceID records a title for the run to apply.
func (o *output) TitleBySourceID(sourceID, title string) {
	if sourceID == "" || title == "" || o.im.opts.DryRun {
		return
	}
	if annals.ValidateID("source_id", sourceID) != nil {
		return
	}
	o.run.titles = append(o.run.titles, annals.PendingTitle{SourceID: sourceID, Title: reader.ValidText(title), CreatedAt: o.im.opts.Now()})
}

// TitleForChat records a title for the run to apply to chatID.
func (o *output) TitleForChat(chatID, title string) {
	if chatID == "" || title == "" || o.im.opts.DryRun {
		return
	}
	if _, ok := o.run.chatTitles[chatID]; !ok {
		o.run.chatTitles[chatID] = reader.ValidText(title)
		o.run.chatTitleOrder = append(o.run.chatTitleOrder, chatID)
	}
}

// Warnf counts a skipped line or record and keeps the first few.
func (o *output) Warnf(line int, format string, args ...any) {
	if o.quiet {
		return
	}
	o.counts.Warnings++
	// Kept until the next batch: the writer adds them to the report, before what it warns of
	// applying that batch, so the report lists them in the order they happened.
	if len(o.warns) < o.im.opts.MaxWarnings {
		o.warns = append(o.warns, Warning{Path: o.src.Path, Line: line, Message: fmt.Sprintf(format, args...)})
	}
}

// settle marks a checkpoint: what was emitted so far is final.
func (o *output) settle() {
	if len(o.sinceOrder) > 0 {
		clear(o.sinceCP)
		o.sinceOrder = o.sinceOrder[:0]
	}
}

// provisional lists the first entry emitted since the last checkpoint, per chat.
func (o *output) provisional() []annals.ProvisionalEntry {
	var out []annals.ProvisionalEntry
	for _, chatID := range o.sinceOrder {
		out = append(out, annals.ProvisionalEntry{ChatID: chatID, EntryID: o.sinceCP[chatID]})
	}
	return out
}

// truncateProvisional has the writer remove an entry stored in a preliminary form, and what
// follows it, before this source's ops.
func (o *output) truncateProvisional(p annals.ProvisionalEntry) {
	if o.im.opts.DryRun || o.stopped() != nil {
		return
	}
	o.send(&batch{trunc: &p, line: o.line, warns: o.takeWarnings(), parsed: *o.counts})
}

// flush hands the queued ops to the writer (apply.go), which applies them in this order after
// everything handed over before. It fails only when the writer failed on this source already.
func (o *output) flush() error {
	if err := o.stopped(); err != nil {
		return err
	}
	ops := o.ops
	o.ops, o.pending = nil, 0
	if o.im.opts.DryRun || len(ops) == 0 {
		return nil
	}
	o.send(&batch{ops: ops, line: o.line, warns: o.takeWarnings(), parsed: *o.counts})
	return nil
}

// stopped is the error that ends reading this source: the writer failed on it (it records the
// failure itself), or the output did.
func (o *output) stopped() error {
	if o.err != nil {
		return o.err
	}
	if o.job != nil && o.job.w.failed.Load() {
		return errWriteFailed
	}
	return nil
}

// takeWarnings returns the warnings kept since the last batch and forgets them.
func (o *output) takeWarnings() []Warning {
	w := o.warns
	o.warns = nil
	return w
}

// compact reorders one transaction's ops so the store does less work: its chats first (each before
// any entry of its own, as they were queued), then the appends and runs. The
// entries of a chat become one append even when run records came between them, and a run
// recorded several times (a split reply re-records its usage on every line) is recorded once,
// with its last values, after the entries. Runs and entries are independent rows, so only
// the order among each chat's entries, which is kept, matters.
func compact(seg []annals.CaptureOp) []annals.CaptureOp {
	out := make([]annals.CaptureOp, 0, len(seg))
	lastRun := map[string]int{}
	for i, op := range seg {
		switch {
		case op.Run != nil:
			lastRun[op.Run.ID] = i
		case op.Chat != nil:
			out = append(out, op) // chats first, in their order: before any entry of theirs
		}
	}
	for _, op := range seg {
		a := op.Append
		if a == nil {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Append != nil {
			if prev := out[n-1].Append; prev.ChatID == a.ChatID && len(prev.Entries)+len(a.Entries) <= annals.MaxBatchEntries {
				prev.Entries = append(prev.Entries, a.Entries...)
				continue
			}
		}
		out = append(out, annals.CaptureOp{Append: &annals.AppendOp{ChatID: a.ChatID, Entries: append([]*annals.Entry(nil), a.Entries...)}})
	}
	for i, op := range seg {
		if op.Run != nil && lastRun[op.Run.ID] == i {
			out = append(out, op)
		}
	}
	return out
}
