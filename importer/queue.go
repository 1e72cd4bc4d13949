package importer

import (
	"github.com/annals-dev/annals"
)

// maxQueue bounds how many ops wait behind a tool call without a result. A call whose result
// never comes (the agent was interrupted) must not hold the rest of the transcript back, nor
// keep a line file from checkpointing, forever.
const maxQueue = 256

// opQueue keeps a parser's ops in transcript order while tool calls wait for their results: a
// tool call and its result are one entry in annals, and the call's position is where it goes.
// Ops are emitted as soon as everything before them is complete.
type opQueue struct {
	items   []*queued
	waiting map[string]*queued // by call id
}

type queued struct {
	op      annals.CaptureOp
	callID  string // set while the tool entry waits for its result
	waiting bool
}

// push queues an op that is complete.
func (q *opQueue) push(op annals.CaptureOp) { q.items = append(q.items, &queued{op: op}) }

// pushEntry queues one entry of chatID.
func (q *opQueue) pushEntry(chatID string, e *annals.Entry) {
	q.push(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}})
}

// pushCall queues a tool entry that waits for the result of callID. A call id already waiting
// (a source that repeats an id) releases the older call as it is.
func (q *opQueue) pushCall(chatID, callID string, e *annals.Entry) {
	it := &queued{op: annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}}}
	if callID != "" {
		if q.waiting == nil {
			q.waiting = map[string]*queued{}
		}
		if old, ok := q.waiting[callID]; ok {
			old.waiting = false
		}
		it.callID, it.waiting = callID, true
		q.waiting[callID] = it
	}
	q.items = append(q.items, it)
}

// resolve hands the waiting tool entry of callID to fn and marks it complete. It reports false
// when no call waits for that id.
func (q *opQueue) resolve(callID string, fn func(e *annals.Entry)) bool {
	it, ok := q.waiting[callID]
	if !ok {
		return false
	}
	delete(q.waiting, callID)
	it.waiting = false
	fn(it.op.Append.Entries[0])
	return true
}

// update changes the waiting tool entry of callID in place, leaving it waiting.
func (q *opQueue) update(callID string, fn func(e *annals.Entry)) {
	if it, ok := q.waiting[callID]; ok {
		fn(it.op.Append.Entries[0])
	}
}

// pending reports whether a call waits for callID.
func (q *opQueue) pending(callID string) bool {
	_, ok := q.waiting[callID]
	return ok
}

// empty reports whether nothing is held back.
func (q *opQueue) empty() bool { return len(q.items) == 0 }

// flush emits the complete ops at the head of the queue. When the queue grew past maxQueue,
// the oldest waiting calls are released as they are.
func (q *opQueue) flush(out Output) error {
	for len(q.items) > maxQueue && q.items[0].waiting {
		q.release(q.items[0])
		if err := q.emitReady(out); err != nil {
			return err
		}
	}
	return q.emitReady(out)
}

func (q *opQueue) emitReady(out Output) error {
	i := 0
	for ; i < len(q.items) && !q.items[i].waiting; i++ {
		if err := out.Emit(q.items[i].op); err != nil {
			q.items = q.items[i+1:]
			return err
		}
	}
	q.items = q.items[i:]
	if len(q.items) == 0 {
		q.items = nil
	}
	return nil
}

// flushAll emits everything, releasing waiting calls without a result.
func (q *opQueue) flushAll(out Output) error {
	for _, it := range q.items {
		if it.waiting {
			q.release(it)
		}
	}
	return q.emitReady(out)
}

// releaseAll marks every waiting call complete without its result; the next flush emits them
// in their places.
func (q *opQueue) releaseAll() {
	for _, it := range q.items {
		if it.waiting {
			q.release(it)
		}
	}
}

func (q *opQueue) release(it *queued) {
	it.waiting = false
	if it.callID != "" && q.waiting[it.callID] == it {
		delete(q.waiting, it.callID)
	}
}

// opBuffer is an Output that keeps ops, for a parser that decides after the fact whether to
// emit them (a branch with nothing in it is dropped).
type opBuffer struct{ ops []annals.CaptureOp }

func (b *opBuffer) Emit(op annals.CaptureOp) error { b.ops = append(b.ops, op); return nil }
func (b *opBuffer) TitleBySourceID(string, string) {}
func (b *opBuffer) TitleForChat(string, string)    {}
func (b *opBuffer) Warnf(int, string, ...any)      {}
