package importer

import (
	"context"
	"fmt"

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

func newOutput(ctx context.Context, im *Importer, run *runState, src *reader.Source, format string, counts *Counts) *output {
	return &output{
		ctx: ctx, im: im, run: run, src: src, format: format, counts: counts,
		chats: map[string]bool{}, badChats: map[string]bool{}, sinceCP: map[string]string{},
		held: map[string]*heldChat{}, derived: map[string]bool{},
	}
}

// Emit validates op and queues it.
func (o *output) Emit(op annals.CaptureOp) error {
	if o.err != nil {
		return o.err
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
		if err := o.flush(); err != nil {
			return err
		}
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
	if !o.im.agentRefused && o.format != "annals" {
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
		title = reader.DeriveTitle(e.Text)
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
	if len(o.run.report.WarningList) < o.im.opts.MaxWarnings {
		o.run.report.WarningList = append(o.run.report.WarningList, Warning{Path: o.src.Path, Line: line, Message: fmt.Sprintf(format, args...)})
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

// truncateProvisional removes an entry stored in a preliminary form, and what follows it.
func (o *output) truncateProvisional(p annals.ProvisionalEntry) {
	if o.im.opts.DryRun || o.err != nil {
		return
	}
	res, err := annals.TruncateChat(o.ctx, o.im.store, p.ChatID, annals.TruncatePoint{EntryID: p.EntryID})
	switch {
	case err == nil:
		o.counts.Removed += res.Removed
	case annals.ErrorCode(err) == annals.ENOTFOUND:
		// Already gone (the chat was deleted, or a previous run truncated it and failed).
	default:
		o.err = fmt.Errorf("removing provisional entries of %s: %w", p.ChatID, err)
	}
}

// flush applies the queued ops: runs of chats, appends and runs as one transaction each, split
// at truncations, which are applied one by one. A chat is created in the transaction of its
// first entries, titled already when its title is derived (titleAtCreation), so its search
// document is built once, not at creation, at its entries and again at its title.
func (o *output) flush() error {
	if o.err != nil {
		return o.err
	}
	ops := o.ops
	o.ops, o.pending = nil, 0
	if o.im.opts.DryRun || len(ops) == 0 {
		return nil
	}
	var seg []annals.CaptureOp
	for _, op := range ops {
		if op.Truncate == nil {
			if op.Chat != nil {
				op = o.titleAtCreation(op)
			}
			seg = append(seg, op)
			continue
		}
		if err := o.captureSeg(seg); err != nil {
			o.err = err
			return err
		}
		seg = nil
		res, err := annals.TruncateChat(o.ctx, o.im.store, op.Truncate.ChatID, op.Truncate.Point)
		switch {
		case err == nil:
			o.counts.Removed += res.Removed
		case annals.ErrorCode(err) == annals.ENOTFOUND:
			o.Warnf(o.line, "rewind of chat %s: %s", op.Truncate.ChatID, annals.ErrorMessage(err))
		default:
			o.err = fmt.Errorf("rewinding chat %s: %w", op.Truncate.ChatID, err)
			return o.err
		}
	}
	if err := o.captureSeg(seg); err != nil {
		o.err = err
		return err
	}
	o.run.progressWith(o.src.Path, o.counts)
	return nil
}

// titleAtCreation gives a chat op carrying a derived title (DerivedTitleAttr) that title, so
// the chat is created titled. Only when Options.Titles can replace a derived title: a title
// from the source applied later (applyTitles) then still wins, as when the derived title was
// applied last. Otherwise the op is returned as it is and its derived title applied last.
func (o *output) titleAtCreation(op annals.CaptureOp) annals.CaptureOp {
	t := op.Chat.Attributes[reader.DerivedTitleAttr]
	if t == "" || op.Chat.Title != "" {
		return op
	}
	if _, ok := o.im.opts.Titles.(TitleReplacer); !ok {
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
func (o *output) captureSeg(seg []annals.CaptureOp) error {
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
		return o.captureApart(seg)
	}
	res, err := o.im.store.Capture(o.ctx, compact(seg))
	if err != nil && chats > 0 {
		if c := annals.ErrorCode(err); c == annals.ECONFLICT || c == annals.EFORBIDDEN {
			return o.captureApart(seg)
		}
	}
	if err != nil {
		return fmt.Errorf("writing entries of %s: %w", o.src.Path, err)
	}
	o.countCapture(res)
	return nil
}

func (o *output) countCapture(res *annals.CaptureResult) {
	o.counts.Chats += res.ChatsCreated
	o.counts.Entries += res.EntriesAppended
	o.counts.Skipped += res.EntriesSkipped
	o.counts.Removed += res.EntriesRemoved
}

// captureApart applies a segment with each chat created in a transaction of its own, and the
// appends and runs between them as one transaction each.
func (o *output) captureApart(ops []annals.CaptureOp) error {
	st := o.im.store
	var seg []annals.CaptureOp
	capture := func() error {
		if len(seg) == 0 {
			return nil
		}
		res, err := st.Capture(o.ctx, compact(seg))
		seg = nil
		if err != nil {
			return fmt.Errorf("writing entries of %s: %w", o.src.Path, err)
		}
		o.countCapture(res)
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
		res, err := o.createChat(st, op)
		switch {
		case err == nil:
			o.counts.Chats += res.ChatsCreated
			if t := op.Chat.Attributes[reader.DerivedTitleAttr]; t != "" && op.Chat.Title == "" && res.ChatsCreated > 0 {
				o.run.derived = append(o.run.derived, annals.PendingTitle{SourceID: op.Chat.ID, Title: t})
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
