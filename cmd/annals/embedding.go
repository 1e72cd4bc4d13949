package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
)

// Every chat has a vector: the embedding backfill (history.Service.Backfill) runs after every
// import and ingest on a local database, in annals serve as a worker woken by each capture
// through the server and every embedWorkerEvery, and on demand as annals reindex
// --embeddings (locally, or as an admin over --server: POST /v1/admin/embeddings).

// embedWorkerEvery is how often the worker of annals serve looks for chats without a current
// vector when no capture through the server woke it (imports by import.watch, other servers
// on the same PostgreSQL database, replication).
const embedWorkerEvery = 30 * time.Second

// embedCaptured embeds what a capture command wrote, with progress on a terminal. It never
// fails the command: what was captured is kept either way, and a failure is reported with what
// to run.
func (m *Main) embedCaptured(ctx context.Context, b history.Backfiller, bar bool) {
	if b == nil {
		return
	}
	p, err := m.backfill(ctx, b, bar)
	switch {
	case annals.ErrorCode(err) == annals.EUNAVAILABLE && p.Model == "":
		// No embedder configured (embedder: provider: none): nothing to do.
	case err != nil:
		fmt.Fprintf(m.Stderr, "annals: the captured chats were not all embedded (%s); run 'annals reindex --embeddings' to finish\n", annals.ErrorMessage(err))
	case p.Failed > 0:
		fmt.Fprintf(m.Stderr, "annals: %s could not be embedded; run 'annals reindex --embeddings' to try again\n", plural(p.Failed, "chat", "chats"))
	}
}

// backfill runs b with a progress line on a terminal.
func (m *Main) backfill(ctx context.Context, b history.Backfiller, bar bool) (history.BackfillProgress, error) {
	p, err := b.Backfill(ctx, func(p history.BackfillProgress) {
		if bar {
			fmt.Fprintf(m.Stderr, "\r\033[Kembedding with %s: %s done, %d failed", p.Model, plural(p.Embedded, "chat", "chats"), p.Failed)
		}
	})
	if bar {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	return p, err
}

func runReindex(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("reindex", "--embeddings [flags]", "Bring derived indexes up to date. --embeddings embeds every chat without a current\n"+
		"vector of the configured embedder: none yet, one of another model, or one computed\n"+
		"before its transcript changed materially (docs/PROVIDERS.md). annals serve and every\n"+
		"import do it as they go; this is for a new embedder, or after a failure. With --server\n"+
		"it runs on the server and needs an admin key.")
	c := commonFlags(fs)
	embeddings := fs.Bool("embeddings", false, "embed every chat without a current vector")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("reindex takes no arguments, got %q", fs.Arg(0))
	}
	if !*embeddings {
		return usagef("reindex needs what to rebuild: --embeddings")
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	p, err := m.backfill(a.ctx, a.svc, !*asJSON && m.IsTerminal(m.Stderr))
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(p)
	}
	_, err = fmt.Fprintf(m.Stdout, "embedded %s with %s (%d failed)\n", plural(p.Embedded, "chat", "chats"), p.Model, p.Failed)
	return err
}

// serveEmbedding runs the embedding worker while the server runs and returns the function that
// stops it and waits, before the store closes.
func (m *Main) serveEmbedding(ctx context.Context, a *app, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		embedWorker(ctx, a.base, a.embedKick, embedWorkerEvery, logger)
	}()
	return func() {
		cancel()
		<-done
	}
}

// embedWorker runs the backfill, then again whenever kick fires or every tick, until ctx ends.
func embedWorker(ctx context.Context, b history.Backfiller, kick <-chan struct{}, every time.Duration, logger *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p, err := b.Backfill(ctx, nil)
		switch {
		case ctx.Err() != nil:
			return
		case annals.ErrorCode(err) == annals.EUNAVAILABLE && p.Model == "":
			return // no embedder configured
		case err != nil:
			logger.Warn("embedding worker", "err", annals.ErrorDetail(err))
		case p.Embedded > 0 || p.Failed > 0:
			logger.Info("embedded chats", "model", p.Model, "embedded", p.Embedded, "failed", p.Failed)
		}
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-t.C:
		}
	}
}

// learnedEmbedders returns the learned embedder over the open store when the config asks for it
// (provider: learned, or no provider: the default): one model per tenant (docs/SECURITY.md).
// Otherwise emb, as built, serves every tenant.
func (m *Main) learnedEmbedders(cfg *Config, store annals.Store, emb annals.Embedder) (annals.Embedder, annals.TenantEmbedders, error) {
	if p := cfg.Embedder.Provider; p != "" && p != "learned" {
		return emb, nil, nil
	}
	src, ok := store.(embed.LearnSource)
	if !ok {
		h, err := embed.NewHashing(0)
		return h, nil, err
	}
	lt, err := embed.NewLearnedTenants(src, embed.LearnedConfig{Dimension: cfg.Embedder.Dimension}, 0)
	return nil, lt, err
}
