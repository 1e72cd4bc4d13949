package embed

import (
	"context"
	"fmt"
	"sync"

	"github.com/annals-dev/annals"
)

// LearnSource is where the learned embedder reads the history it learns from and keeps what it
// learned: any annals store (both backends implement it).
type LearnSource interface {
	FindChats(ctx context.Context, filter annals.ChatFilter) ([]*annals.Chat, int, error)
	FindEntries(ctx context.Context, filter annals.EntryFilter) ([]*annals.Entry, error)
	annals.EmbedderStateStore
}

// LearnedConfig tunes a Learned embedder; zero fields take the defaults (docs/PROVIDERS.md).
type LearnedConfig struct {
	// Dimension is the number of learned dimensions (default 128).
	Dimension int
	// Vocabulary caps the words that get a vector (default 30,000 most frequent).
	Vocabulary int
	// MinCount is how often a word must occur to be in the vocabulary (default 3).
	MinCount int
	// Window is how many words either side count as a word's company (default 5).
	Window int
	// MinTokens is how many content words the history must hold before anything is learned;
	// below it the embedder is Hashing (default 2,000).
	MinTokens int
	// Lexical is the weight of the hashed lexical part beside the learned one (default 0.5;
	// the learned part weighs 1): exact identifiers and rare words still match.
	Lexical float64
	// LexicalDimension is the hashed part's dimension (default 256).
	LexicalDimension int
}

func (c *LearnedConfig) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Dimension, 128)
	def(&c.Vocabulary, 30000)
	def(&c.MinCount, 3)
	def(&c.Window, 5)
	def(&c.MinTokens, 2000)
	def(&c.LexicalDimension, 256)
	if c.Lexical == 0 {
		c.Lexical = 0.5
	}
}

// Learned is the offline embedder that learns meaning from the history it serves: word vectors
// from co-occurrence statistics over the stored transcripts (positive PMI, factorised by a
// randomized truncated eigen-decomposition), combined into a text's vector by a smooth
// inverse-frequency mean, beside a smaller hashed lexical part. Until the history holds
// MinTokens content words it is the Hashing embedder.
//
// Learn brings it up to date: it counts what was added since the last call, refactorises when
// the counts grew by a quarter (the index fingerprint: a new Model name, so every chat is
// embedded again and no ranking mixes the two), and saves its state in the store. Learned is
// safe for concurrent use; Learn calls are serialised.
type Learned struct {
	cfg   LearnedConfig
	src   LearnSource
	hash  *Hashing // the fallback
	lex   *Hashing // the lexical part
	learn sync.Mutex
	st    *learnedState // guarded by learn

	mu    sync.RWMutex
	model *wordModel
}

// NewLearned returns a Learned embedder over src with what it learned before (the saved
// state; none on a new database, where it is Hashing until Learn has enough to learn from).
func NewLearned(ctx context.Context, src LearnSource, cfg LearnedConfig) (*Learned, error) {
	cfg.defaults()
	if cfg.Dimension > 1024 || cfg.Window > 20 || cfg.Lexical < 0 {
		return nil, annals.Errorf(annals.EINVALID, "learned embedder: dimension %d (at most 1024), window %d (at most 20), lexical weight %g (not negative)", cfg.Dimension, cfg.Window, cfg.Lexical)
	}
	hash, err := NewHashing(0)
	if err != nil {
		return nil, err
	}
	lex, err := NewHashing(cfg.LexicalDimension)
	if err != nil {
		return nil, err
	}
	st, err := loadLearnedState(ctx, src)
	if err != nil {
		return nil, err
	}
	l := &Learned{cfg: cfg, src: src, hash: hash, lex: lex, st: st}
	if st.model != nil {
		l.setModel(st.model)
	}
	return l, nil
}

func (l *Learned) current() *wordModel {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.model
}

// Model names the vectors: the hashing model until something is learned, then the learned
// model with its fingerprint.
func (l *Learned) Model() string {
	m := l.current()
	if m == nil {
		return l.hash.Model()
	}
	return fmt.Sprintf("annals-learned-v1-%d+%s-%s", m.dim, l.lex.Model(), m.fingerprint)
}

// Dimension is the length of every vector of the current Model.
func (l *Learned) Dimension() int {
	m := l.current()
	if m == nil {
		return l.hash.Dimension()
	}
	return m.dim + l.lex.Dimension()
}

// Embed returns one unit vector per text: the learned part (weight 1) and the lexical part
// (weight Lexical), each normalised, then the whole.
func (l *Learned) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m := l.current()
	if m == nil {
		return l.hash.Embed(ctx, texts)
	}
	lex, err := l.lex.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	var buf []byte
	for i, t := range texts {
		var words []string
		words, buf = contentWords(t, buf)
		v := make([]float32, m.dim+len(lex[i]))
		copy(v, m.embed(words))
		for j, f := range lex[i] {
			v[m.dim+j] = float32(float64(f) * l.cfg.Lexical)
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

// Learn counts the transcripts added since the last call (all of them the first time, or when
// the vocabulary no longer covers what is written), refactorises when the counts grew by a
// quarter or more since the vectors were made, and saves the state. changed says the Model
// name changed: every chat's vector is due again.
func (l *Learned) Learn(ctx context.Context) (changed bool, err error) {
	l.learn.Lock()
	defer l.learn.Unlock()
	before := l.Model()
	// What is saved wins over what this process holds: servers sharing one PostgreSQL database
	// then converge on one model (the last saved) instead of re-embedding under two.
	st, err := loadLearnedState(ctx, l.src)
	if err != nil {
		return false, err
	}
	l.st = st
	if st.model != nil {
		l.setModel(st.model)
	}
	dirty := false
	if st.counts == nil || st.vocabStale() {
		if err := st.recount(ctx, l.src, l.cfg); err != nil {
			return false, err
		}
		dirty = true
	} else {
		n, err := st.countNew(ctx, l.src, l.cfg.Window)
		if err != nil {
			return false, err
		}
		dirty = n > 0
	}
	c := st.counts
	if c.tokens >= float64(l.cfg.MinTokens) && len(c.vocab) >= 2*l.cfg.Dimension &&
		(st.model == nil || c.tokens >= st.tokensAtBuild*1.25) {
		st.model = c.build(l.cfg.Dimension)
		st.tokensAtBuild = c.tokens
		l.setModel(st.model)
		dirty = true
	}
	if dirty {
		if err := st.save(ctx, l.src); err != nil {
			return false, err
		}
	}
	return l.Model() != before, nil
}

func (l *Learned) setModel(m *wordModel) {
	l.mu.Lock()
	l.model = m
	l.mu.Unlock()
}

// vocabStale says the vocabulary no longer covers what is being written: since it was chosen,
// the counted words doubled and more than a third of the new ones were outside it.
func (st *learnedState) vocabStale() bool {
	c := st.counts
	newTokens := c.tokens - st.tokensAtVocab
	newOOV := c.oov - st.oovAtVocab
	return st.tokensAtVocab > 0 && newTokens >= st.tokensAtVocab && newOOV > newTokens/3
}

var _ annals.Embedder = (*Learned)(nil)
