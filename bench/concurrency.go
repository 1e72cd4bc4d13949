package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
)

// writerSeedMask derives the concurrency writer's corpus seed from the main one.
const writerSeedMask = 0x5717e

// concurrencyScenario measures search throughput with 1, 2, 4 and 8 reader goroutines while one
// writer captures batches of a second corpus as fast as it can. On SQLite it works on a copy of
// the bench database, so the cached one stays as it was.
func (b *runner) concurrencyScenario(ctx context.Context, t *target, scratch string) error {
	ct := t
	if t.backend == "sqlite" {
		path := filepath.Join(scratch, "concurrency.db")
		if err := b.copyDatabase(path, t.dbPath); err != nil {
			return err
		}
		defer removeDB(path)
		var err error
		if ct, err = b.sqliteTarget(path)(ctx); err != nil {
			return err
		}
		defer ct.close()
	}
	batches, err := writerBatches(b.opts.Seed^writerSeedMask, min(20000, max(1000, b.opts.Size/10)))
	if err != nil {
		return err
	}
	// A mix a busy server sees: scarce and medium terms, a field filter and a prefix (on the
	// scarce marker, so it stays a bounded query at every size).
	queries := []string{corpus.ScarceTerm, corpus.MediumTerm, "tool:Bash " + corpus.ScarceTerm, "zqxsc*"}

	levels := []struct {
		readers int
		writer  bool
	}{{1, false}, {1, true}, {2, true}, {4, true}, {8, true}}
	var written []string
	for li, lv := range levels {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := b.concurrencyLevel(ctx, ct, queries, batches, li, lv.readers, lv.writer)
		if err != nil {
			return err
		}
		written = append(written, res.chats...)
		b.add(levelRow(t.backend, lv.readers, lv.writer, res))
	}
	if t.backend != "sqlite" {
		// No copy to throw away: remove what the writer added.
		return removeChats(t.ctx, ct.store, written)
	}
	return nil
}

// copyDatabase copies the bench database for a scenario that writes. Nobody writes to the bench
// database while the scenarios run, so its file and its WAL (which holds at most what opening
// it migrated) copy consistently.
func (b *runner) copyDatabase(dst, src string) error {
	b.logf("concurrency: copying the database to %s", dst)
	if err := copyFile(dst, src); err != nil {
		return err
	}
	if _, err := os.Stat(src + "-wal"); err == nil {
		return copyFile(dst+"-wal", src+"-wal")
	}
	return nil
}

// levelRow is the report row of one concurrency level.
func levelRow(backend string, readers int, writer bool, res *levelResult) Row {
	name := fmt.Sprintf("%d reader(s) + 1 writer", readers)
	if !writer {
		name = "1 reader, no writer"
	}
	walls := append([]time.Duration(nil), res.latencies...)
	slices.Sort(walls)
	note := fmt.Sprintf("p50 %s ms, p99 %s ms", fmtMS(ms(percentile(walls, 50))), fmtMS(ms(percentile(walls, 99))))
	if writer {
		note += fmt.Sprintf("; writer %s entries/s", groupThousands(rate(res.entries, res.elapsed)))
	}
	return Row{Scenario: "concurrency", Case: name, Backend: backend, Rate: rate(len(res.latencies), res.elapsed), Unit: "searches/s", N: len(res.latencies), Note: note}
}

// removeChats deletes the writer's chats from a database the harness does not throw away.
func removeChats(ctx context.Context, store annals.Store, ids []string) error {
	for _, id := range ids {
		c, err := store.FindChatByID(ctx, id)
		if annals.ErrorCode(err) == annals.ENOTFOUND {
			continue
		}
		if err == nil {
			err = store.DeleteChat(ctx, c.Ref())
		}
		if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
			return fmt.Errorf("remove the writer's chat %s: %w", id, err)
		}
	}
	return nil
}

type levelResult struct {
	latencies []time.Duration
	entries   int
	elapsed   time.Duration
	chats     []string
}

// level is one concurrency level while it runs: the goroutines share it.
type level struct {
	t        *target
	stop     atomic.Bool
	entries  atomic.Int64
	mu       sync.Mutex
	res      levelResult
	firstErr error
}

// fail records the first error and stops every goroutine of the level.
func (l *level) fail(err error) {
	l.mu.Lock()
	if l.firstErr == nil && !errors.Is(err, context.Canceled) {
		l.firstErr = err
	}
	l.mu.Unlock()
	l.stop.Store(true)
}

