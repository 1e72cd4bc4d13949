package embed

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/gob"
	"fmt"
	"slices"

	"github.com/annals-dev/annals"
)

// learnedStateName is the row the learned embedder's state is saved under.
const learnedStateName = "learned-v1"

// learnedState is everything Learn keeps between calls: the counts, how far each chat was
// counted, and the current vectors.
type learnedState struct {
	counts *counts
	// seen is how many entries of each chat were counted (seq runs 1..entries).
	seen                      map[string]int64
	tokensAtVocab, oovAtVocab float64
	tokensAtBuild             float64
	model                     *wordModel
}

// savedState is learnedState's stored form (gob, gzip).
type savedState struct {
	Vocab                     []string
	Uni                       []float64
	PairKeys                  []uint64
	PairVals                  []float32
	Tokens, OOV               float64
	Seen                      map[string]int64
	TokensAtVocab, OOVAtVocab float64
	TokensAtBuild             float64
	Dim                       int
	Vectors, Weight           []float32
	Fingerprint               string
}

func loadLearnedState(ctx context.Context, src LearnSource, tenant string) (*learnedState, error) {
	data, err := src.LoadEmbedderState(ctx, tenant, learnedStateName)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return &learnedState{seen: map[string]int64{}}, nil
	}
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, annals.Internal("read the learned embedder's state", err)
	}
	var s savedState
	if err := gob.NewDecoder(zr).Decode(&s); err != nil {
		return nil, annals.Internal("read the learned embedder's state", err)
	}
	if len(s.Uni) != len(s.Vocab) || len(s.PairKeys) != len(s.PairVals) || (s.Dim > 0 && (len(s.Vectors) != s.Dim*len(s.Vocab) || len(s.Weight) != len(s.Vocab))) {
		return nil, annals.Internal("read the learned embedder's state", fmt.Errorf("inconsistent lengths"))
	}
	st := &learnedState{seen: s.Seen, tokensAtVocab: s.TokensAtVocab, oovAtVocab: s.OOVAtVocab, tokensAtBuild: s.TokensAtBuild}
	if st.seen == nil {
		st.seen = map[string]int64{}
	}
	if s.Vocab != nil {
		c := newCounts(s.Vocab)
		copy(c.uni, s.Uni)
		for i, k := range s.PairKeys {
			c.pairs[k] = s.PairVals[i]
		}
		c.tokens, c.oov = s.Tokens, s.OOV
		st.counts = c
		if s.Dim > 0 {
			st.model = &wordModel{dim: s.Dim, index: c.index, vectors: s.Vectors, weight: s.Weight, fingerprint: s.Fingerprint}
		}
	}
	return st, nil
}

func (st *learnedState) save(ctx context.Context, src LearnSource, tenant string) error {
	c := st.counts
	s := savedState{Vocab: c.vocab, Uni: c.uni, Tokens: c.tokens, OOV: c.oov, Seen: st.seen,
		TokensAtVocab: st.tokensAtVocab, OOVAtVocab: st.oovAtVocab, TokensAtBuild: st.tokensAtBuild}
	s.PairKeys = make([]uint64, 0, len(c.pairs))
	for k := range c.pairs {
		s.PairKeys = append(s.PairKeys, k)
	}
	sortUint64(s.PairKeys)
	s.PairVals = make([]float32, len(s.PairKeys))
	for i, k := range s.PairKeys {
		s.PairVals[i] = c.pairs[k]
	}
	if m := st.model; m != nil {
		s.Dim, s.Vectors, s.Weight, s.Fingerprint = m.dim, m.vectors, m.weight, m.fingerprint
	}
	var buf bytes.Buffer
	// The fastest level: the state is saved after every Learn that counted anything (each
	// backfill pass with new chats), and the default level's matching was a tenth of a rebuild's
	// CPU for a state about a fifth larger.
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return annals.Internal("save the learned embedder's state", err)
	}
	if err := gob.NewEncoder(zw).Encode(&s); err != nil {
		return annals.Internal("save the learned embedder's state", err)
	}
	if err := zw.Close(); err != nil {
		return annals.Internal("save the learned embedder's state", err)
	}
	return src.SaveEmbedderState(ctx, tenant, learnedStateName, buf.Bytes())
}

// walkChats calls fn for every chat of tenant (every user and agent), archived too, a page at a
// time. The owner constraint is the store's, in SQL: no other tenant's chat is read.
func walkChats(ctx context.Context, src LearnSource, tenant string, fn func(*annals.Chat) error) error {
	const page = 500
	for offset := 0; ; offset += page {
		chats, _, err := src.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{TenantID: tenant}, IncludeArchived: true, Offset: offset, Limit: page})
		if err != nil {
			return err
		}
		for _, c := range chats {
			if err := fn(c); err != nil {
				return err
			}
		}
		if len(chats) < page {
			return nil
		}
	}
}

// chatWords calls fn with the content words of each message of chat after seq from.
func chatWords(ctx context.Context, src LearnSource, chat *annals.Chat, from int64, fn func([]string)) error {
	ref := chat.Ref()
	entries, err := src.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: &ref, AfterSeq: from,
		Kinds: []annals.EntryKind{annals.KindUser, annals.KindAssistant}})
	if err != nil {
		return err
	}
	var buf []byte
	var words []string
	for _, e := range entries {
		words, buf = contentWords(e.Text, buf)
		fn(words)
	}
	return nil
}

// recount counts the tenant's whole history again: the words' frequencies first, to choose the
// vocabulary, then the co-occurrences within it.
func (st *learnedState) recount(ctx context.Context, src LearnSource, tenant string, cfg LearnedConfig) error {
	freq := map[string]int{}
	err := walkChats(ctx, src, tenant, func(c *annals.Chat) error {
		return chatWords(ctx, src, c, 0, func(ws []string) {
			for _, w := range ws {
				freq[w]++
			}
		})
	})
	if err != nil {
		return err
	}
	c := newCounts(chooseVocab(freq, cfg.MinCount, cfg.Vocabulary))
	seen := map[string]int64{}
	err = walkChats(ctx, src, tenant, func(ch *annals.Chat) error {
		seen[ch.ID] = ch.Totals.Entries
		return chatWords(ctx, src, ch, 0, func(ws []string) { c.add(ws, cfg.Window) })
	})
	if err != nil {
		return err
	}
	st.counts, st.seen = c, seen
	st.tokensAtVocab, st.oovAtVocab = c.tokens, c.oov
	st.model, st.tokensAtBuild = nil, 0
	return nil
}

// countNew counts the entries each chat gained since it was last counted, and returns how many
// chats it read. A chat that shrank (a rewind) keeps its old counts: they are statistics of
// what was written, and the next recount drops them.
func (st *learnedState) countNew(ctx context.Context, src LearnSource, tenant string, window int) (int, error) {
	n := 0
	err := walkChats(ctx, src, tenant, func(ch *annals.Chat) error {
		from := st.seen[ch.ID]
		if ch.Totals.Entries <= from {
			return nil
		}
		n++
		st.seen[ch.ID] = ch.Totals.Entries
		return chatWords(ctx, src, ch, from, func(ws []string) { st.counts.add(ws, window) })
	})
	return n, err
}

func sortUint64(a []uint64) { slices.Sort(a) }
