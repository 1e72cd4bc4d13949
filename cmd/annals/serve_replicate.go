package main

import (
	"context"
	"log/slog"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
)

// startReplication starts the push worker while a long-running command runs — annals serve,
// annals import --watch — when the config has a remote block (docs/REPLICATION.md), and returns
// it with its gauges and the function that stops it. A remote block
// without a key, or with a bad endpoint, refuses to start the server; a key the remote refuses
// is one clear error in the log, and the worker keeps retrying without losing anything queued.
// A read-only server does not push (acknowledging writes the outbox).
func (m *Main) startReplication(ctx context.Context, a *app, logger *slog.Logger, readOnly bool) (*servedReplication, error) {
	if a.cfg.Remote == nil {
		return &servedReplication{stop: func() {}}, nil
	}
	if readOnly {
		logger.Warn("replication: not pushing, the server is read-only (run 'annals replicate push' separately)")
		return &servedReplication{stop: func() {}}, nil
	}
	p, endpoint, err := m.pusher(ctx, a, logger)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Check(runCtx); err != nil && runCtx.Err() == nil {
			logger.Error("replication: the remote check failed; retrying in the background", "remote", endpoint, "err", annals.ErrorMessage(err))
		} else {
			logger.Info("replication: pushing", "remote", endpoint)
		}
		p.Run(runCtx)
	}()
	return &servedReplication{gauges: p, stop: func() {
		cancel()
		<-done
	}}, nil
}

// servedReplication is the push worker of a running server: its gauges for /metrics (nil
// without a remote) and the function that stops it and waits.
type servedReplication struct {
	gauges httpapi.ReplicationGauges
	stop   func()
}
