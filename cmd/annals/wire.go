package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/pricing"
	"github.com/annals-dev/annals/redact"
	"github.com/annals-dev/annals/view"
)

// common are the flags every command that touches the database shares.
type common struct {
	db     *string
	config *string
	// local commands (serve, keys) always open the local database, even in client mode.
	local bool
	// existing refuses a database that does not exist instead of creating it: set by openRead
	// for the commands that only read.
	existing bool
	// queryOnly: set by openQuery for the commands that never write (storeOpen.queryOnly).
	queryOnly bool
	// unmapped: set by openImport (storeOpen.unmapped).
	unmapped bool
	// longLived: set by serve (storeOpen.longLived).
	longLived bool
	// queryRemote: a history read that asks the remote collection when one is configured,
	// unless forceLocal (--local); see remote_query.go.
	queryRemote bool
	forceLocal  *bool
	// remoteReads: a command that reads and writes (mcp, browse, serve), whose reads ask the
	// remote collection when one is configured, unless forceLocal; see remote_reads.go.
	remoteReads bool
	// mirror (--mirror): read the mirror of the remote collection (replicate_pull.go).
	mirror *bool
	// queryEmbed (--query-embed-timeout, search and serve): the search's query embedding
	// deadline (search_config.go).
	queryEmbed *string
}

func commonFlags(fs *pflag.FlagSet) *common {
	return &common{
		db:     dbFlag(fs),
		config: fs.String("config", "", "config file (default $ANNALS_CONFIG, else $XDG_CONFIG_HOME/annals/config.yaml or ~/.config/annals/config.yaml)"),
	}
}

// app is everything a command needs, built from flags, environment and config.
type app struct {
	cfg      *Config
	store    annals.Store
	capture  annals.CaptureStore
	redactor *redact.Redactor
	// base is the history behind the door: *history.Service, or the HTTP client in client mode
	// (remote.go). Only serve and mcp use it, to bind it to their own callers.
	base historyAPI
	// reads is base with, in remote query mode, its reads sent to remote, the endpoint of the
	// remote collection (remote_reads.go); else base itself and "".
	reads  historyAPI
	remote string
	// svc is the CLI's history: reads bound to the CLI's principal by the door (history.For).
	svc historyAPI
	// ctx carries the CLI's principal.
	ctx context.Context
	// embedKick wakes the embedding worker of annals serve after a capture (embedding.go).
	embedKick <-chan struct{}
}

