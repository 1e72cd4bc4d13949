// Package besteffort is the capture path for an agent runtime that must never fail an agent's
// turn because history could not be written: a client-side wrapper over any
// annals.CaptureStore (a store, the history service, the HTTP client) that turns capture off at
// the first store failure and leaves a durable warning, kept in a file, on every chat the
// process was writing.
package besteffort

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/annals-dev/annals"
)

// UnavailableEntryID is the id of the warning entry best-effort capture leaves on a chat whose
// history stopped being recorded; with the failure's time appended, so each outage warns once.
const UnavailableEntryID = "annals-history-unavailable"

// UnavailableChannel is the channel of that warning entry.
const UnavailableChannel = "annals/history-unavailable"

// Config configures a Capture.
type Config struct {
	// Capture is the capture path to protect (a store, a RedactingCapture, a Service).
	Capture annals.CaptureStore
	// PendingFile keeps the warnings that could not be written when capture failed, so that a
	// later process writes them onto their chats once the store works again. Empty keeps them
	// in memory only (they are then lost with the process, and only the log tells).
	PendingFile string
	Logger      *slog.Logger
	Now         func() time.Time
}

// Capture is a capture path for an agent runtime that must never fail an agent's
// turn because history could not be written. The first failure of the store (it is
// unavailable, read-only, or broken) is logged once, disables capture for the rest of the
// process (later calls succeed and record nothing), and leaves one durable warning for every
// chat the process was writing: an entry of kind system on channel UnavailableChannel saying
// that history stopped being recorded and when. The warning is kept in PendingFile and written
// onto its chat by the next process's first successful capture (a chat that no longer exists is
// not warned). A new process retries the store from scratch.
//
// An op the store refuses for what it is (invalid input, a conflicting chat, a chat that does
// not exist) does not disable capture: that batch is dropped and logged, and Err reports it.
type Capture struct {
	cfg Config
	log *slog.Logger
	now func() time.Time

	mu       sync.Mutex
	disabled bool
	failure  error              // the failure that disabled capture
	last     error              // the last error of any kind, dropped or disabling
	chats    map[string]bool    // chats this process wrote to
	pending  map[string]warning // warnings not yet written, by chat id
	flushed  bool               // the pending file of an earlier process was written
}

// warning is one chat's pending "history unavailable" entry.
type warning struct {
	ChatID string    `json:"chat_id"`
	At     time.Time `json:"at"`
	Cause  string    `json:"cause"`
}

var _ annals.CaptureStore = (*Capture)(nil)

// New returns the best-effort path over cfg.Capture. It reads the pending
// warnings an earlier process left in cfg.PendingFile.
func New(cfg Config) *Capture {
	b := &Capture{cfg: cfg, log: cfg.Logger, now: cfg.Now, chats: map[string]bool{}, pending: map[string]warning{}}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.now == nil {
		b.now = time.Now
	}
	if cfg.PendingFile != "" {
		if raw, err := os.ReadFile(cfg.PendingFile); err == nil {
			var ws []warning
			if err := json.Unmarshal(raw, &ws); err != nil {
				b.log.Warn("history: unreadable pending warnings, ignored", "file", cfg.PendingFile, "err", err)
			}
			for _, w := range ws {
				b.pending[w.ChatID] = w
			}
		}
	}
	return b
}

// Disabled reports whether a store failure has turned capture off for this process.
func (b *Capture) Disabled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.disabled
}

// Err returns the failure that disabled capture, else the last dropped batch's error, else nil.
func (b *Capture) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failure != nil {
		return b.failure
	}
	return b.last
}

// Capture applies ops if capture is enabled; it never returns the store's error.
func (b *Capture) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	if b.Disabled() {
		return &annals.CaptureResult{}, nil
	}
	b.note(ops)
	res, err := b.cfg.Capture.Capture(ctx, ops)
	if err != nil {
		b.fail(err)
		return &annals.CaptureResult{}, nil
	}
	b.flushPending(ctx)
	return res, nil
}

// note remembers the chats a batch writes to, so a failure can warn each of them.
func (b *Capture) note(ops []annals.CaptureOp) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range ops {
		id := ops[i].TargetID()
		if ops[i].Chat != nil {
			id = ops[i].Chat.ID
		}
		if id != "" {
			b.chats[id] = true
		}
	}
}

