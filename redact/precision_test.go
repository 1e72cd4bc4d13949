package redact_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/redact"
)

// corpusCase is one labelled case of testdata/secrets.txt or testdata/lookalikes.txt.
type corpusCase struct {
	Label   string `json:"label"` // "secret" or "lookalike"
	Kind    string `json:"kind"`  // the provider of a secret, the kind of a look-alike
	Context string `json:"context"`
	Text    string `json:"text"`
	Secret  string `json:"secret,omitempty"` // the exact substring that must be removed
	Line    int    `json:"line"`
}

// loadCorpus reads a corpus file: a header line "=== <kind> <context> [<secret spec>]" and the
// text under it, up to the next header. Lines starting with '#' outside a case are comments.
func loadCorpus(t testing.TB, path, label string) []corpusCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		cases []corpusCase
		cur   *corpusCase
		body  []string
		spec  string
	)
	flush := func() {
		if cur == nil {
			return
		}
		cur.Text = strings.Join(body, "\n")
		if label == "secret" {
			cur.Secret = expandSpec(spec, fmt.Sprintf("%s:%d", path, cur.Line))
			if !strings.Contains(cur.Text, "@@") {
				t.Fatalf("%s:%d: a secret case without @@", path, cur.Line)
			}
			cur.Text = strings.ReplaceAll(cur.Text, "@@", cur.Secret)
		}
		cases = append(cases, *cur)
		cur, body = nil, nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "=== "); ok {
			flush()
			fields := strings.SplitN(rest, " ", 3)
			if len(fields) < 2 || label == "secret" && len(fields) < 3 {
				t.Fatalf("%s:%d: bad header %q", path, n, line)
			}
			cur = &corpusCase{Label: label, Kind: fields[0], Context: fields[1], Line: n}
			if label == "secret" {
				spec = fields[2]
			}
			continue
		}
		if cur == nil {
			continue // comments and blank lines before the first case
		}
		body = append(body, line)
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// Alphabets of the secret spec generators.
var specAlphabets = map[byte]string{
	'a': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	'A': "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	'B': "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", // base32, as in AWS access key ids
	'l': "abcdefghijklmnopqrstuvwxyz0123456789",
	'L': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	'h': "0123456789abcdef",
	'H': "0123456789ABCDEF",
	'u': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
	'b': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	'd': "0123456789",
	'p': "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!*+~^",
}

// expandSpec turns a secret spec into a fake value of that shape. The generator is seeded by
// the case's place, so a case gets the same value on every run.
func expandSpec(spec, seed string) string {
	h := fnv.New64a()
	h.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(h.Sum64(), 13))
	pick := func(alpha string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	spec = strings.ReplaceAll(spec, `\n`, "\n")
	var out strings.Builder
	for i := 0; i < len(spec); i++ {
		if spec[i] != '{' {
			out.WriteByte(spec[i])
			continue
		}
		end := strings.IndexByte(spec[i:], '}')
		g := spec[i+1 : i+end]
		i += end
		if g == "uuid" {
			x := pick(specAlphabets['h'], 32)
			out.WriteString(x[:8] + "-" + x[8:12] + "-4" + x[13:16] + "-a" + x[17:20] + "-" + x[20:])
			continue
		}
		n, err := strconv.Atoi(g[2:])
		if len(g) < 3 || g[1] != ':' || err != nil || specAlphabets[g[0]] == "" {
			panic("bad generator {" + g + "} in " + seed)
		}
		out.WriteString(pick(specAlphabets[g[0]], n))
	}
	return out.String()
}

func loadFullCorpus(t testing.TB) (secrets, lookalikes []corpusCase) {
	return loadCorpus(t, "testdata/secrets.txt", "secret"), loadCorpus(t, "testdata/lookalikes.txt", "lookalike")
}

// corpusPaths runs one text through each way text reaches the redactor: as entry text, as a
// string inside JSON tool arguments, and, when the text is itself a JSON document, as JSON tool
// arguments. It returns each path's output, decoded back to text where it went through JSON.
func corpusPaths(r *redact.Redactor, text string) map[string]string {
	out := map[string]string{}
	out["text"], _ = r.RedactText(text)
	doc, _ := json.Marshal(map[string]string{"command": text})
	got := runArgs(r, doc)
	var m map[string]string
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		out["json_string"] = got
	} else {
		out["json_string"] = m["command"]
	}
	if json.Valid([]byte(text)) {
		out["json"] = runArgs(r, []byte(text))
	}
	return out
}

func runArgs(r *redact.Redactor, doc []byte) string {
	e := &annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "t", Arguments: doc}}
	r.RedactEntry(e)
	return string(e.Tool.Arguments)
}