// open loads the config, opens the database and wires the history service.
func (m *Main) open(ctx context.Context, c *common, readOnly bool) (*app, error) {
	mirror := c.mirror != nil && *c.mirror
	if mirror {
		if *c.db != "" {
			return nil, usagef("--db and --mirror both given: --mirror reads the mirror of the remote collection, --db another database")
		}
		c.local, c.existing = true, true
	}
	if a, ok, err := m.openRemote(ctx, c); ok {
		return a, err
	}
	cfg, err := m.loadConfig(*c.config)
	if err != nil {
		return nil, err
	}
	dbPath := *c.db
	if dbPath == "" && m.Getenv("ANNALS_DB") == "" && cfg.Database != "" {
		dbPath = cfg.Database
	}
	if mirror {
		if dbPath, err = m.mirrorPath(cfg, ""); err != nil {
			return nil, err
		}
	}
	// The providers first: a mistake in the config is reported before the database is touched.
	red, err := m.redactor(cfg)
	if err != nil {
		return nil, err
	}
	emb, err := m.embedder(cfg)
	if err != nil {
		return nil, err
	}
	queryEmbed, err := m.queryEmbedTimeout(c, cfg)
	if err != nil {
		return nil, err
	}
	sum, err := m.summarizer(cfg)
	if err != nil {
		return nil, err
	}
	prices, err := pricing.Load(cfg.Pricing.File)
	if err != nil {
		return nil, fmt.Errorf("config pricing: %w", err)
	}
	if c.existing {
		if err := m.checkExists(dbPath); err != nil {
			return nil, err
		}
	}
	store, err := m.openDBAs(ctx, dbPath, storeOpen{readOnly: readOnly, queryOnly: c.queryOnly, unmapped: c.unmapped, longLived: c.longLived})
	if err != nil {
		return nil, err
	}
	emb, embs, err := m.learnedEmbedders(cfg, store, emb)
	if err != nil {
		return nil, err
	}
	// Both backends answer the query view; a store that did not would leave the view off.
	vs, _ := store.(view.Store)
	policy, err := cfg.agentPolicy()
	if err != nil {
		return nil, err
	}
	kick := make(chan struct{}, 1)
	svc := history.New(history.Config{
		Store:             store,
		View:              vs,
		Summarizer:        sum,
		Embedder:          emb,
		Embedders:         embs,
		Redactor:          red,
		Pricer:            prices,
		CandidateCap:      cfg.Related.CandidateCap,
		QueryEmbedTimeout: queryEmbed,
		OnCapture: func() {
			select {
			case kick <- struct{}{}:
			default:
			}
		},
		Logger: slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	reads, remote := historyAPI(svc), ""
	if c.remoteReads {
		if reads, remote, err = m.withRemoteReads(c, svc); err != nil {
			return nil, err
		}
	}
	cli := history.For(reads, cfg.cliPrincipal(), history.Access{ReadOnly: readOnly, Agents: policy, Local: true})
	return &app{
		cfg:       cfg,
		store:     store,
		capture:   svc.LocalCapture(),
		redactor:  red,
		base:      svc,
		reads:     reads,
		remote:    remote,
		svc:       cliService{cli, svc},
		ctx:       annals.NewContextWithPrincipal(ctx, cli.Principal()),
		embedKick: kick,
	}, nil
}

// cliService is the CLI's history: the door's answer for the CLI's principal, and the
// embedding backfill of the service behind it (a maintenance job over every chat, which only a
// local database can do).
type cliService struct {
	*history.Caller
	base historyAPI
}

func (c cliService) Backfill(ctx context.Context, progress func(history.BackfillProgress)) (history.BackfillProgress, error) {
	return c.base.Backfill(ctx, progress)
}

func (m *Main) redactor(cfg *Config) (*redact.Redactor, error) {
	rc := redact.Config{DisableBuiltin: cfg.Redact.DisableBuiltin}
	for _, name := range cfg.Redact.Env {
		if v := m.Getenv(name); v != "" {
			rc.SecretEnvValues = append(rc.SecretEnvValues, v)
		}
	}
	for _, r := range cfg.Redact.Rules {
		rc.Custom = append(rc.Custom, redact.CustomRule{Name: r.Name, Pattern: r.Pattern})
	}
	r, err := redact.New(rc)
	if err != nil {
		return nil, fmt.Errorf("config redact: %w", err)
	}
	return r, nil
}

// embedder builds the configured embedder; the learned embedder, the default, needs the
// database and is built by learnedEmbedders once it is open. provider: none turns related off.
func (m *Main) embedder(cfg *Config) (annals.Embedder, error) {
	p := cfg.Embedder
	switch p.Provider {
	case "hashing":
		return embed.NewHashing(p.Dimension)
	case "openai":
		key, err := m.apiKey("embedder", p)
		if err != nil {
			return nil, err
		}
		r := p.retrying()
		return embed.NewOpenAI(embed.OpenAIConfig{BaseURL: p.BaseURL, APIKey: key, Model: p.Model, Dimension: p.Dimension,
			Retries: r.Retries, MaxBackoff: r.MaxBackoff, Concurrency: r.Concurrency, Timeout: p.timeout()})
	}
	return nil, nil
}

// apiKey reads a provider's key from the environment variable the config names. Keys never live
// in the config file itself.
func (m *Main) apiKey(section string, p ProviderConfig) (string, error) {
	if p.APIKeyEnv == "" {
		return "", nil // a local server (Ollama, llama.cpp) often needs none
	}
	v := m.Getenv(p.APIKeyEnv)
	if v == "" {
		return "", annals.Errorf(annals.EINVALID, "%s.api_key_env names %s, which is not set", section, p.APIKeyEnv)
	}
	return v, nil
}
