package history

import (
	"context"

	"github.com/annals-dev/annals"
)

// RedactingCapture is the capture path with redaction in front of a store: every text field of
// every chat and entry is scrubbed before it reaches the store, so transcripts are stored already
// redacted and no read path can return what redaction would have masked. The caller's values are
// never modified: each op is copied before it is scrubbed.
type RedactingCapture struct {
	Store    annals.CaptureStore
	Redactor annals.Redactor
}

var _ annals.ImportCaptureStore = (*RedactingCapture)(nil)

// Capture redacts then applies ops in one transaction.
func (c *RedactingCapture) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	return c.Store.Capture(ctx, c.Scrub(ops))
}

// CaptureEach redacts every list, then applies them in one transaction when the store can
// (annals.CaptureEachStore). A store that cannot (PostgreSQL) is refused before anything is
// written: applying the lists one by one would break the contract's all or nothing (a list
// that failed after others committed would be taken for none applied, and written again).
func (c *RedactingCapture) CaptureEach(ctx context.Context, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	each, ok := c.Store.(annals.CaptureEachStore)
	if !ok {
		return nil, ErrNoCaptureEach
	}
	return each.CaptureEach(ctx, c.scrubEach(lists))
}

// scrubEach redacts every list.
func (c *RedactingCapture) scrubEach(lists [][]annals.CaptureOp) [][]annals.CaptureOp {
	scrubbed := make([][]annals.CaptureOp, len(lists))
	for i, ops := range lists {
		scrubbed[i] = c.Scrub(ops)
	}
	return scrubbed
}

// CaptureEachSaving redacts every list, then applies them and saves the import states in one
// transaction when the store can (annals.ImportCaptureStore: SQLite). A store that cannot is
// refused before anything is written (ErrNoCaptureEachSaving).
func (c *RedactingCapture) CaptureEachSaving(ctx context.Context, lists [][]annals.CaptureOp, states func([]*annals.CaptureResult) []*annals.ImportSource) ([]*annals.CaptureResult, error) {
	st, ok := c.Store.(annals.ImportCaptureStore)
	if !ok {
		return nil, ErrNoCaptureEachSaving
	}
	return st.CaptureEachSaving(ctx, c.scrubEach(lists), states)
}

// ErrNoCaptureEachSaving refuses capture lists with import states in one transaction over a
// store that cannot; nothing was written.
var ErrNoCaptureEachSaving = annals.Errorf(annals.ENOTIMPLEMENTED, "this store cannot save import state in the transaction of the captures: save it after them")

// CanCaptureEachSaving reports whether c applies CaptureEachSaving in one transaction.
func (c *RedactingCapture) CanCaptureEachSaving() bool {
	_, ok := c.Store.(annals.ImportCaptureStore)
	return ok
}

// ErrNoCaptureEach refuses several capture lists in one transaction over a store that cannot
// apply them so; nothing was written.
var ErrNoCaptureEach = annals.Errorf(annals.ENOTIMPLEMENTED, "this store cannot apply several capture lists in one transaction: capture them one by one")

// CanCaptureEach reports whether c applies CaptureEach in one transaction (its store can).
func (c *RedactingCapture) CanCaptureEach() bool {
	_, ok := c.Store.(annals.CaptureEachStore)
	return ok
}

// Scrub returns ops with every text field of every chat and entry redacted (ops themselves
// when there is no redactor); the caller's ops are not modified.
func (c *RedactingCapture) Scrub(ops []annals.CaptureOp) []annals.CaptureOp {
	if c.Redactor == nil {
		return ops
	}
	scrubbed := make([]annals.CaptureOp, len(ops))
	for i, op := range ops {
		scrubbed[i] = op
		switch {
		case op.Chat != nil:
			scrubbed[i].Chat = c.chat(op.Chat)
		case op.Append != nil:
			a := &annals.AppendOp{ChatID: op.Append.ChatID, Entries: make([]*annals.Entry, len(op.Append.Entries))}
			for j, e := range op.Append.Entries {
				a.Entries[j] = c.entry(e)
			}
			scrubbed[i].Append = a
		}
	}
	return scrubbed
}

func (c *RedactingCapture) chat(in *annals.Chat) *annals.Chat {
	out := *in
	out.Title, _ = c.Redactor.RedactText(in.Title)
	out.Description, _ = c.Redactor.RedactText(in.Description)
	out.Summary, _ = c.Redactor.RedactText(in.Summary)
	out.Tags = annals.RedactTags(c.Redactor, in.Tags)
	// Attribute values can carry credentials (a clone URL with a token in it). Redaction is
	// deterministic, so the same input always stores the same value and the idempotent-create
	// comparison of immutable data still holds.
	if len(in.Attributes) > 0 {
		out.Attributes = make(annals.Attributes, len(in.Attributes))
		for k, v := range in.Attributes {
			out.Attributes[k], _ = c.Redactor.RedactText(v)
		}
	}
	return &out
}

func (c *RedactingCapture) entry(in *annals.Entry) *annals.Entry {
	if in == nil {
		return nil // validation reports it
	}
	out := *in
	if in.Tool != nil {
		t := *in.Tool
		out.Tool = &t
	}
	// The Redactor contract replaces fields rather than writing into their bytes, so copying the
	// struct (and its tool) is enough to leave the caller's entry untouched.
	c.Redactor.RedactEntry(&out)
	return &out
}
