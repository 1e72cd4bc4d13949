package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
)

// cacheVersion names the recipe of a cached benchmark database (what prepareStore adds to the
// ingested corpus). Bump it whenever that recipe changes, so old caches are not reused.
// Version 2 added the 1% tenant (share.go); a version 1 database is copied and upgraded.
const cacheVersion = 2

// bigChatEntries is the length of the extra chat the get and export scenarios read.
const bigChatEntries = 10000

// bigChatSeedMask derives the big chat's corpus seed from the main one; corpus chat ids are a
// bijective mix of seed and index, so the big chat's id cannot be one of the main corpus's.
const bigChatSeedMask = 0xb16c4a7

// dataset is the cached corpus and database of one (size, chats, seed).
type dataset struct {
	dir        string
	corpusPath string
	bigPath    string
	sharePath  string
	dbPath     string
	opts       corpus.Options
	stats      corpus.Stats
	bigStats   corpus.Stats
	shareStats corpus.Stats
	bigChat    string
	// cachedDB says the database came from the cache rather than this run.
	cachedDB bool
	meta     *cacheMeta
	// upgraded is the metadata of the previous recipe's database, copied into dir to be
	// brought up to this recipe rather than rebuilt.
	upgraded *cacheMeta
}

// cacheMeta is written next to a prepared database; its presence means the database is ready.
type cacheMeta struct {
	Version      int     `json:"version"`
	Built        string  `json:"built"`
	BigChat      string  `json:"big_chat"`
	BigEntries   int     `json:"big_chat_entries"`
	Pinned       int     `json:"pinned"`
	Embedded     int     `json:"embedded"`
	BuildSeconds float64 `json:"build_seconds"`
	// Share is the 1% tenant as the database holds it.
	Share ShareTenant `json:"share"`
}

func (d *dataset) report() Corpus {
	c := Corpus{
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
		share := d.meta.Share
		c.Share = &share
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
func (b *runner) prepareCorpus(ctx context.Context) (*dataset, error) {
	key := fmt.Sprintf("%s-chats%d-seed%d", countLabel(b.opts.Size), b.opts.Chats, b.opts.Seed)
	d := &dataset{
		dir:  filepath.Join(b.opts.Dir, fmt.Sprintf("v%d", cacheVersion), key),
		opts: corpus.Options{Seed: b.opts.Seed, Entries: b.opts.Size, Chats: b.opts.Chats},
	}
	if b.opts.Fresh {
		if err := os.RemoveAll(d.dir); err != nil {
			return nil, fmt.Errorf("cannot clear the cached data: %w", err)
		}
	}
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the cache directory: %w", err)
	}
	if !b.opts.Fresh {
		if _, err := os.Stat(filepath.Join(d.dir, "meta.json")); err != nil {
			old := filepath.Join(b.opts.Dir, fmt.Sprintf("v%d", cacheVersion-1), key)
			if d.upgraded, err = upgradeFrom(old, d.dir); err != nil {
				return nil, err
			}
			if d.upgraded != nil {
				b.logf("copied the version %d database of %s to upgrade it", cacheVersion-1, old)
			}
		}
	}
	d.corpusPath = filepath.Join(d.dir, "corpus.jsonl")
	d.bigPath = filepath.Join(d.dir, "bigchat.jsonl")
	d.dbPath = filepath.Join(d.dir, "bench.db")
	var err error
	if d.stats, err = b.cachedCorpus(ctx, d.corpusPath, d.opts); err != nil {
		return nil, err
	}
	bigOpts := corpus.Options{Seed: b.opts.Seed ^ bigChatSeedMask, Entries: min(bigChatEntries, b.opts.Size), Chats: 1}
	if d.bigStats, err = b.cachedCorpus(ctx, d.bigPath, bigOpts); err != nil {
		return nil, err
	}
	if d.bigChat, err = firstChatID(d.bigPath); err != nil {
		return nil, err
	}
	d.sharePath = filepath.Join(d.dir, "share.jsonl")
	if d.shareStats, err = b.cachedCorpus(ctx, d.sharePath, shareOptions(b.opts.Seed, b.opts.Size, d.stats.Chats)); err != nil {
		return nil, err
	}
	if meta, err := readMeta(filepath.Join(d.dir, "meta.json")); err == nil && meta.Version == cacheVersion {
		if _, err := os.Stat(d.dbPath); err == nil {
			d.meta, d.cachedDB = meta, true
			b.logf("using the cached database %s", d.dbPath)
		}
	}
	return d, nil
}

// cachedCorpus returns the stats of the corpus at path, generating it first unless a previous
// run left it there together with its stats.
func (b *runner) cachedCorpus(ctx context.Context, path string, opts corpus.Options) (corpus.Stats, error) {
	statsPath := path + ".stats.json"
	var st corpus.Stats
	if raw, err := os.ReadFile(statsPath); err == nil && json.Unmarshal(raw, &st) == nil {
		if fi, err := os.Stat(path); err == nil && fi.Size() == st.Bytes {
			return st, nil
		}
	}
	b.logf("generating %s (%d entries, seed %d)", path, opts.Entries, opts.Seed)
	// Written under a temporary name and renamed, so an interrupted run leaves no corpus that
	// a later run would take for complete.
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
	raw, err := json.Marshal(st)
	if err != nil {
		return st, fmt.Errorf("corpus stats: %w", err)
	}
	if err := os.WriteFile(statsPath, raw, 0o600); err != nil {
		return st, fmt.Errorf("cannot cache the corpus stats: %w", err)
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

func readMeta(path string) (*cacheMeta, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m cacheMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ctxWriter stops a long generation when the run is interrupted: corpus.Write takes no context.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
