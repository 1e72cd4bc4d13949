package embed_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/internal/vector"
)

// embedOne embeds a single text with the default Hashing embedder.
func embedOne(tb testing.TB, h *embed.Hashing, text string) []float32 {
	tb.Helper()
	vs, err := h.Embed(context.Background(), []string{text})
	if err != nil {
		tb.Fatalf("Embed(%q): %v", text, err)
	}
	if len(vs) != 1 {
		tb.Fatalf("Embed returned %d vectors, want 1", len(vs))
	}
	return vs[0]
}

func norm(v []float32) float64 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
}

func TestHashingScoresTextsSharingWordsAboveUnrelatedTexts(t *testing.T) {
	var h embed.Hashing
	tests := []struct {
		name, source, similar, unrelated string
	}{
		{
			name:      "rounding bug",
			source:    "Fix failing TestTotalRoundsHalfUp: invoice total rounding is off by a cent after the currency refactor",
			similar:   "Invoice totals round down by one cent; rounding bug in the currency code",
			unrelated: "Set up the Kubernetes ingress controller and TLS certificates for the staging cluster",
		},
		{
			name:      "inflections via character n-grams",
			source:    "migrating the postgres schema",
			similar:   "postgres schema migration",
			unrelated: "draw a chart of monthly sales",
		},
		{
			name:      "identifiers split by punctuation",
			source:    "edit invoice/total.go to use integer cents",
			similar:   "total go invoice cents",
			unrelated: "write release notes for version two",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := embedOne(t, &h, tt.source)
			sim := vector.Cosine(src, embedOne(t, &h, tt.similar))
			unrel := vector.Cosine(src, embedOne(t, &h, tt.unrelated))
			t.Logf("similar %.3f unrelated %.3f", sim, unrel)
			if sim <= unrel {
				t.Errorf("cosine(similar) = %.3f, cosine(unrelated) = %.3f; want similar > unrelated", sim, unrel)
			}
			if sim < 0.2 {
				t.Errorf("cosine(similar) = %.3f, want >= 0.2", sim)
			}
			if unrel > 0.2 {
				t.Errorf("cosine(unrelated) = %.3f, want <= 0.2", unrel)
			}
		})
	}
}

func TestHashingIsDeterministicAcrossInstancesAndCalls(t *testing.T) {
	text := "Déjà vu: the café's naïve façade — 42 tests, TODO(dana) fix rounding in invoice/total.go"
	a := embedOne(t, &embed.Hashing{}, text)
	h, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := h.Embed(context.Background(), []string{"something else first", text, text})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range vs[1:] {
		if string(vector.Encode(a)) != string(vector.Encode(b)) {
			t.Fatalf("vector %d differs from a fresh embedder's vector of the same text", i+1)
		}
	}
	// The exact bits are part of the contract (stored vectors must stay comparable with new
	// ones), so pin them: a change here needs a new Model() version.
	sum := fnv.New64a()
	sum.Write(vector.Encode(a))
	if got, want := sum.Sum64(), uint64(0x1e2fb51169f82b51); got != want {
		t.Errorf("fnv64a of the vector bits = %#x, want %#x (features changed: bump the model version and this value)", got, want)
	}
}

func TestHashingOutputIsUnitNormOrZeroForEmptyText(t *testing.T) {
	var h embed.Hashing
	for _, text := range []string{"a", "hello", "The quick brown fox jumps over the lazy dog.", strings.Repeat("word ", 1000), "日本語のテキスト", "ß"} {
		v := embedOne(t, &h, text)
		if len(v) != embed.DefaultDimension {
			t.Fatalf("len = %d, want %d", len(v), embed.DefaultDimension)
		}
		if n := norm(v); math.Abs(n-1) > 1e-5 {
			t.Errorf("norm(%q) = %v, want 1", text[:min(len(text), 20)], n)
		}
	}
	for _, text := range []string{"", "   ", "!!! --- ???"} {
		v := embedOne(t, &h, text)
		if len(v) != embed.DefaultDimension {
			t.Fatalf("len = %d, want %d", len(v), embed.DefaultDimension)
		}
		if n := norm(v); n != 0 {
			t.Errorf("norm(%q) = %v, want 0 (no features)", text, n)
		}
		if c := vector.Cosine(v, embedOne(t, &h, "hello")); c != 0 {
			t.Errorf("cosine(empty, hello) = %v, want 0", c)
		}
	}
}

func TestHashingFoldsCaseAndAccents(t *testing.T) {
	var h embed.Hashing
	pairs := [][2]string{
		{"café", "cafe"},
		{"CAFÉ Crème", "cafe creme"},
		{"cafe\u0301", "cafe"}, // decomposed: e + combining acute
		{"Straße", "strasse"},
		{"Łódź Żółć", "lodz zolc"},
		{"Œuvre ÆON", "oeuvre aeon"},
	}
	for _, p := range pairs {
		if c := vector.Cosine(embedOne(t, &h, p[0]), embedOne(t, &h, p[1])); c < 0.9999 {
			t.Errorf("cosine(%q, %q) = %v, want 1", p[0], p[1], c)
		}
	}
}

func TestHashingDimensionAndModel(t *testing.T) {
	h, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.Dimension(), 256; got != want {
		t.Errorf("Dimension() = %d, want %d", got, want)
	}
	if got, want := h.Model(), "annals-hash-v1-256"; got != want {
		t.Errorf("Model() = %q, want %q", got, want)
	}
	if got := len(embedOne(t, h, "hello world")); got != 256 {
		t.Errorf("len = %d, want 256", got)
	}
	if got, want := (&embed.Hashing{}).Model(), "annals-hash-v1-512"; got != want {
		t.Errorf("zero value Model() = %q, want %q", got, want)
	}
	for _, d := range []int{-1, 8, 100000} {
		if _, err := embed.NewHashing(d); annals.ErrorCode(err) != annals.EINVALID {
			t.Errorf("NewHashing(%d) error = %v, want invalid", d, err)
		}
	}
}

func TestHashingEmbedHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&embed.Hashing{}).Embed(ctx, []string{"x"})
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want unavailable wrapping context.Canceled", err)
	}
}

// benchText is about 1 KB of chat-like English.
var benchText = strings.Repeat("The invoice total test broke after the currency refactor; the agent finds a float "+
	"rounding bug in invoice/total.go and switches to integer cents, then reruns go test. ", 7)[:1024]

func BenchmarkHashingEmbed(b *testing.B) {
	var h embed.Hashing
	ctx := context.Background()
	texts := []string{benchText}
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCosine512(b *testing.B) {
	var h embed.Hashing
	x := embedOne(b, &h, "invoice rounding bug")
	y := embedOne(b, &h, benchText)
	var sink float32
	for b.Loop() {
		sink += vector.Cosine(x, y)
	}
	_ = sink
}
