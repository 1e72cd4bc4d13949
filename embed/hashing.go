package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/annals-dev/annals"
)

// Hashing dimensions.
const (
	// DefaultDimension is the dimension of a Hashing embedder whose dimension is not set.
	DefaultDimension = 512
	// MinDimension and MaxDimension bound a configured dimension: below 64 the hashed features
	// collide so much that unrelated texts look alike; above 8192 vectors cost storage and
	// ranking time without improving the match on texts of chat-metadata size.
	MinDimension = 64
	MaxDimension = 8192
)

// maxHashInput bounds how many bytes of one text are hashed, so a pathological input (a whole
// transcript pasted into a description) costs bounded CPU. The embedded text of a chat (title,
// description, summary) is far below it.
const maxHashInput = 256 << 10

// maxGramWord is the longest word (in runes) that contributes character n-grams. Longer tokens
// are hashes, base64 or minified code: their n-grams would only add noise. They still count as
// a word.
const maxGramWord = 40

// Feature families, each with its own hash seed (so the word "abc" and the trigram "abc" are
// different features) and weight. The weights balance the families: a six-letter word yields
// about 15 character n-grams, and at 0.25 each their combined energy (15 × 0.25² ≈ 0.94) is about
// that of the word itself, so spelling similarity helps without drowning exact word matches.
// Bigrams add word order and phrases. Stopwords keep a small weight rather than none, so a text
// made only of them still has a direction.
const (
	famWord = iota
	famStop
	famBigram
	famGram
	famCount
)

var familyWeight = [famCount]float64{famWord: 1.0, famStop: 0.2, famBigram: 0.6, famGram: 0.25}

var familySeed = [famCount]byte{famWord: 'w', famStop: 'w', famBigram: 'b', famGram: 'g'}

// Hashing is the offline Embedder: feature hashing of word unigrams, word bigrams and character
// n-grams (3 to 5 runes, within words, with word-boundary markers) into a fixed number of
// dimensions. It needs no network, no model files and no training, and it is deterministic
// across runs, processes and platforms: the same text always gives the same bits.
//
// What it captures is lexical overlap, made tolerant of case, Latin accents, word inflections
// and identifiers split by punctuation (the n-grams of "rounding" and "rounds" overlap). What it
// cannot capture is meaning without shared words: "car" and "automobile" are unrelated to it.
// For that, configure a model through OpenAI.
//
// The zero value is ready to use with DefaultDimension. A Hashing is safe for concurrent use.
type Hashing struct {
	dim int
}

// NewHashing returns a Hashing embedder of the given dimension; 0 means DefaultDimension.
// Errors: invalid (a dimension outside MinDimension..MaxDimension).
func NewHashing(dimension int) (*Hashing, error) {
	if dimension == 0 {
		dimension = DefaultDimension
	}
	if dimension < MinDimension || dimension > MaxDimension {
		return nil, annals.Errorf(annals.EINVALID, "hashing embedder dimension %d is out of range (want %d to %d, or 0 for %d)",
			dimension, MinDimension, MaxDimension, DefaultDimension)
	}
	return &Hashing{dim: dimension}, nil
}

var _ annals.MeaningEmbedder = (*Hashing)(nil)

// Dimension returns the length of every vector.
func (h *Hashing) Dimension() int {
	if h.dim == 0 {
		return DefaultDimension
	}
	return h.dim
}

// Model names the feature set and the dimension, e.g. "annals-hash-v1-512". Vectors are only
// comparable when both match, and the version changes whenever the features or weights do.
func (h *Hashing) Model() string {
	return "annals-hash-v1-" + strconv.Itoa(h.Dimension())
}

// RanksByMeaning is false: hashed words find shared words, not shared meaning.
func (h *Hashing) RanksByMeaning() bool { return false }

// Embed returns one L2-normalised vector per text. A text with no letters or digits (including
// the empty text) has no features and gets the zero vector, which Cosine scores 0 against
// everything: an empty chat is related to nothing. Errors: only the context's, as unavailable.
func (h *Hashing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var f featurizer
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, &annals.Error{Code: annals.EUNAVAILABLE, Message: "embedding was cancelled", Err: fmt.Errorf("hashing embed: %w", err)}
		}
		out[i] = f.embed(t, h.Dimension())
	}
	return out, nil
}

// featurizer holds the buffers of one Embed call, reused from text to text.
type featurizer struct {
	norm  []byte
	words []string
	offs  []int
	feats [famCount][]uint64
}

