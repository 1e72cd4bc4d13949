package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// ImportConfig is the import section of the config file.
type ImportConfig struct {
	// Watch makes `annals serve` import the default locations (and Paths) when it starts and
	// keep watching them, as `annals import --watch` does.
	Watch bool `yaml:"watch"`
	// Formats limits the watch to these formats; empty means all.
	Formats []string `yaml:"formats"`
	// Paths are more files or directories to watch besides the default locations.
	Paths []string `yaml:"paths"`
}

func (c *ImportConfig) validate() error {
	all := importer.Formats()
	for i, name := range c.Formats {
		if _, ok := importer.Lookup(all, name); !ok {
			return annals.Errorf(annals.EINVALID, "import.formats[%d]: unknown format %q (want one of: %s)", i, name, strings.Join(importer.Names(all), ", "))
		}
	}
	for i, p := range c.Paths {
		if p == "" {
			return annals.Errorf(annals.EINVALID, "import.paths[%d] is empty", i)
		}
	}
	return nil
}

// startImportWatch runs the watch configured by import.watch until ctx ends, logging what it
// imports; `annals serve` calls it in a goroutine when the config asks for it. It returns at
// once when the config does not ask for a watch.
func (m *Main) startImportWatch(ctx context.Context, a *app, logger *slog.Logger) error {
	cfg := a.cfg.Import
	if !cfg.Watch {
		return nil
	}
	sink, err := localImportSink(a)
	if err != nil {
		return fmt.Errorf("import.watch: %w", err)
	}
	formats := importer.Formats()
	if len(cfg.Formats) > 0 {
		var some []importer.Format
		for _, name := range cfg.Formats {
			f, _ := importer.Lookup(formats, name) // validated at load
			some = append(some, f)
		}
		formats = some
	}
	opts := importer.Options{Formats: formats, Logger: logger, Titles: sink.titles(), Agents: sink.agents, Redact: sink.redact()}
	if p := annals.PrincipalFromContext(a.ctx); p != nil {
		opts.TenantID, opts.UserID, opts.AgentID = p.TenantID, p.UserID, p.AgentID
	}
	im := importer.New(importStore{CaptureStore: sink.capture, ImportStateStore: sink.state, sameDB: sink.local != nil}, opts)
	home, _ := m.HomeDir()
	return importer.Watch(ctx, im, importer.WatchOptions{Home: home, Paths: cfg.Paths, OnReport: func(r *importer.Report) {
		if r.Entries > 0 || r.Chats > 0 || r.Gone > 0 || len(r.Errors) > 0 {
			logger.Info("import", "sources", r.Done, "chats", r.Chats, "entries", r.Entries, "gone", r.Gone, "errors", len(r.Errors))
		}
	}})
}