// refusedForWhatItIs reports an error about the batch itself, not about the store.
func refusedForWhatItIs(err error) bool {
	switch annals.ErrorCode(err) {
	case annals.EINVALID, annals.ECONFLICT, annals.ENOTFOUND:
		return true
	}
	return false
}

func (b *Capture) fail(err error) {
	if refusedForWhatItIs(err) {
		b.mu.Lock()
		b.last = err
		b.mu.Unlock()
		b.log.Warn("history: a capture batch was refused and dropped", "err", annals.ErrorDetail(err))
		return
	}
	at := b.now().UTC()
	b.mu.Lock()
	if b.disabled {
		b.mu.Unlock()
		return
	}
	b.disabled, b.failure, b.last = true, err, err
	ids := make([]string, 0, len(b.chats))
	for id := range b.chats {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b.pending[id] = warning{ChatID: id, At: at, Cause: annals.ErrorMessage(err)}
	}
	b.mu.Unlock()
	b.log.Error("history unavailable: capture is disabled for the rest of this process", "chats", ids, "err", annals.ErrorDetail(err))
	// The warnings are not written now: a store that just failed would make the agent's call
	// wait for it again (a busy database waits out its lock timeout per write). They wait in
	// the pending file for the next process, which starts with a fresh store.
	b.savePending()
}

// flushPending writes, once per process, the warnings an earlier process could not write.
func (b *Capture) flushPending(ctx context.Context) {
	b.mu.Lock()
	if b.flushed || len(b.pending) == 0 {
		b.flushed = true
		b.mu.Unlock()
		return
	}
	b.flushed = true
	b.mu.Unlock()
	b.writeWarnings(ctx)
	b.savePending()
}

// writeWarnings appends each pending warning to its chat, forgetting those that landed (or
// whose chat does not exist: there is nothing to warn).
func (b *Capture) writeWarnings(ctx context.Context) {
	b.mu.Lock()
	ws := make([]warning, 0, len(b.pending))
	for _, w := range b.pending {
		ws = append(ws, w)
	}
	b.mu.Unlock()
	for _, w := range ws {
		e := &annals.Entry{
			ID:      fmt.Sprintf("%s-%d", UnavailableEntryID, w.At.UnixNano()),
			Kind:    annals.KindSystem,
			Channel: UnavailableChannel,
			Time:    w.At,
			Text:    fmt.Sprintf("history unavailable: from %s this chat's history stopped being recorded (%s); what the agent did after that is missing here", w.At.Format(time.RFC3339), w.Cause),
		}
		_, err := b.cfg.Capture.Capture(ctx, []annals.CaptureOp{{Append: &annals.AppendOp{ChatID: w.ChatID, Entries: []*annals.Entry{e}}}})
		if err == nil || annals.ErrorCode(err) == annals.ENOTFOUND {
			b.mu.Lock()
			delete(b.pending, w.ChatID)
			b.mu.Unlock()
		}
	}
}

// savePending writes the warnings still pending to the pending file (or removes it).
func (b *Capture) savePending() {
	if b.cfg.PendingFile == "" {
		return
	}
	b.mu.Lock()
	ws := make([]warning, 0, len(b.pending))
	for _, w := range b.pending {
		ws = append(ws, w)
	}
	b.mu.Unlock()
	if len(ws) == 0 {
		if err := os.Remove(b.cfg.PendingFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			b.log.Warn("history: cannot remove the pending warnings file", "file", b.cfg.PendingFile, "err", err)
		}
		return
	}
	slices.SortFunc(ws, func(a, c warning) int { return strings.Compare(a.ChatID, c.ChatID) })
	raw, _ := json.Marshal(ws)
	tmp := b.cfg.PendingFile + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		b.log.Error("history: cannot keep the pending warnings", "file", b.cfg.PendingFile, "err", err)
		return
	}
	if err := os.Rename(tmp, b.cfg.PendingFile); err != nil {
		b.log.Error("history: cannot keep the pending warnings", "file", b.cfg.PendingFile, "err", err)
	}
}
