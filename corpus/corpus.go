// Package corpus generates synthetic agent transcripts in the annals capture format
// (docs/FORMAT.md), for benchmarks and load tests.
//
// A corpus looks like what coding agents produce: user requests and questions, assistant prose
// with occasional code, tool calls (Bash, Read, Edit, Write, Grep, Glob, WebFetch) with JSON
// arguments, tool results holding code, test output, compiler errors, Go and Python stack
// traces and JSON documents, some of them failed; runs with a model, tokens and cost; several
// tenants, users and agents; attributes, tags and titles. Its words follow a Zipf distribution
// over a generated vocabulary, so a full-text index sees common, medium and rare terms, and it
// carries planted marker terms at documented frequencies (see Markers) so that a search
// benchmark can ask for a rare, a medium or a common term and know how many entries match.
//
// Generation is deterministic: the same Options give the same bytes on every run. Everything
// random comes from PCG generators seeded from Options.Seed; nothing reads the clock or iterates
// a map. The Zipf and exponential variates go through math.Exp and math.Log, which are assembly
// on some architectures, and math/rand/v2 does not promise its derived distributions across Go
// releases; so to compare results across Go versions or CPU architectures, keep the corpus file
// (or check its sha256), not only the seed.
package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// Defaults of Options.
const (
	DefaultChats          = 100
	DefaultEntriesPerChat = 50
	DefaultTenants        = 3
	DefaultUsers          = 12
	DefaultAgents         = 5
)

// Options shape a corpus. The zero value is ready to use: DefaultChats chats of about
// DefaultEntriesPerChat entries each.
type Options struct {
	// Seed selects the corpus: the same Seed and options give the same bytes.
	Seed uint64
	// Chats is the number of chats. Zero or less means DefaultChats, or, when Entries is set,
	// Entries/EntriesPerChat rounded up.
	Chats int
	// EntriesPerChat is the mean length of a transcript. Lengths vary per chat around it (an
	// exponential tail, capped at 20 times the mean, like real sessions: many short, a few very
	// long), and every chat has at least 2 entries. Zero or less means DefaultEntriesPerChat.
	EntriesPerChat int
	// Entries, when positive, is the exact total number of entries: the per-chat lengths are
	// drawn as above and then scaled so that they sum to it. Chats is lowered if needed so that
	// every chat keeps at least 2 entries.
	Entries int
	// Tenants, Users and Agents are how many distinct ones the chats spread over. User i belongs
	// to tenant i mod Tenants, so with fewer users than tenants some tenants' chats have no
	// user. Zero or less means the Default.
	Tenants, Users, Agents int
	// TenantNames, when set, are the tenants' ids in place of the built-in names, and Tenants is
	// their number: a second corpus can then hold tenants no other corpus has.
	TenantNames []string
	// NoMarkers plants none of the marker terms, so that a corpus added to another leaves the
	// other's documented marker counts as they are.
	NoMarkers bool
	// Start is the creation time of the first chat; later chats follow it. Zero means
	// 2025-01-06T08:00:00Z, a fixed date rather than the clock, so that the default corpus is
	// the same every day. Times are written in UTC, to the second.
	Start time.Time
}