// leaked reports whether out still holds part of secret: the whole of it or any 8-byte window
// of it that is not also in the text around the secret.
func leaked(text, secret, out string) bool {
	if strings.Contains(out, secret) {
		return true
	}
	around := strings.ReplaceAll(text, secret, "\x00")
	const w = 8
	for i := 0; i+w <= len(secret); i++ {
		if win := secret[i : i+w]; strings.Contains(out, win) && !strings.Contains(around, win) {
			return true
		}
	}
	return false
}

// corpusResult is the measurement of one redactor over the corpus.
type corpusResult struct {
	secrets, found     int
	lookalikes, falseP int
	byProvider         map[string][2]int // provider: cases, found
	byKind             map[string][2]int // look-alike kind: cases, false positives
	missed, flagged    []string
}

func measureCorpus(r *redact.Redactor, secrets, lookalikes []corpusCase) corpusResult {
	res := corpusResult{byProvider: map[string][2]int{}, byKind: map[string][2]int{}}
	for _, c := range secrets {
		res.secrets++
		ok := true
		for path, out := range corpusPaths(r, c.Text) {
			if leaked(c.Text, c.Secret, out) {
				ok = false
				res.missed = append(res.missed, fmt.Sprintf("secrets.txt:%d %s/%s [%s]: %q", c.Line, c.Kind, c.Context, path, out))
			}
		}
		p := res.byProvider[c.Kind]
		p[0]++
		if ok {
			res.found++
			p[1]++
		}
		res.byProvider[c.Kind] = p
	}
	for _, c := range lookalikes {
		res.lookalikes++
		ok := true
		for path, out := range corpusPaths(r, c.Text) {
			if out != c.Text { // the JSON path keeps an unchanged document byte for byte
				ok = false
				res.flagged = append(res.flagged, fmt.Sprintf("lookalikes.txt:%d %s/%s [%s]: %q", c.Line, c.Kind, c.Context, path, out))
			}
		}
		k := res.byKind[c.Kind]
		k[0]++
		if !ok {
			res.falseP++
			k[1]++
		}
		res.byKind[c.Kind] = k
	}
	return res
}

// table renders the measurement as Markdown, the form docs/REDACTION.md shows.
func (res corpusResult) table() string {
	var b strings.Builder
	tp, fp := res.found, res.falseP
	precision := 1.0
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	fmt.Fprintf(&b, "secrets %d, found %d: recall %.1f%%\n", res.secrets, res.found, 100*float64(res.found)/float64(res.secrets))
	fmt.Fprintf(&b, "look-alikes %d, false positives %d: precision %.1f%%\n\n", res.lookalikes, res.falseP, 100*precision)
	b.WriteString("| provider | cases | found |\n|---|---|---|\n")
	for _, k := range sortedKeys(res.byProvider) {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", k, res.byProvider[k][0], res.byProvider[k][1])
	}
	b.WriteString("\n| look-alike kind | cases | false positives |\n|---|---|---|\n")
	for _, k := range sortedKeys(res.byKind) {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", k, res.byKind[k][0], res.byKind[k][1])
	}
	return b.String()
}

func sortedKeys(m map[string][2]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestCorpusPrecisionAndRecall holds the built-in rules to the labelled corpus: every secret
// fully removed on every path, every look-alike left exactly as written. Run with -v to see the
// measurement table. ANNALS_CORPUS_OUT=<file> writes the expanded corpus as JSON Lines, so another
// detector can be measured on the same cases.
func TestCorpusPrecisionAndRecall(t *testing.T) {
	secrets, lookalikes := loadFullCorpus(t)
	if len(secrets) < 100 || len(lookalikes) < 200 {
		t.Fatalf("corpus too small: %d secrets, %d look-alikes", len(secrets), len(lookalikes))
	}
	providers := map[string]bool{}
	for _, c := range secrets {
		providers[c.Kind] = true
	}
	if len(providers) < 20 {
		t.Errorf("the corpus covers %d providers, want at least 20", len(providers))
	}
	if out := os.Getenv("ANNALS_CORPUS_OUT"); out != "" {
		writeCorpus(t, out, append(secrets, lookalikes...))
	}
	res := measureCorpus(mustNew(t, redact.Config{}), secrets, lookalikes)
	t.Logf("corpus measurement:\n%s", res.table())
	for _, m := range res.missed {
		t.Errorf("secret not fully removed: %s", m)
	}
	for _, f := range res.flagged {
		t.Errorf("false positive: %s", f)
	}
}

func writeCorpus(t *testing.T, path string, cases []corpusCase) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRedactCorpus redacts every text of the corpus once per iteration: the cost of the
// rules on a mix of secrets and look-alikes, to compare with other detectors on the same texts.
func BenchmarkRedactCorpus(b *testing.B) {
	secrets, lookalikes := loadFullCorpus(b)
	r := mustNew(b, redact.Config{})
	var size int64
	for _, c := range append(secrets, lookalikes...) {
		size += int64(len(c.Text))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range secrets {
			r.RedactText(c.Text)
		}
		for _, c := range lookalikes {
			r.RedactText(c.Text)
		}
	}
}
