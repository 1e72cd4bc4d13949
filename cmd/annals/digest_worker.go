package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/cron"
)

// digestWorker is the digest worker of annals serve, shaped like the embedding worker
// (embedding.go): one pass now, then one every tick until the server stops. A pass digests the
// chats that are due (digest.enabled) and, when a time of digest.schedule has passed since the
// last scheduled run, refreshes every chat active since that run.
type digestWorker struct {
	svc     *history.Service
	ds      annals.DigestStore
	holder  string
	policy  history.DigestPolicy
	enabled bool
	sched   *cron.Schedule
	// start stands in for the last scheduled run when there was none: the first run is the
	// schedule's first time after the server started.
	start  time.Time
	logger *slog.Logger
	now    func() time.Time
}

// serveDigest runs the digest worker while the server runs (unless digest.enabled is false or
// --no-digest is given, and no schedule is set), and returns the function that stops it and
// waits, before the store closes.
func (m *Main) serveDigest(ctx context.Context, a *app, logger *slog.Logger) (stop func(), err error) {
	policy, every, sched, err := a.cfg.Digest.parse()
	if err != nil {
		return nil, err
	}
	enabled := a.cfg.Digest.on()
	if !enabled && sched == nil {
		return func() {}, nil
	}
	svc, ok := a.base.(*history.Service)
	ds, ok2 := a.store.(annals.DigestStore)
	if !ok || !ok2 {
		return nil, annals.Errorf(annals.EINTERNAL, "the digest worker needs the local history service and store")
	}
	if !svc.Summarizes() {
		// summarizer: provider none. Asked for in so many words, that is a mistake; by default
		// the worker just stays off.
		if a.cfg.Digest.explicit() || sched != nil {
			return nil, annals.Errorf(annals.EINVALID, "digest.enabled and digest.schedule need a summarizer, but summarizer.provider is none (drop it for the offline one, or set digest.enabled: false)")
		}
		return func() {}, nil
	}
	w := &digestWorker{svc: svc, ds: ds, holder: digestHolder(), policy: policy, enabled: enabled,
		sched: sched, start: time.Now(), logger: logger, now: time.Now}
	logger.Info("digest worker started", "due_chats", enabled, "every", every.String(), "idle", policy.Idle.String(),
		"min_new_entries", policy.MinNewEntries, "stale", policy.Stale.String(), "schedule", a.cfg.Digest.Schedule)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx, every)
	}()
	return func() {
		cancel()
		<-done
	}, nil
}

// run makes a pass now and then every tick, until ctx ends.
func (w *digestWorker) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pass digests the due chats, then runs the schedule if one of its times has passed.
func (w *digestWorker) pass(ctx context.Context) {
	if w.enabled {
		p, err := w.svc.DigestDue(ctx, w.holder, w.policy, nil)
		w.report(ctx, "digested chats", p, err)
	}
	if w.sched == nil {
		return
	}
	ran, p, err := w.scheduled(ctx)
	if ran || err != nil {
		w.report(ctx, "scheduled recap", p, err)
	}
}

// scheduled runs the scheduled recap when a time of the schedule has passed since the last run
// (or since the server started, before any): every chat active since the last run (every chat
// changed since its digest, before any) is refreshed, and the run's time is recorded.
func (w *digestWorker) scheduled(ctx context.Context) (bool, history.DigestProgress, error) {
	last, err := w.ds.DigestScheduleRun(ctx)
	if err != nil {
		return false, history.DigestProgress{}, err
	}
	ref := last
	if ref.IsZero() {
		ref = w.start
	}
	now := w.now()
	if next := w.sched.Next(ref); next.IsZero() || next.After(now) {
		return false, history.DigestProgress{}, nil
	}
	p, err := w.svc.DigestSince(ctx, w.holder, last, w.policy, nil)
	if err != nil {
		return true, p, err
	}
	return true, p, w.ds.RecordDigestScheduleRun(ctx, now)
}

// report logs a pass: failures as warnings, work done as information, nothing when idle.
func (w *digestWorker) report(ctx context.Context, what string, p history.DigestProgress, err error) {
	switch {
	case ctx.Err() != nil:
	case err != nil:
		w.logger.Warn("digest worker", "err", annals.ErrorDetail(err))
	case p.Digested > 0 || p.Failed > 0 || p.Changed > 0:
		w.logger.Info(what, "digested", p.Digested, "titled", p.Titled, "failed", p.Failed, "changed", p.Changed, "busy", p.Busy)
	}
}
