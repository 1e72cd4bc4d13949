package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"sort"
	"strings"
)

// counts are the co-occurrence statistics the learned embedder is built from: how often each
// vocabulary word occurs, and how often two occur within the window of each other, over the
// transcripts counted so far. Words outside the vocabulary are counted only in total (oov), so
// memory is bounded by the vocabulary, not by the history.
type counts struct {
	vocab []string
	index map[string]int32
	uni   []float64
	pairs map[uint64]float32 // key lo<<32|hi with lo <= hi
	// tokens is every content word counted; oov how many of them were outside the vocabulary.
	tokens, oov float64
}

func newCounts(vocab []string) *counts {
	c := &counts{vocab: vocab, index: make(map[string]int32, len(vocab)), uni: make([]float64, len(vocab)), pairs: map[uint64]float32{}}
	for i, w := range vocab {
		c.index[w] = int32(i)
	}
	return c
}

// contentWords splits text into its folded words without stopwords, numbers and very long
// tokens (hashes, base64): the words whose company means something.
func contentWords(text string, buf []byte) ([]string, []byte) {
	if len(text) > maxHashInput {
		text = text[:maxHashInput]
	}
	buf = appendNormalized(buf[:0], text)
	var out []string
	for _, w := range strings.Fields(string(buf)) {
		if len(w) < 2 || len(w) > maxGramWord || isStopword(w) || isNumber(w) {
			continue
		}
		out = append(out, w)
	}
	return out, buf
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// add counts one text's words: each vocabulary word, and each pair of vocabulary words at most
// window apart (weighted 1/distance, as GloVe and word2vec's dynamic window do).
func (c *counts) add(words []string, window int) {
	ids := make([]int32, len(words))
	for i, w := range words {
		c.tokens++
		id, ok := c.index[w]
		if !ok {
			c.oov++
			ids[i] = -1
			continue
		}
		ids[i] = id
		c.uni[id]++
	}
	for i, a := range ids {
		if a < 0 {
			continue
		}
		for d := 1; d <= window && i+d < len(ids); d++ {
			b := ids[i+d]
			if b < 0 || b == a {
				continue
			}
			lo, hi := a, b
			if lo > hi {
				lo, hi = hi, lo
			}
			c.pairs[uint64(lo)<<32|uint64(hi)] += 1 / float32(d)
		}
	}
}

// chooseVocab keeps the most frequent words seen at least minCount times, at most max of them,
// in a deterministic order (frequency, then the word).
func chooseVocab(freq map[string]int, minCount, max int) []string {
	var words []string
	for w, n := range freq {
		if n >= minCount {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool {
		if freq[words[i]] != freq[words[j]] {
			return freq[words[i]] > freq[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) > max {
		words = words[:max]
	}
	sort.Strings(words)
	return words
}

// ppmi builds the positive pointwise mutual information matrix of the pair counts, with the
// context distribution smoothed by the power 0.75 (Levy, Goldberg and Dagan 2015), which keeps
// rare contexts from dominating.
func (c *counts) ppmi() *sparseSym {
	n := len(c.vocab)
	marg := make([]float64, n) // pair mass per word
	var total float64
	for k, v := range c.pairs {
		lo, hi := int(k>>32), int(k&0xffffffff)
		marg[lo] += float64(v)
		marg[hi] += float64(v)
		total += 2 * float64(v)
	}
	smooth := make([]float64, n)
	var smoothTotal float64
	for i, m := range marg {
		smooth[i] = math.Pow(m, 0.75)
		smoothTotal += smooth[i]
	}
	type cell struct {
		j int32
		v float32
	}
	rows := make([][]cell, n)
	for k, v := range c.pairs {
		lo, hi := int32(k>>32), int32(k&0xffffffff)
		pw := marg[lo] / total
		pc := smooth[hi] / smoothTotal
		pmiLoHi := math.Log(float64(v) / total / (pw * pc))
		pw2 := marg[hi] / total
		pc2 := smooth[lo] / smoothTotal
		pmiHiLo := math.Log(float64(v) / total / (pw2 * pc2))
		// The matrix must be symmetric for the eigen-decomposition: the mean of both directions.
		if x := (pmiLoHi + pmiHiLo) / 2; x > 0 {
			rows[lo] = append(rows[lo], cell{hi, float32(x)})
			rows[hi] = append(rows[hi], cell{lo, float32(x)})
		}
	}
	m := &sparseSym{n: n, rowPtr: make([]int, n+1)}
	for r, cells := range rows {
		sort.Slice(cells, func(a, b int) bool { return cells[a].j < cells[b].j })
		for _, x := range cells {
			m.col = append(m.col, x.j)
			m.val = append(m.val, x.v)
		}
		m.rowPtr[r+1] = len(m.col)
	}
	return m
}

// wordModel is what Embed uses: a unit vector and a weight per vocabulary word.
type wordModel struct {
	dim     int
	index   map[string]int32
	vectors []float32 // len(index) × dim
	weight  []float32 // smooth inverse frequency a / (a + p(w))
	// fingerprint names the vectors: a hash of the vocabulary and the vectors' bits.
	fingerprint string
}

// sifA is the smoothing of the smooth inverse frequency weights (Arora, Liang and Ma 2017):
// a word as frequent as 1 in 1,000 counts half.
const sifA = 1e-3

// build factorises the counts into word vectors of dim dimensions: the top eigenvectors of the
// PPMI matrix scaled by the square roots of their eigenvalues (the symmetric weighting of
// SVD-based embeddings), each normalised.
func (c *counts) build(ctx context.Context, dim int) (*wordModel, error) {
	m := c.ppmi()
	vals, vecs, err := topEigen(ctx, m, dim, 12, 3)
	if err != nil {
		return nil, err
	}
	n := len(c.vocab)
	wm := &wordModel{dim: len(vals), index: c.index, vectors: make([]float32, n*len(vals)), weight: make([]float32, n)}
	var uniTotal float64
	for _, u := range c.uni {
		uniTotal += u
	}
	for i := 0; i < n; i++ {
		row := wm.vectors[i*wm.dim : (i+1)*wm.dim]
		for t, lam := range vals {
			row[t] = float32(vecs[t][i] * math.Sqrt(math.Max(lam, 0)))
		}
		normalize(row)
		p := 0.0
		if uniTotal > 0 {
			p = c.uni[i] / uniTotal
		}
		wm.weight[i] = float32(sifA / (sifA + p))
	}
	h := sha256.New()
	for _, w := range c.vocab {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	var b [4]byte
	for _, f := range wm.vectors {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(f))
		h.Write(b[:])
	}
	wm.fingerprint = hex.EncodeToString(h.Sum(nil))[:12]
	return wm, nil
}

// embed is the SIF-weighted mean of the known words' vectors, normalised; zero when the text
// has no known word.
func (wm *wordModel) embed(words []string) []float32 {
	out := make([]float32, wm.dim)
	for _, w := range words {
		id, ok := wm.index[w]
		if !ok {
			continue
		}
		wt := wm.weight[id]
		row := wm.vectors[int(id)*wm.dim : (int(id)+1)*wm.dim]
		for t, f := range row {
			out[t] += wt * f
		}
	}
	normalize(out)
	return out
}