// concurrencyLevel runs readers (and the writer) for Options.Duration.
func (b *runner) concurrencyLevel(ctx context.Context, t *target, queries []string, batches [][]annals.CaptureOp, n, readers int, writer bool) (*levelResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := &level{t: t}
	var wg sync.WaitGroup
	start := time.Now()
	if writer {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.write(ctx, batches, n)
		}()
	}
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.read(queries, i)
		}()
	}
	select {
	case <-time.After(b.opts.Duration):
	case <-ctx.Done():
	}
	l.stop.Store(true)
	l.res.elapsed = time.Since(start)
	wg.Wait()
	l.res.entries = int(l.entries.Load())
	if l.firstErr != nil {
		return nil, l.firstErr
	}
	return &l.res, ctx.Err()
}

// write captures the batches over and over, each round under new ids, until the level stops.
func (l *level) write(ctx context.Context, batches [][]annals.CaptureOp, n int) {
	for round := 0; !l.stop.Load(); round++ {
		suffix := fmt.Sprintf("-w%d-%d", n, round)
		for _, batch := range batches {
			if l.stop.Load() {
				return
			}
			ops, ids := renameOps(batch, suffix)
			r, err := l.t.store.Capture(ctx, ops)
			if err != nil {
				if !l.stop.Load() {
					l.fail(fmt.Errorf("writer: %w", err))
				}
				return
			}
			l.entries.Add(int64(r.EntriesAppended))
			l.mu.Lock()
			l.res.chats = append(l.res.chats, ids...)
			l.mu.Unlock()
		}
	}
}

// read runs searches, reader i starting at query i, until the level stops, and at least one: on
// a loaded machine a reader may first run after a short level has already stopped, and a level
// must still measure what it names.
func (l *level) read(queries []string, i int) {
	var mine []time.Duration
	for k := i; k == i || !l.stop.Load(); k++ {
		req := annals.SearchParams{Scope: annals.ScopeGlobal, Query: queries[k%len(queries)]}
		t0 := time.Now()
		if _, err := l.t.svc.SearchChats(l.t.ctx, req); err != nil {
			l.fail(fmt.Errorf("reader: %w", err))
			return
		}
		mine = append(mine, time.Since(t0))
	}
	l.mu.Lock()
	l.res.latencies = append(l.res.latencies, mine...)
	l.mu.Unlock()
}

// writerBatches generates the writer's corpus in memory and cuts it into capture batches the way
// ingest does: at most DefaultBatchSize records each, consecutive entries of a chat in one append.
func writerBatches(seed uint64, entries int) ([][]annals.CaptureOp, error) {
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: seed, Entries: entries}, nil); err != nil {
		return nil, err
	}
	dec := ingest.NewDecoder(&buf)
	var out [][]annals.CaptureOp
	var cur []annals.CaptureOp
	records := 0
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		op := line.Op
		if n := len(cur); op.Append != nil && n > 0 && cur[n-1].Append != nil && cur[n-1].Append.ChatID == op.Append.ChatID {
			cur[n-1].Append.Entries = append(cur[n-1].Append.Entries, op.Append.Entries...)
		} else {
			cur = append(cur, op)
		}
		if records++; records == ingest.DefaultBatchSize {
			out, cur, records = append(out, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// renameOps copies a batch with every chat and run id suffixed, so each round of the writer
// adds new chats instead of being skipped as a repeat. It returns the chats it creates.
func renameOps(batch []annals.CaptureOp, suffix string) ([]annals.CaptureOp, []string) {
	out := make([]annals.CaptureOp, len(batch))
	var created []string
	for i, op := range batch {
		switch {
		case op.Chat != nil:
			c := *op.Chat
			c.ID += suffix
			out[i].Chat = &c
			created = append(created, c.ID)
		case op.Append != nil:
			out[i].Append = &annals.AppendOp{ChatID: op.Append.ChatID + suffix, Entries: op.Append.Entries}
		case op.Run != nil:
			r := *op.Run
			r.ID += suffix
			r.ChatID += suffix
			out[i].Run = &r
		case op.Truncate != nil:
			tr := *op.Truncate
			tr.ChatID += suffix
			out[i].Truncate = &tr
		}
	}
	return out, created
}
