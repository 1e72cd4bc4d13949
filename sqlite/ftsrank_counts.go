package sqlite

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annals-dev/annals"
)

// Document counts for rankFunc. bm25 counts every phrase of a MATCH over the whole index once
// per statement; the counts change slowly (a phrase's share of a growing index), so they are
// counted once and kept: every search typed again, paged, or sharing a word with the one
// before skips the pass. A count is kept for phraseCountTTL: an index that grows by an import
// in the meantime ranks with the count from before it, within a few percent of the true
// inverse document frequency, which moves a score less than recency does. The index's row
// count and average length are always current (FTS5 keeps them).

const (
	// phraseCountTTL is how long a counted phrase's document count is used.
	phraseCountTTL = 5 * time.Minute
	// phraseCountMax bounds the cache; past it, the expired counts are dropped, and all of them
	// if that leaves half or more.
	phraseCountMax = 4096
)

// rankTable is a full-text table scored through rankFunc: its name and columns, in order.
type rankTable struct {
	name string
	cols []string
}

// The two tables' columns: the chat documents' are the metadata's and then the entry index's
// (chatDocColumns), each followed by its column of tokens no query types.
var (
	entriesRank = rankTable{"entries_fts", append(slices.Clone(chatDocColumns[4:]), "facets")}
	chatDocRank = rankTable{"chat_fts", append(slices.Clone(chatDocColumns), "owner")}
)

type phraseCount struct {
	n  int64
	at time.Time
}

// phraseCounts caches the document counts of phrases, by table, columns and phrase.
type phraseCounts struct {
	mu sync.Mutex
	m  map[string]phraseCount
}

func newPhraseCounts() *phraseCounts { return &phraseCounts{m: map[string]phraseCount{}} }

func (c *phraseCounts) get(key string, now time.Time) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || now.Sub(e.at) > phraseCountTTL || now.Before(e.at) {
		return 0, false
	}
	return e.n, true
}

func (c *phraseCounts) put(key string, n int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= phraseCountMax {
		for k, e := range c.m {
			if now.Sub(e.at) > phraseCountTTL || now.Before(e.at) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= phraseCountMax/2 {
			clear(c.m) // all fresh: start again rather than scan the map on every put
		}
	}
	c.m[key] = phraseCount{n: n, at: now}
}

// rankScore is the SQL of bm25(t, weights) for the rows of MATCH match, through rankFunc: the
// expression and its argument (the phrases' counts, counted in q where not cached). weights is
// bm25's list ("1.0, 0.5, ..."). A phrase held to columns of weight 0 only adds nothing to a
// score and is not counted.
func (db *DB) rankScore(ctx context.Context, q queryer, t rankTable, match, weights string) (string, []any, error) {
	if db.builtinBM25 {
		return "bm25(" + t.name + ", " + weights + ")", nil, nil
	}
	w, err := parseWeights(weights, len(t.cols))
	if err != nil {
		return "", nil, err
	}
	phrases, err := matchPhrases(match, t.cols)
	if err != nil {
		// A MATCH the parser does not number as FTS5 does (adjacency, NEAR: the store writes
		// neither) is scored by bm25 itself, counting as it always did.
		return "bm25(" + t.name + ", " + weights + ")", nil, nil
	}
	counts := make([]byte, 0, 8*len(phrases))
	now := time.Now()
	for _, ph := range phrases {
		// A phrase on the right of a NOT is counted too: FTS5 can report its instances in a
		// matching row (a NOT whose left side matched nothing leaves the right side's cursor on
		// a row another branch of an OR matches), and bm25 scores them.
		n := int64(-1)
		if scored(ph.cols, t.cols, w) {
			if n, err = db.phraseCount(ctx, q, t, ph, now); err != nil {
				return "", nil, err
			}
		}
		counts = binary.LittleEndian.AppendUint64(counts, math.Float64bits(float64(n)))
	}
	return rankFunc + "(" + t.name + ", ?, " + weights + ")", []any{counts}, nil
}

// phraseCount is how many rows of t hold ph in its columns: cached, else counted.
func (db *DB) phraseCount(ctx context.Context, q queryer, t rankTable, ph matchPhrase, now time.Time) (int64, error) {
	m := ph.text
	if ph.cols != nil {
		m = "{" + strings.Join(ph.cols, " ") + "} : " + ph.text
	}
	key := t.name + "\x00" + m
	if n, ok := db.counts.get(key, now); ok {
		return n, nil
	}
	var n int64
	if ph.cols == nil || len(ph.cols) > 0 { // no column at all: no row
		// Not traced, as the prefix vocabulary's reads are not: a cache fill, not a statement of
		// the search (a trace is what a replay runs again for every call).
		cq := `SELECT count(*) FROM ` + t.name + ` WHERE ` + t.name + ` MATCH ?`
		if err := q.QueryRowContext(ctx, cq, m).Scan(&n); err != nil {
			return 0, storeErr("rank: count a phrase's documents", err)
		}
	}
	db.counts.put(key, n, now)
	return n, nil
}

// scored reports whether a phrase held to cols (nil: every column) can add to a score: whether
// one of them has a weight other than 0.
func scored(cols, all []string, w []float64) bool {
	for i, c := range all {
		if w[i] != 0 && (cols == nil || slices.Contains(cols, c)) {
			return true
		}
	}
	return false
}

// parseWeights reads a bm25 weight list; a column past its end weighs 1.0, as in bm25.
func parseWeights(s string, n int) ([]float64, error) {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	for i, f := range strings.Split(s, ",") {
		if i >= n {
			break
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, annals.Internal("rank: read the weights", err)
		}
		w[i] = v
	}
	return w, nil
}

// ranker is rankScore in ctx, counting on the reader pool (a plan's statements are built before
// any of them runs, so no connection of the pool is held meanwhile).
func (db *DB) ranker(ctx context.Context) func(t rankTable, match, weights string) (string, []any, error) {
	return func(t rankTable, match, weights string) (string, []any, error) {
		return db.rankScore(ctx, db.reader, t, match, weights)
	}
}
