package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// check applies the defaults and refuses what is out of range.
func (c *LearnedConfig) check() error {
	c.defaults()
	if c.Dimension > 1024 || c.Window > 20 || c.Lexical < 0 {
		return annals.Errorf(annals.EINVALID, "learned embedder: dimension %d (at most 1024), window %d (at most 20), lexical weight %g (not negative)", c.Dimension, c.Window, c.Lexical)
	}
	return nil
}

func errNoTenant() error {
	return annals.Errorf(annals.EINVALID, "learned embedder: a model is learned per tenant and needs one")
}

// Learned is the offline embedder that learns meaning from one tenant's history: word vectors
// from co-occurrence statistics over the tenant's stored transcripts (positive PMI, factorised
// by a randomized truncated eigen-decomposition), combined into a text's vector by a smooth
// inverse-frequency mean, beside a smaller hashed lexical part. Until the tenant's history holds
// MinTokens content words it is the Hashing embedder. It reads and saves nothing of another
// tenant (docs/SECURITY.md, "One learned model per tenant"); LearnedTenants keeps one per tenant.
//
// Learn brings it up to date: it counts what was added since the last call, refactorises when
// the counts grew by a quarter (the index fingerprint: a new Model name, so every chat is
// embedded again and no ranking mixes the two), and saves its state in the store. Learned is
// safe for concurrent use; Learn calls are serialised.
type Learned struct {
	cfg    LearnedConfig
	src    LearnSource
	tenant string
	tag    string   // names the tenant in Model, see tenantTag
	hash   *Hashing // the fallback
	lex    *Hashing // the lexical part
	learn  sync.Mutex

	mu    sync.RWMutex
	model *wordModel
}

// NewLearned returns tenant's Learned embedder over src with what it learned before (the saved
// state; none on a new database, where it is Hashing until Learn has enough to learn from).
func NewLearned(ctx context.Context, src LearnSource, tenant string, cfg LearnedConfig) (*Learned, error) {
	if tenant == "" {
		return nil, errNoTenant()
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	hash, err := NewHashing(0)
	if err != nil {
		return nil, err
	}
	lex, err := NewHashing(cfg.LexicalDimension)
	if err != nil {
		return nil, err
	}
	// Only the word vectors are kept between calls; Learn reads the counts afresh each time.
	st, err := loadLearnedState(ctx, src, tenant)
	if err != nil {
		return nil, err
	}
	l := &Learned{cfg: cfg, src: src, tenant: tenant, tag: tenantTag(tenant), hash: hash, lex: lex}
	if st.model != nil {
		l.setModel(st.model)
	}
	return l, nil
}

// tenantTag names a tenant in its model's name without spelling the tenant out: two tenants'
// models never share a name, even when they learned the same words, so no ranking that groups
// vectors by model can mix them.
func tenantTag(tenant string) string {
	h := sha256.Sum256([]byte("annals tenant model\x00" + tenant))
	return hex.EncodeToString(h[:4])
}

func (l *Learned) current() *wordModel {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.model
}

// Model names the vectors: the hashing model until something is learned (hashing learns
// nothing, so every tenant may share it), then the tenant's learned model with its fingerprint
// and the tenant's tag. v1 was the one model of a whole database (migration 0020/0014 drops its
// vectors).
func (l *Learned) Model() string {
	m := l.current()
	if m == nil {
		return l.hash.Model()
	}
	return fmt.Sprintf("annals-learned-v2-%d+%s-%s-t%s", m.dim, l.lex.Model(), m.fingerprint, l.tag)
}

// Dimension is the length of every vector of the current Model.
func (l *Learned) Dimension() int {
	m := l.current()
	if m == nil {
		return l.hash.Dimension()
	}
	return m.dim + l.lex.Dimension()
}

// RanksByMeaning reports whether the tenant's model has learned: until then it is Hashing.
func (l *Learned) RanksByMeaning() bool { return l.current() != nil }

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
	st, err := loadLearnedState(ctx, l.src, l.tenant)
	if err != nil {
		return false, err
	}
	if st.model != nil {
		l.setModel(st.model)
	}
	dirty := false
	if st.counts == nil || st.vocabStale() {
		if err := st.recount(ctx, l.src, l.tenant, l.cfg); err != nil {
			return false, err
		}
		dirty = true
	} else {
		n, err := st.countNew(ctx, l.src, l.tenant, l.cfg.Window)
		if err != nil {
			return false, err
		}
		dirty = n > 0
	}
	c := st.counts
	if c.tokens >= float64(l.cfg.MinTokens) && len(c.vocab) >= 2*l.cfg.Dimension &&
		(st.model == nil || c.tokens >= st.tokensAtBuild*1.25) {
		m, err := c.build(ctx, l.cfg.Dimension)
		if err != nil {
			return false, err
		}
		st.model = m
		st.tokensAtBuild = c.tokens
		l.setModel(st.model)
		dirty = true
	}
	if dirty {
		if err := st.save(ctx, l.src, l.tenant); err != nil {
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

var _ annals.MeaningEmbedder = (*Learned)(nil)