// Stats describe a written corpus.
type Stats struct {
	Chats   int `json:"chats"`
	Entries int `json:"entries"`
	// Runs is the number of distinct runs; most runs have two lines (running, then the end).
	Runs int `json:"runs"`
	// Lines and Bytes measure the output.
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
	// ToolCalls counts tool entries, FailedToolCalls those with outcome failed.
	ToolCalls       int `json:"tool_calls"`
	FailedToolCalls int `json:"failed_tool_calls"`
	// Markers says how many entries carry each planted term.
	Markers []MarkerCount `json:"markers"`
	// Pinned lists the ids of the chats meant to be pinned (about 1 in 100). The capture format
	// has no pin field, because pinning is a person's curation, not capture; a harness that
	// wants pinned chats pins these after the ingest (UpdateChat, annals pin).
	Pinned []string `json:"pinned,omitempty"`
	// First and Last are the earliest and the latest timestamp in the corpus.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// MarkerCount is how many entries of a corpus carry a marker term.
type MarkerCount struct {
	Term    string `json:"term"`
	Every   int    `json:"every"`
	Entries int    `json:"entries"`
}

// The planted marker terms. They are not in the vocabulary, so they occur exactly where planted.
const (
	RareTerm   = "zqxrare"    // 1 in 100,000 entries
	ScarceTerm = "zqxscarce"  // 1 in 1,000 entries (0.1%)
	MediumTerm = "mediumterm" // 1 in 100 entries (1%)
	CommonTerm = "commonterm" // 1 in 10 entries (10%)
)

// Marker is a term planted at a fixed frequency.
type Marker struct {
	Term string
	// Every is the period: the entries are cut into consecutive windows of Every entries, and
	// exactly one entry of each whole window, at a seeded position, carries the term. A final
	// partial window carries it or not depending on that position, and a corpus shorter than
	// Every still carries it once. So a corpus of N entries has N/Every occurrences rounded
	// down or up, and at least one.
	Every int
}

// Markers returns the planted terms, rarest first.
func Markers() []Marker {
	return []Marker{{RareTerm, 100000}, {ScarceTerm, 1000}, {MediumTerm, 100}, {CommonTerm, 10}}
}

// progressEvery is how many entries pass between two calls of the progress function.
const progressEvery = 1000

// Write writes a corpus in the capture format to w, one record per line, and returns what it
// wrote. progress, when not nil, is called with the number of entries written so far every
// 1000 entries, and at the end if the total is not a multiple of 1000. On a write error, Write stops and returns the error
// together with the Stats of what was written before it.
func Write(w io.Writer, opts Options, progress func(entries int)) (Stats, error) {
	opts = opts.withDefaults()
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	g := newGen(bw, opts)
	err := g.write(progress)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	g.stats.Bytes = cw.n
	for _, p := range g.planters {
		g.stats.Markers = append(g.stats.Markers, MarkerCount{Term: p.term, Every: p.every, Entries: p.count})
	}
	if err != nil {
		return g.stats, fmt.Errorf("corpus: %w", err)
	}
	return g.stats, nil
}

func (o Options) withDefaults() Options {
	if o.EntriesPerChat <= 0 {
		o.EntriesPerChat = DefaultEntriesPerChat
	}
	o.EntriesPerChat = max(o.EntriesPerChat, 2)
	if o.Chats <= 0 {
		o.Chats = DefaultChats
		if o.Entries > 0 {
			o.Chats = (o.Entries + o.EntriesPerChat - 1) / o.EntriesPerChat
		}
	}
	if o.Entries > 0 {
		o.Chats = max(1, min(o.Chats, o.Entries/2))
	}
	if len(o.TenantNames) > 0 {
		o.Tenants = len(o.TenantNames)
	}
	if o.Tenants <= 0 {
		o.Tenants = DefaultTenants
	}
	if o.Users <= 0 {
		o.Users = DefaultUsers
	}
	if o.Agents <= 0 {
		o.Agents = DefaultAgents
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2025, 1, 6, 8, 0, 0, 0, time.UTC)
	}
	o.Start = o.Start.UTC().Truncate(time.Second)
	return o
}

// Stream constants: each concern draws from its own PCG stream, so that, for instance, a change
// to the prose templates does not move the marker positions or the transcript lengths.
const (
	streamContent = 0x636f6e74656e74 // "content"
	streamLengths = 0x6c656e67746873 // "lengths"
	streamVocab   = 0x766f636162     // "vocab"
)

