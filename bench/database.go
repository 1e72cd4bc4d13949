package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

// ensureDatabase makes the cached bench database ready: the corpus ingested through the library
// (or, when ingested is set, the database the ingest scenario just built from it, moved into
// place), then prepared (see prepareStore).
func (b *runner) ensureDatabase(ctx context.Context, ingested string) error {
	d := b.data
	if d.meta != nil {
		return nil
	}
	start := time.Now()
	if d.upgraded != nil {
		// A copy of the previous recipe's database: prepareStore adds what it lacks.
		ingested = d.dbPath
	} else {
		removeDB(d.dbPath)
	}
	if ingested != "" && ingested != d.dbPath {
		if err := os.Rename(ingested, d.dbPath); err != nil {
			return fmt.Errorf("cannot move the ingested database into the cache: %w", err)
		}
		removeDB(ingested)
	}
	store, err := b.opts.Open(ctx, d.dbPath)
	if err != nil {
		return err
	}
	defer store.Close()
	if ingested == "" {
		if _, err := b.ingestFile(ctx, store, d.corpusPath, "building the bench database"); err != nil {
			return err
		}
	}
	t, err := newTarget(ctx, "sqlite", store)
	if err != nil {
		return err
	}
	meta, err := b.prepareStore(t)
	if err != nil {
		return err
	}
	// A bulk load leaves the full-text indexes in many segments, which every lookup seeks;
	// annals ingest merges them afterwards, so the bench measures the database users have.
	if opt, ok := store.(interface{ Optimize(context.Context) error }); ok {
		b.logf("merging the full-text indexes")
		if err := opt.Optimize(ctx); err != nil {
			return err
		}
	}
	if err := store.Close(); err != nil {
		return err
	}
	if d.upgraded != nil {
		meta.Embedded += d.upgraded.Embedded
		start = start.Add(-time.Duration(d.upgraded.BuildSeconds * float64(time.Second)))
	}
	meta.BuildSeconds = roundTo(time.Since(start).Seconds(), 1)
	raw, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("cache metadata: %w", err)
	}
	// Written last: its presence is what marks the database ready for a later run.
	if err := os.WriteFile(filepath.Join(d.dir, "meta.json"), raw, 0o600); err != nil {
		return fmt.Errorf("cannot mark the database ready: %w", err)
	}
	d.meta = meta
	return nil
}

// prepareStore adds what the scenarios need beyond the corpus: the 10k-entry chat, the pins the
// corpus lists, and an embedding for every chat (related ranks at its candidate cap). Every
// step is idempotent.
func (b *runner) prepareStore(t *target) (*cacheMeta, error) {
	d := b.data
	rep, err := b.ingestFile(t.ctx, t.store, d.bigPath, "adding the 10k-entry chat")
	if err != nil {
		return nil, err
	}
	big, err := t.store.FindChatByID(t.ctx, d.bigChat)
	if err != nil {
		return nil, err
	}
	if int(big.Totals.Entries) != d.bigStats.Entries {
		return nil, fmt.Errorf("the big chat %s holds %d entries, want %d (appended %d): its id collides with a corpus chat", d.bigChat, big.Totals.Entries, d.bigStats.Entries, rep.EntriesAppended)
	}
	if err := pinAll(t, d.stats.Pinned); err != nil {
		return nil, err
	}
	share, err := b.addShareTenant(t)
	if err != nil {
		return nil, err
	}
	b.logf("embedding every chat (hashing embedder)")
	p, err := t.svc.Backfill(t.ctx, nil)
	if err != nil {
		return nil, err
	}
	if p.Failed > 0 {
		return nil, fmt.Errorf("embedding failed for %d chats", p.Failed)
	}
	return &cacheMeta{
		Version: cacheVersion, Built: time.Now().UTC().Format(time.RFC3339),
		BigChat: d.bigChat, BigEntries: int(big.Totals.Entries), Pinned: len(d.stats.Pinned), Embedded: p.Embedded, Share: share,
	}, nil
}

// pinAll pins the chats the corpus lists, so the list scenario sees pinned chats first.
func pinAll(t *target, ids []string) error {
	pinned := true
	for _, id := range ids {
		c, err := t.store.FindChatByID(t.ctx, id)
		if err != nil {
			return fmt.Errorf("pin %s: %w", id, err)
		}
		if _, err := t.store.UpdateChat(t.ctx, c.Ref(), annals.ChatUpdate{Pinned: &pinned}); err != nil {
			return fmt.Errorf("pin %s: %w", id, err)
		}
	}
	return nil
}

// ensurePostgres prepares the PostgreSQL bench database: an empty database gets the corpus
// (its ingest rate is reported), one holding exactly this corpus is reused (one from before
// the 1% tenant gets it).
func (b *runner) ensurePostgres(ctx context.Context, t *target) (bool, error) {
	want := b.data.stats.Chats + 1 + b.data.shareStats.Chats
	res, err := t.svc.FindChats(t.ctx, annals.ListParams{Scope: annals.ScopeGlobal, Filter: annals.ChatQuery{IncludeArchived: true}, Page: annals.PageParams{Limit: 1}})
	if err != nil {
		return false, err
	}
	switch res.Total {
	case 0:
		rep, err := b.ingestFile(t.ctx, t.store, b.data.corpusPath, "ingesting the corpus into PostgreSQL")
		if err != nil {
			return false, err
		}
		b.add(Row{Scenario: "ingest", Case: "library (ingest.Ingest)", Backend: "postgres",
			Rate: rate(rep.EntriesAppended, rep.Duration), Unit: "entries/s", Note: "the first run into an empty database"})
	case want, want - b.data.shareStats.Chats:
	default:
		b.gap("postgres", fmt.Sprintf("the database holds %d chats; the harness wants an empty database or one holding this corpus (%d chats): drop and recreate it", res.Total, want))
		return false, nil
	}
	if _, err := b.prepareStore(t); err != nil {
		return false, err
	}
	// A bulk load leaves the planner without statistics and the chat rows (rewritten by every
	// append) with their dead versions until autovacuum runs: measure the database as a live
	// one settles, as annals copy leaves it.
	if a, ok := t.store.(interface{ Analyze(context.Context) error }); ok {
		b.logf("vacuuming and analyzing the PostgreSQL database")
		if err := a.Analyze(t.ctx); err != nil {
			return false, err
		}
	}
	return true, nil
}

// ingestFile runs ingest.Ingest on a file, logging progress now and then on long ingests.
func (b *runner) ingestFile(ctx context.Context, store annals.CaptureStore, path, what string) (*ingest.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b.logf("%s from %s", what, path)
	last := time.Now()
	rep, err := ingest.Ingest(ctx, store, f, ingest.Options{Progress: func(p ingest.Progress) {
		if time.Since(last) > 15*time.Second {
			last = time.Now()
			b.logf("  %s: %d entries, %.0f s", p.Phase, p.EntriesAppended, p.Elapsed.Seconds())
		}
	}})
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", path, err)
	}
	return rep, nil
}

// removeDB deletes a SQLite database with its WAL and shared-memory files.
func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			_ = err // best effort: a leftover scratch file is harmless
		}
	}
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return roundTo(float64(n)/d.Seconds(), 0)
}

// copyFile copies a closed database file for a scenario that writes to it.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
