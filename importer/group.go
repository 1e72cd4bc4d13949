package importer

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Small sources are written together. Most session files hold a few dozen to a few hundred
// entries, and a write transaction has a fixed cost that does not depend on its size (the
// entry indexes' and chat documents' flushes, each FTS5 index's new segment and its merging,
// the commit's rewrite of the pages every transaction touches). A pipelined import whose store
// can apply several capture lists in one transaction (annals.CaptureEachStore) therefore
// gathers the sources that are one batch each, in their order, and writes them together once
// they hold groupEntries entries (or maxGroupSources sources). Each keeps its own result,
// so the report and every source's import state are what writing them one by one gives. The
// import states are saved in the group's transaction when the store can
// (annals.ImportCaptureStore: SQLite), else after it, as after a source's own. The caller opts
// in (Options.WriteTogether): the command line does for a local database.

// maxGroupSources bounds the sources of one group, and groupEntries its entries (or
// Options.BatchSize when smaller). Measured on the mixed corpus (docs/BENCHMARKS.md): groups of
// 1,000 entries spent more inserting the rows than the transactions they saved (their dirty
// pages outgrow SQLite's page cache), groups of 256 cut the import's CPU by ~5%.
const (
	maxGroupSources = 64
	groupEntries    = 256
)

// grouper gathers the sources of a pipelined import that can be written together.
type grouper struct {
	run  *runState
	each annals.CaptureEachStore
	// saving, when the store can, writes the members' import states in their transaction.
	saving annals.ImportCaptureStore
	// held is a source's batch waiting to see whether the source's end follows it.
	held *item
	// members are the sources gathered, each its one batch (its end follows the group's
	// transaction), and entries their entries.
	members []item
	entries int
}

// newGrouper returns a grouper, or nil when the import does not write sources together.
func newGrouper(run *runState) *grouper {
	each, ok := run.im.store.(annals.CaptureEachStore)
	if !ok || !run.im.opts.WriteTogether || run.im.opts.DryRun {
		return nil
	}
	return &grouper{run: run, each: each, saving: savingStore(run.im.store)}
}

// add takes the next item of the pipeline.
func (g *grouper) add(ctx context.Context, it item) {
	if g.held != nil {
		h := *g.held
		g.held = nil
		if it.batch == nil && it.job == h.job {
			// The source is this one batch: it joins the group.
			g.members = append(g.members, h)
			g.entries += batchEntries(h.batch)
			if g.entries >= min(g.run.im.opts.BatchSize, groupEntries) || len(g.members) >= maxGroupSources {
				g.flush(ctx)
			}
			return
		}
		g.flush(ctx)
		g.run.deliver(ctx, h)
	}
	if it.batch != nil && ctx.Err() == nil && groupable(it.batch, g.run.im.opts.Titles) && !it.job.batched {
		it.job.batched = true
		g.held = &it
		return
	}
	if it.batch != nil {
		it.job.batched = true
		g.flush(ctx)
	}
	g.run.deliver(ctx, it)
}

// batchEntries counts a batch's entries.
func batchEntries(b *batch) int {
	n := 0
	for _, op := range b.ops {
		if op.Append != nil {
			n += len(op.Append.Entries)
		}
	}
	return n
}

// groupable reports whether a batch is written as one transaction of its own ops (no
// truncation splits it, no chat waits for a derived title applied last), so that it can be a
// list of a group's transaction.
func groupable(b *batch, titles TitleSetter) bool {
	if b.trunc != nil {
		return false
	}
	_, replaces := titles.(TitleReplacer)
	for _, op := range b.ops {
		if op.Truncate != nil {
			return false
		}
		if op.Chat != nil && op.Chat.Title == "" && op.Chat.Attributes[reader.DerivedTitleAttr] != "" && !replaces {
			return false
		}
	}
	return true
}

// flush writes the gathered sources in one transaction and then ends each (its import state
// saved in the transaction, or after it as after a source written alone). When the store
// refuses it (a chat's conflict or agent, which writing the sources one by one handles), or
// ctx ended, each is delivered as it would have been alone.
func (g *grouper) flush(ctx context.Context) {
	members := g.members
	g.members, g.entries = nil, 0
	if len(members) == 0 {
		return
	}
	if ctx.Err() == nil {
		lists := make([][]annals.CaptureOp, len(members))
		for i, m := range members {
			ops := make([]annals.CaptureOp, len(m.batch.ops))
			for j, op := range m.batch.ops {
				if op.Chat != nil {
					op = m.job.w.titleAtCreation(op)
				}
				ops[j] = op
			}
			lists[i] = compact(ops)
		}
		if res, err := g.capture(ctx, members, lists); err == nil {
			for i, m := range members {
				m.job.w.applied(m.batch, res[i])
				g.run.deliver(ctx, item{job: m.job})
			}
			return
		}
	}
	for _, m := range members {
		g.run.deliver(ctx, m)
		g.run.deliver(ctx, item{job: m.job})
	}
}

// capture writes the members' lists in one transaction, with their import states when the
// store can save them in it (annals.ImportCaptureStore): then a crash after the commit leaves
// both, and one before it neither. Otherwise each state is saved after the transaction, when the
// member's end is delivered.
func (g *grouper) capture(ctx context.Context, members []item, lists [][]annals.CaptureOp) ([]*annals.CaptureResult, error) {
	if g.saving == nil {
		return g.each.CaptureEach(ctx, lists)
	}
	res, err := g.saving.CaptureEachSaving(ctx, lists, func(res []*annals.CaptureResult) []*annals.ImportSource {
		states := make([]*annals.ImportSource, len(members))
		for i, m := range members {
			states[i] = m.job.stateAfter(res[i])
		}
		return states
	})
	if err == nil {
		for _, m := range members {
			m.job.stateSaved = m.job.savesState()
		}
	}
	return res, err
}

// savingStore is the store as an annals.ImportCaptureStore, or nil when it cannot save import
// states in the transaction of its captures (it says so with CanCaptureEachSaving).
func savingStore(s Store) annals.ImportCaptureStore {
	st, ok := s.(annals.ImportCaptureStore)
	if !ok {
		return nil
	}
	if c, ok := s.(interface{ CanCaptureEachSaving() bool }); ok && !c.CanCaptureEachSaving() {
		return nil
	}
	return st
}

// end writes what is gathered, at the end of the pipeline.
func (g *grouper) end(ctx context.Context) {
	if g.held != nil {
		h := *g.held
		g.held = nil
		g.flush(ctx)
		g.run.deliver(ctx, h)
	}
	g.flush(ctx)
}
