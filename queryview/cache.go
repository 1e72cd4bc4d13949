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
// reading or encoding it again (issue 32). Answers are bounded in number of bytes; when one
// would not fit, the cache is emptied first. A nil *Cache keeps nothing.
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
	size := len(answer) + len(k.query) + len(k.version)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return
	case gen > c.gen:
		c.gen = gen
		clear(c.answers)
		c.bytes = 0
	}
	if size > c.max {
		return
	}
	if old, ok := c.answers[k]; ok {
		c.bytes -= len(old) + len(k.query) + len(k.version)
	}
	if c.bytes+size > c.max {
		clear(c.answers)
		c.bytes = 0
	}
	c.answers[k] = answer
	c.bytes += size
}

// Encoded is an answer already encoded (a kept one): AppendJSON appends its bytes.
type Encoded []byte

// AppendJSON appends the encoded answer.
func (e Encoded) AppendJSON(dst []byte) ([]byte, error) { return append(dst, e...), nil }
