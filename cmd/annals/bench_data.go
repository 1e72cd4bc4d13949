package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/ingest"
)

// benchCacheVersion names the recipe of a cached benchmark database (what prepare adds to the
// ingested corpus). Bump it whenever that recipe changes, so old caches are not reused.
const benchCacheVersion = 1

// bigChatEntries is the length of the extra chat the get and export scenarios read.
const bigChatEntries = 10000

// bigChatSeedMask derives the big chat's corpus seed from the main one; corpus chat ids are a
// bijective mix of seed and index, so the big chat's id cannot be one of the main corpus's.
const bigChatSeedMask = 0xb16c4a7

// benchData is the cached corpus and database of one (size, chats, seed).
type benchData struct {
	dir        string
	corpusPath string
	bigPath    string
	dbPath     string
	opts       corpus.Options
	stats      corpus.Stats
	bigStats   corpus.Stats
	bigChat    string
	// cachedDB says the database came from the cache rather than this run.
	cachedDB bool
	meta     *benchMeta
}

// benchMeta is written next to a prepared database; its presence means the database is ready.
type benchMeta struct {
	Version      int     `json:"version"`
	Built        string  `json:"built"`
	BigChat      string  `json:"big_chat"`
	BigEntries   int     `json:"big_chat_entries"`
	Pinned       int     `json:"pinned"`
	Embedded     int     `json:"embedded"`
	BuildSeconds float64 `json:"build_seconds"`
}

// benchCorpus is what the report says about the data.
type benchCorpus struct {
	Seed           uint64               `json:"seed"`
	Entries        int                  `json:"entries"`
	Chats          int                  `json:"chats"`
	Runs           int                  `json:"runs"`
	Lines          int                  `json:"lines"`
	Bytes          int64                `json:"bytes"`
	Markers        []corpus.MarkerCount `json:"markers"`
	Path           string               `json:"path"`
	BigChat        string               `json:"big_chat"`
	BigChatEntries int                  `json:"big_chat_entries"`
	Database       string               `json:"database,omitempty"`
	DatabaseBytes  int64                `json:"database_bytes,omitempty"`
	CachedDatabase bool                 `json:"cached_database"`
	Pinned         int                  `json:"pinned"`
	Embedded       int                  `json:"embedded"`
}

func (d *benchData) report() benchCorpus {
	c := benchCorpus{
		Seed: d.opts.Seed, Entries: d.stats.Entries, Chats: d.stats.Chats, Runs: d.stats.Runs,
		Lines: d.stats.Lines, Bytes: d.stats.Bytes, Markers: d.stats.Markers, Path: d.corpusPath,
		BigChat: d.bigChat, BigChatEntries: d.bigStats.Entries, CachedDatabase: d.cachedDB,
	}
	if d.meta != nil {
		c.Database = d.dbPath
		if fi, err := os.Stat(d.dbPath); err == nil {
			c.DatabaseBytes = fi.Size()
		}
		c.Pinned, c.Embedded = d.meta.Pinned, d.meta.Embedded
	}
	return c
}

// countLabel names a size the way people type it: 100k, 1M, 2500.
func countLabel(n int) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// prepareCorpus generates (or finds in the cache) the corpus and the big chat's corpus.
func (b *bench) prepareCorpus(ctx context.Context) (*benchData, error) {
	key := fmt.Sprintf("%s-chats%d-seed%d", countLabel(b.cfg.size), b.cfg.chats, b.cfg.seed)
	d := &benchData{
		dir:  filepath.Join(b.cfg.dir, fmt.Sprintf("v%d", benchCacheVersion), key),
		opts: corpus.Options{Seed: b.cfg.seed, Entries: b.cfg.size, Chats: b.cfg.chats},
	}
	if b.cfg.fresh {
		if err := os.RemoveAll(d.dir); err != nil {
			return nil, fmt.Errorf("cannot clear the cached data: %w", err)
		}
	}
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the cache directory: %w", err)
	}
	d.corpusPath = filepath.Join(d.dir, "corpus.jsonl")
	d.bigPath = filepath.Join(d.dir, "bigchat.jsonl")
	d.dbPath = filepath.Join(d.dir, "bench.db")
	var err error
	if d.stats, err = b.cachedCorpus(ctx, d.corpusPath, d.opts); err != nil {
		return nil, err
	}
	bigOpts := corpus.Options{Seed: b.cfg.seed ^ bigChatSeedMask, Entries: min(bigChatEntries, b.cfg.size), Chats: 1}
	if d.bigStats, err = b.cachedCorpus(ctx, d.bigPath, bigOpts); err != nil {
		return nil, err
	}
	if d.bigChat, err = firstChatID(d.bigPath); err != nil {
		return nil, err
	}
	if meta, err := readBenchMeta(filepath.Join(d.dir, "meta.json")); err == nil && meta.Version == benchCacheVersion {
		if _, err := os.Stat(d.dbPath); err == nil {
			d.meta, d.cachedDB = meta, true
			b.logf("using the cached database %s", d.dbPath)
		}
	}
	return d, nil
}

