package main

import (
	"context"
	"log/slog"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/replicate"
)

// RemoteConfig is the config file's remote block: the shared collection this host replicates
// to (docs/REPLICATION.md).
type RemoteConfig struct {
	// Endpoint is the remote annals server's URL: http(s), no credentials, query or fragment.
	Endpoint string `yaml:"endpoint"`
	// APIKeyEnv names the variable holding the key when ANNALS_REMOTE_KEY is not set.
	APIKeyEnv string `yaml:"api_key_env"`
	// APIKey is the key written in the file: accepted last, with a warning.
	APIKey string `yaml:"api_key"`
	// Mirror is the mirror database annals replicate pull keeps (default: mirror.db beside the
	// default database).
	Mirror string `yaml:"mirror"`
}

func (r *RemoteConfig) validate() error {
	if r == nil {
		return nil
	}
	if r.Endpoint == "" {
		return annals.Errorf(annals.EINVALID, "remote.endpoint is required in a remote block (the remote annals server's URL)")
	}
	_, err := replicate.ParseEndpoint(r.Endpoint)
	return err
}

// pusher builds the push worker over the app's local store from the remote block, refusing
// when there is no block or no key, and turning the outbox on. warn receives the warning about
// a key written in the file.
func (m *Main) pusher(ctx context.Context, a *app, logger *slog.Logger) (*replicate.Pusher, string, error) {
	endpoint, key, warning, err := m.remoteKey(a.cfg.Remote)
	if err != nil {
		return nil, "", err
	}
	if warning != "" {
		logger.Warn(warning)
	}
	s, ok := a.store.(replicate.Store)
	if !ok {
		return nil, "", annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot replicate")
	}
	if err := m.outboxOn(ctx, a, s, logger); err != nil {
		return nil, "", err
	}
	return replicate.New(replicate.Config{Endpoint: endpoint, Key: key, Store: s, Logger: logger}), endpoint, nil
}

// outboxOn turns the outbox on; the first time, it also queues the history recorded before
// (replicate.Backfill), so that a remote receives every chat, not only those written from now.
func (m *Main) outboxOn(ctx context.Context, a *app, s replicate.Store, logger *slog.Logger) error {
	id, err := s.Host(ctx)
	first := annals.ErrorCode(err) == annals.ENOTFOUND || (err == nil && !id.Outbox)
	if err != nil && !first {
		return err
	}
	if _, err := s.SetOutbox(ctx, true); err != nil {
		return err
	}
	if !first {
		return nil
	}
	return m.backfillOutbox(ctx, a, logger)
}

// backfillOutbox queues every chat of the local database that has no lane yet.
func (m *Main) backfillOutbox(ctx context.Context, a *app, logger *slog.Logger) error {
	bs, ok := a.store.(replicate.BackfillStore)
	if !ok {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "this database backend cannot queue its history for a remote")
	}
	rep, err := replicate.Backfill(ctx, bs, func(r replicate.BackfillReport) {
		if r.Chats%1000 == 0 {
			logger.Warn("replication: queueing the existing history", "chats", r.Chats, "queued", r.Queued)
		}
	})
	if err != nil {
		return err
	}
	logger.Warn("replication: existing history queued for the remote", "chats", rep.Chats, "queued", rep.Queued, "already_queued", rep.Skipped)
	return nil
}
