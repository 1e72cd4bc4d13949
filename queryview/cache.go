package queryview

import (
	"sync"
)

// Cache keeps encoded answers of the kinds that carry messages (transcript, conversation,
// search) for the same query asked again, until anything is committed to the store: every entry
// is kept under the version it was made under (view.Service.ViewVersion: the owner and scope it
// read, the store's generation, read before the answer's reads), and is given only for the same
// query bytes under an equal version. A commit by any writer, this process or another, moves the
// generation, and the first answer under a new generation drops every older entry. A client of
// the reference that polls a page (a transcript, a conversation) is then answered without
// reading or encoding it again (issue 32). What is kept is bounded in bytes — each entry counts
// its answer, its key and entryOverhead, so that many small answers hold to the bound as a few
// large ones do; when one would not fit, the cache is emptied first. A nil *Cache keeps nothing.
type Cache struct {
	mu      sync.Mutex
	gen     uint64
	bytes   int
	max     int
	answers map[cacheKey][]byte
}

type cacheKey struct {
	version string // view.Version.Key
	query   string // the request body, byte for byte
}

// DefaultCacheBytes bounds a server's cache of answers.
const DefaultCacheBytes = 32 << 20

// entryOverhead is what an entry costs besides the bytes of its answer and key: its map slot
// (the key's two string headers and the answer's slice header, 56 bytes, in a table that is
// between 7/16 and 7/8 full, so up to 128 bytes a slot) and the headroom of its three small
// allocations. The bytes themselves count an eighth more, the most a size class rounds up.
// TestCacheBoundHoldsForSmallAnswers measures about 265 bytes an entry of 80 bytes of key and
// answer, and 2,290 for one of 2,080.
const entryOverhead = 224

// entrySize is what an entry of the cache counts against its bound.
func entrySize(k cacheKey, answer []byte) int {
	n := len(answer) + len(k.query) + len(k.version)
	return n + n/8 + entryOverhead
}

// NewCache returns a cache of at most maxBytes of answers.
func NewCache(maxBytes int) *Cache {
	return &Cache{max: maxBytes, answers: map[cacheKey][]byte{}}
}

// get returns the answer kept for the query under the version, if any.
func (c *Cache) get(gen uint64, k cacheKey) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return nil, false
	}
	b, ok := c.answers[k]
	return b, ok
}

// put keeps an answer made under generation gen. An answer of an older generation than the
// newest one seen is not kept; a newer generation drops every entry of the older ones.
func (c *Cache) put(gen uint64, k cacheKey, answer []byte) {
	if c == nil {
		return
	}
	size := entrySize(k, answer)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return
	case gen > c.gen:
		c.gen = gen
		// A new map, not clear(): a cleared map keeps the table sized for its peak, which
		// the bound does not count, and the cache could fill the bound again beside it.
		c.answers = make(map[cacheKey][]byte)
		c.bytes = 0
	}
	if size > c.max {
		return
	}
	if old, ok := c.answers[k]; ok {
		c.bytes -= entrySize(k, old)
	}
	if c.bytes+size > c.max {
		c.answers = make(map[cacheKey][]byte)
		c.bytes = 0
	}
	c.answers[k] = answer
	c.bytes += size
}

// Encoded is an answer already encoded (a kept one): AppendJSON appends its bytes.
type Encoded []byte

// AppendJSON appends the encoded answer.
func (e Encoded) AppendJSON(dst []byte) ([]byte, error) { return append(dst, e...), nil }