// cachedCorpus returns the stats of the corpus at path, generating it first unless a previous
// run left it there together with its stats.
func (b *bench) cachedCorpus(ctx context.Context, path string, opts corpus.Options) (corpus.Stats, error) {
	statsPath := path + ".stats.json"
	var st corpus.Stats
	if raw, err := os.ReadFile(statsPath); err == nil && json.Unmarshal(raw, &st) == nil {
		if fi, err := os.Stat(path); err == nil && fi.Size() == st.Bytes {
			return st, nil
		}
	}
	b.logf("generating %s (%d entries, seed %d)", path, opts.Entries, opts.Seed)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return st, fmt.Errorf("cannot write the corpus: %w", err)
	}
	st, err = corpus.Write(&ctxWriter{ctx: ctx, w: f}, opts, nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return st, fmt.Errorf("generate %s: %w", path, err)
	}
	raw, _ := json.Marshal(st)
	if err := os.WriteFile(statsPath, raw, 0o600); err != nil {
		return st, err
	}
	return st, nil
}

func firstChatID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := ingest.NewDecoder(f).Next()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if line.Op.Chat == nil {
		return "", fmt.Errorf("%s does not start with a chat record", path)
	}
	return line.Op.Chat.ID, nil
}

func readBenchMeta(path string) (*benchMeta, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m benchMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ensureDatabase makes the cached bench database ready: the corpus ingested through the library
// (or, when ingested is set, the database the ingest scenario just built from it, moved into
// place), then prepared (see prepareStore).
func (b *bench) ensureDatabase(ctx context.Context, ingested string) error {
	d := b.data
	if d.meta != nil {
		return nil
	}
	start := time.Now()
	removeDB(d.dbPath)
	if ingested != "" {
		if err := os.Rename(ingested, d.dbPath); err != nil {
			return fmt.Errorf("cannot move the ingested database into the cache: %w", err)
		}
		removeDB(ingested)
	}
	store, err := b.open(ctx, d.dbPath)
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
	if err := store.Close(); err != nil {
		return err
	}
	meta.BuildSeconds = roundTo(time.Since(start).Seconds(), 1)
	raw, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(d.dir, "meta.json"), raw, 0o600); err != nil {
		return err
	}
	d.meta = meta
	return nil
}

// prepareStore adds what the scenarios need beyond the corpus: the 10k-entry chat, the pins the
// corpus lists, and an embedding for every chat (related ranks at its candidate cap). Every
// step is idempotent.
func (b *bench) prepareStore(t *benchTarget) (*benchMeta, error) {
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
	pinned := true
	for _, id := range d.stats.Pinned {
		c, err := t.store.FindChatByID(t.ctx, id)
		if err != nil {
			return nil, fmt.Errorf("pin %s: %w", id, err)
		}
		if _, err := t.store.UpdateChat(t.ctx, c.Ref(), annals.ChatUpdate{Pinned: &pinned}); err != nil {
			return nil, fmt.Errorf("pin %s: %w", id, err)
		}
	}
	b.logf("embedding every chat (hashing embedder)")
	p, err := t.svc.Backfill(t.ctx, nil)
	if err != nil {
		return nil, err
	}
	if p.Failed > 0 {
		return nil, fmt.Errorf("embedding failed for %d chats", p.Failed)
	}
	return &benchMeta{
		Version: benchCacheVersion, Built: time.Now().UTC().Format(time.RFC3339),
		BigChat: d.bigChat, BigEntries: int(big.Totals.Entries), Pinned: len(d.stats.Pinned), Embedded: p.Embedded,
	}, nil
}

// ensurePostgres prepares the PostgreSQL bench database: an empty database gets the corpus
// (its ingest rate is reported), one holding exactly this corpus is reused.
func (b *bench) ensurePostgres(ctx context.Context, t *benchTarget) (bool, error) {
	want := b.data.stats.Chats + 1
	res, err := t.svc.List(t.ctx, &history.Request{Op: history.OpList, Scope: string(annals.ScopeGlobal), Limit: 1, IncludeArchived: true})
	if err != nil {
		return false, err
	}
	switch res.Total {
	case 0:
		rep, err := b.ingestFile(t.ctx, t.store, b.data.corpusPath, "ingesting the corpus into PostgreSQL")
		if err != nil {
			return false, err
		}
		b.add(benchRow{Scenario: "ingest", Case: "library (ingest.Ingest)", Backend: "postgres",
			Rate: rate(rep.EntriesAppended, rep.Duration), Unit: "entries/s", Note: "the first run into an empty database"})
	case want:
	default:
		b.gap("postgres", fmt.Sprintf("the database holds %d chats; the harness wants an empty database or one holding this corpus (%d chats): drop and recreate it", res.Total, want))
		return false, nil
	}
	if _, err := b.prepareStore(t); err != nil {
		return false, err
	}
	return true, nil
}

// ingestFile runs ingest.Ingest on a file, logging progress now and then on long ingests.
func (b *bench) ingestFile(ctx context.Context, store annals.CaptureStore, path, what string) (*ingest.Report, error) {
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