func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// entryCounts draws the length of every chat's transcript.
func entryCounts(opts Options) []int {
	r := newRand(opts.Seed, streamLengths)
	mean := opts.EntriesPerChat
	if opts.Entries > 0 {
		mean = max(2, opts.Entries/opts.Chats)
	}
	counts := make([]int, opts.Chats)
	sum := 0
	for i := range counts {
		n := 2 + int(math.Round(r.ExpFloat64()*float64(mean-2)))
		counts[i] = min(n, 20*mean)
		sum += counts[i]
	}
	total := opts.Entries
	if total <= 0 || sum == total {
		return counts
	}
	if total < 2 { // one chat of one entry: the only way to honour Entries = 1
		return []int{total}
	}
	// Scale the part above the minimum of 2, then hand out what rounding down left over, one
	// entry per chat from a seeded starting chat.
	extra, want := sum-2*len(counts), total-2*len(counts)
	got := 0
	for i := range counts {
		if extra > 0 {
			counts[i] = 2 + (counts[i]-2)*want/extra
		} else {
			counts[i] = 2
		}
		got += counts[i]
	}
	rest := total - got
	start := r.IntN(len(counts))
	for i := range counts {
		counts[i] += rest / len(counts)
	}
	for i := range rest % len(counts) {
		counts[(start+i)%len(counts)]++
	}
	return counts
}

// planter decides which entries carry one marker term: one per window of every entries, at a
// position drawn from the marker's own stream.
type planter struct {
	term  string
	every int
	r     *rand.Rand
	next  int // global index of the next entry to carry the term
	count int
}

func newPlanter(seed uint64, m Marker, total int) *planter {
	h := fnv.New64a()
	h.Write([]byte(m.Term))
	p := &planter{term: m.Term, every: m.Every, r: newRand(seed, h.Sum64())}
	if total < m.Every {
		p.next = p.r.IntN(max(total, 1)) // a short corpus still carries the term once
	} else {
		p.next = p.r.IntN(m.Every)
	}
	return p
}

// hit reports whether the entry at global index i carries the term.
func (p *planter) hit(i int) bool {
	if i != p.next {
		return false
	}
	p.count++
	p.next = (i/p.every+1)*p.every + p.r.IntN(p.every)
	return true
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// The records of the capture format, with fields in the order docs/FORMAT.md lists them.

type chatRecord struct {
	Type        string   `json:"type"`
	ID          string   `json:"id"`
	TenantID    string   `json:"tenant_id"`
	UserID      string   `json:"user_id,omitempty"`
	AgentID     string   `json:"agent_id,omitempty"`
	Attributes  attrs    `json:"attributes,omitempty"`
	CreatedAt   string   `json:"created_at"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

type entryRecord struct {
	Type          string          `json:"type"`
	ChatID        string          `json:"chat_id"`
	ID            string          `json:"id"`
	Kind          string          `json:"kind"`
	RunID         string          `json:"run_id,omitempty"`
	SourceIDs     []string        `json:"source_ids,omitempty"`
	Channel       string          `json:"channel,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Time          string          `json:"time"`
	Text          string          `json:"text,omitempty"`
	Reasoning     string          `json:"reasoning,omitempty"`
	Tool          *toolRecord     `json:"tool,omitempty"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
}

type toolRecord struct {
	Name      string          `json:"name"`
	CallID    string          `json:"call_id,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`
	Outcome   string          `json:"outcome,omitempty"`
}

type runRecord struct {
	Type         string  `json:"type"`
	ChatID       string  `json:"chat_id"`
	ID           string  `json:"id"`
	Status       string  `json:"status"`
	Model        string  `json:"model,omitempty"`
	StartedAt    string  `json:"started_at,omitempty"`
	EndedAt      string  `json:"ended_at,omitempty"`
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
}

// attrs is an ordered attribute object: written in the order given, like the capture files of
// real producers, rather than in the sorted order encoding/json gives a map.
type attrs [][2]string

func (a attrs) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, kv := range a {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
