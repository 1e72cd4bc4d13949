package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/replicate"
)

// The way back from the remote (docs/REPLICATION.md, "The change feed and the mirror"):
// `annals replicate pull` follows the remote's change feed into a mirror database, read with
// --mirror (or --db on it) when the remote is out of reach, and takes back into this host's own
// database the curation of its chats made by other hosts or on the remote.

// remoteKey resolves the remote block's endpoint and key (warning: a key written in the file).
func (m *Main) remoteKey(r *RemoteConfig) (endpoint, key, warning string, err error) {
	if r == nil {
		return "", "", "", annals.Errorf(annals.EINVALID, "no remote is configured: add a remote block (remote: {endpoint: URL, api_key_env: VAR}) to the config file (docs/REPLICATION.md)")
	}
	if endpoint, err = replicate.ParseEndpoint(r.Endpoint); err != nil {
		return "", "", "", err
	}
	key, warning, err = replicate.ResolveKey(m.Getenv, replicate.Remote{Endpoint: endpoint, APIKeyEnv: r.APIKeyEnv, APIKey: r.APIKey})
	return endpoint, key, warning, err
}

// mirrorPath is the mirror database: the flag, else remote.mirror, else mirror.db beside the
// default database.
func (m *Main) mirrorPath(cfg *Config, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if cfg.Remote != nil && cfg.Remote.Mirror != "" {
		return cfg.Remote.Mirror, nil
	}
	def, err := m.defaultDBPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(def), "mirror.db"), nil
}

// replicatePull runs `annals replicate pull`: one pass, or --follow until interrupted.
func (m *Main) replicatePull(ctx context.Context, a *app, mirrorFlag string, follow, asJSON bool, logger *slog.Logger, out func(any, func(io.Writer)) error) error {
	endpoint, key, warning, err := m.remoteKey(a.cfg.Remote)
	if err != nil {
		return err
	}
	if warning != "" {
		logger.Warn(warning)
	}
	path, err := m.mirrorPath(a.cfg, mirrorFlag)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, path, false)
	if err != nil {
		return err
	}
	defer store.Close()
	mirror, ok := store.(annals.MirrorStore)
	if !ok || store == a.store {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "the mirror %s cannot be kept by this backend", displayLocation(path))
	}
	cfg := replicate.PullConfig{Endpoint: endpoint, Key: key, Mirror: mirror, Logger: logger}
	host, ok := a.store.(annals.CurationTaker)
	if ms, isMirror := a.store.(annals.MirrorStore); ok && isMirror {
		if st, err := ms.MirrorState(ctx); err == nil && st == nil {
			cfg.Host = host // this host's own database, not a mirror given as --db
		}
	}
	p := replicate.NewPuller(cfg)
	progress := func(r *replicate.PullReport) {
		if !asJSON {
			fmt.Fprintf(m.Stderr, "pulled %s (%d deleted) in %s; cursor %d\n", plural(r.Chats, "chat", "chats"), r.Deleted, plural(r.Pages, "page", "pages"), r.Cursor)
		}
	}
	if follow {
		return p.Follow(ctx, progress)
	}
	rep, err := p.PullOnce(ctx, progress)
	if err != nil {
		return err
	}
	return out(rep, func(w io.Writer) {
		fmt.Fprintf(w, "mirror %s of %s (tenant %s): %s pulled, %d deleted, %d of this host's chats took curation back; cursor %d\n",
			displayLocation(path), rep.Remote, rep.TenantID, plural(rep.Chats, "chat", "chats"), rep.Deleted, rep.Curated, rep.Cursor)
	})
}