func (f *featurizer) embed(text string, dim int) []float32 {
	if len(text) > maxHashInput {
		text = text[:maxHashInput] // a cut rune at the end is harmless: it is not a letter
	}
	f.norm = appendNormalized(f.norm[:0], text)
	// One string for the whole normalised text; words are substrings of it, so splitting
	// allocates nothing per word.
	norm := string(f.norm)
	f.words = f.words[:0]
	for w := range strings.SplitSeq(strings.TrimSuffix(norm, " "), " ") {
		if w != "" {
			f.words = append(f.words, w)
		}
	}
	for i := range f.feats {
		f.feats[i] = f.feats[i][:0]
	}
	for i, w := range f.words {
		stop := isStopword(w)
		if stop {
			f.feats[famStop] = append(f.feats[famStop], hashString(familySeed[famStop], w))
		} else {
			f.feats[famWord] = append(f.feats[famWord], hashString(familySeed[famWord], w))
			f.addGrams(w)
		}
		if i > 0 {
			prev := f.words[i-1]
			if !stop || !isStopword(prev) { // "of the" says nothing
				h := fnvByte(fnvString(fnvByte(fnvOffset, familySeed[famBigram]), prev), ' ')
				f.feats[famBigram] = append(f.feats[famBigram], mix(fnvString(h, w)))
			}
		}
	}

	// Accumulate in a fixed order (family by family, features sorted by hash) so floating-point
	// sums, and therefore the output bits, never depend on map iteration order. Sorting also
	// groups repeats, which gives each feature's term frequency.
	acc := make([]float64, dim)
	for fam, hs := range f.feats {
		slices.Sort(hs)
		for i := 0; i < len(hs); {
			j := i + 1
			for j < len(hs) && hs[j] == hs[i] {
				j++
			}
			// Sublinear tf: a word said ten times matters more than once, but not ten times
			// more, or a repetitive text would be dominated by its most repeated word. The
			// explicit float64 conversions forbid fused multiply-adds, which some platforms
			// would otherwise use and so change the last bits.
			v := float64(familyWeight[fam] * tfWeight(j-i))
			h := hs[i]
			// Signed hashing: the sign comes from the top bit, the bucket from the low bits, so
			// colliding features cancel as often as they add and their bias averages out.
			if h>>63 != 0 {
				v = -v
			}
			acc[h%uint64(dim)] += v
			i = j
		}
	}
	var ss float64
	for _, v := range acc {
		ss += float64(v * v)
	}
	out := make([]float32, dim)
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, v := range acc {
		out[i] = float32(v * inv)
	}
	return out
}

// addGrams adds the character n-grams (3 to 5 runes) of w padded with boundary markers, as
// fastText does: "<cafe>" gives "<ca", "caf", ..., "fe>", and the markers let a prefix or a
// suffix match as such. The n-grams are hashed straight from w's bytes, without building strings.
func (f *featurizer) addGrams(w string) {
	f.offs = f.offs[:0]
	for i := range w { // rune start offsets
		f.offs = append(f.offs, i)
	}
	n := len(f.offs) // runes in w
	if n > maxGramWord {
		return
	}
	f.offs = append(f.offs, len(w))
	padded := n + 2
	for size := 3; size <= 5; size++ {
		for p := 0; p+size <= padded; p++ {
			q := p + size // padded positions [p, q); position 0 is '<', position n+1 is '>'
			h := fnvByte(fnvOffset, familySeed[famGram])
			if p == 0 {
				h = fnvByte(h, '<')
			}
			lo, hi := max(p, 1)-1, min(q, n+1)-1 // rune range of w inside the window
			h = fnvString(h, w[f.offs[lo]:f.offs[hi]])
			if q == padded {
				h = fnvByte(h, '>')
			}
			f.feats[famGram] = append(f.feats[famGram], mix(h))
		}
	}
}

// FNV-1a, 64-bit, written out so hashing a substring allocates nothing and the result is fixed
// across platforms and Go releases (hash/maphash is randomly seeded per process).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func hashString(seed byte, s string) uint64 {
	return mix(fnvString(fnvByte(fnvOffset, seed), s))
}

// mix is the splitmix64 finalizer. FNV-1a's low bits, which pick the bucket, depend mostly on
// the last bytes hashed; mixing spreads every input byte over every output bit, so the bucket and
// the sign bit are independent.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// isStopword reports whether w is a very common English function word. Without a corpus there is
// no IDF to discount them, so they are discounted by list: otherwise two unrelated English texts
// would look alike for sharing "the", "to" and "is".
func isStopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did",
		"do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "i", "if", "in",
		"into", "is", "it", "its", "just", "me", "my", "no", "not", "of", "on", "or", "our", "she",
		"so", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
		"to", "was", "we", "were", "what", "when", "which", "who", "will", "with", "would", "you",
		"your", "ll", "s", "t", "re", "ve", "d", "m":
		return true
	}
	return false
}

// tfWeights[n-1] is 1 + ln(n), written out rather than computed: math.Log is assembly on amd64
// and Go elsewhere, and the two may differ in the last bit, which would make vectors differ
// across platforms.
var tfWeights = [...]float64{
	1.0, 1.6931471805599454, 2.09861228866811, 2.386294361119891,
	2.6094379124341005, 2.791759469228055, 2.9459101490553135, 3.0794415416798357,
	3.1972245773362196, 3.302585092994046, 3.3978952727983707, 3.4849066497880004,
	3.5649493574615367, 3.6390573296152584, 3.70805020110221, 3.772588722239781,
	3.833213344056216, 3.8903717578961645, 3.9444389791664403, 3.995732273553991,
	4.044522437723423, 4.091042453358316, 4.13549421592915, 4.178053830347945,
	4.218875824868201, 4.258096538021482, 4.295836866004329, 4.332204510175204,
	4.367295829986475, 4.401197381662156, 4.433987204485146, 4.465735902799727,
	4.49650756146648, 4.526360524616162, 4.555348061489413, 4.58351893845611,
	4.610917912644224, 4.637586159726386, 4.663561646129646, 4.688879454113936,
	4.713572066704308, 4.737669618283368, 4.761200115693562, 4.7841896339182615,
	4.80666248977032, 4.828641396489095, 4.850147601710058, 4.871201010907891,
	4.891820298110627, 4.912023005428146, 4.931825632724326, 4.951243718581427,
	4.970291913552122, 4.9889840465642745, 5.007333185232471, 5.02535169073515,
	5.04305126783455, 5.060443010546419, 5.07753744390572, 5.0943445622221,
	5.110873864173311, 5.127134385045092, 5.143134726391533, 5.1588830833596715,
}

// tfWeight is the sublinear term frequency 1 + ln(tf), saturating at 64 repeats: beyond that a
// feature is boilerplate, not emphasis.
func tfWeight(tf int) float64 {
	return tfWeights[min(tf, len(tfWeights))-1]
}
