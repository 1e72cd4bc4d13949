package reader

import (
	"github.com/annals-dev/annals"
)

// maxQueue bounds how many ops wait behind a tool call without a result. A call whose result
// never comes (the agent was interrupted) must not hold the rest of the transcript back, nor
// keep a line file from checkpointing, forever.
const maxQueue = 256

// OpQueue keeps a parser's ops in transcript order while tool calls wait for their results: a
// tool call and its result are one entry in annals, and the call's position is where it goes.
// Ops are emitted as soon as everything before them is complete.
type OpQueue struct {
	Items   []*Queued
	Waiting map[string]*Queued // by call id
}

type Queued struct {
	Op      annals.CaptureOp
	callID  string // set while the tool entry waits for its result
	Waiting bool
}

// Push queues an op that is complete.
func (q *OpQueue) Push(op annals.CaptureOp) { q.Items = append(q.Items, &Queued{Op: op}) }

// PushEntry queues one entry of chatID.
func (q *OpQueue) PushEntry(chatID string, e *annals.Entry) {
	q.Push(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}})
}

// PushCall queues a tool entry that waits for the result of callID. A call id already waiting
// (a source that repeats an id) releases the older call as it is.
func (q *OpQueue) PushCall(chatID, callID string, e *annals.Entry) {
	it := &Queued{Op: annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID, Entries: []*annals.Entry{e}}}}
	if callID != "" {
		if q.Waiting == nil {
			q.Waiting = map[string]*Queued{}
		}
		if old, ok := q.Waiting[callID]; ok {
			old.Waiting = false
		}
		it.callID, it.Waiting = callID, true
		q.Waiting[callID] = it
	}
	q.Items = append(q.Items, it)
}

// Resolve hands the waiting tool entry of callID to fn and marks it complete. It reports false
// when no call waits for that id.
func (q *OpQueue) Resolve(callID string, fn func(e *annals.Entry)) bool {
	it, ok := q.Waiting[callID]
	if !ok {
		return false
	}
	delete(q.Waiting, callID)
	it.Waiting = false
	fn(it.Op.Append.Entries[0])
	return true
}

// Update changes the waiting tool entry of callID in place, leaving it waiting.
func (q *OpQueue) Update(callID string, fn func(e *annals.Entry)) {
	if it, ok := q.Waiting[callID]; ok {
		fn(it.Op.Append.Entries[0])
	}
}

// Pending reports whether a call waits for callID.
func (q *OpQueue) Pending(callID string) bool {
	_, ok := q.Waiting[callID]
	return ok
}

// Empty reports whether nothing is held back.
func (q *OpQueue) Empty() bool { return len(q.Items) == 0 }

// Flush emits the complete ops at the head of the queue. When the queue grew past maxQueue,
// the oldest waiting calls are released as they are.
func (q *OpQueue) Flush(out Output) error {
	for len(q.Items) > maxQueue && q.Items[0].Waiting {
		q.release(q.Items[0])
		if err := q.emitReady(out); err != nil {
			return err
		}
	}
	return q.emitReady(out)
}

func (q *OpQueue) emitReady(out Output) error {
	i := 0
	for ; i < len(q.Items) && !q.Items[i].Waiting; i++ {
		if err := out.Emit(q.Items[i].Op); err != nil {
			q.Items = q.Items[i+1:]
			return err
		}
	}
	q.Items = q.Items[i:]
	if len(q.Items) == 0 {
		q.Items = nil
	}
	return nil
}

// FlushAll emits everything, releasing waiting calls without a result.
func (q *OpQueue) FlushAll(out Output) error {
	for _, it := range q.Items {
		if it.Waiting {
			q.release(it)
		}
	}
	return q.emitReady(out)
}

// ReleaseAll marks every waiting call complete without its result; the next flush emits them
// in their places.
func (q *OpQueue) ReleaseAll() {
	for _, it := range q.Items {
		if it.Waiting {
			q.release(it)
		}
	}
}

func (q *OpQueue) release(it *Queued) {
	it.Waiting = false
	if it.callID != "" && q.Waiting[it.callID] == it {
		delete(q.Waiting, it.callID)
	}
}

// OpBuffer is an Output that keeps ops, for a parser that decides after the fact whether to
// emit them (a branch with nothing in it is dropped).
type OpBuffer struct{ Ops []annals.CaptureOp }

func (b *OpBuffer) Emit(op annals.CaptureOp) error { b.Ops = append(b.Ops, op); return nil }
func (b *OpBuffer) TitleBySourceID(string, string) {}
func (b *OpBuffer) TitleForChat(string, string)    {}
func (b *OpBuffer) Warnf(int, string, ...any)      {}
