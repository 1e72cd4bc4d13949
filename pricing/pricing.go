// Package pricing is the table that prices tokens a source recorded without a cost: an offline
// snapshot of public model prices shipped in the binary (prices.json, its date inside), which a
// file named in the configuration overrides or extends model by model. It implements
// annals.Pricer and matches model names as sources write them: dated, versioned and
// provider-prefixed forms of a listed model find its price (docs/CONFIG.md, docs/USAGE.md).
package pricing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strings"

	"github.com/annals-dev/annals"
)

//go:embed prices.json
var builtin []byte

// maxFile bounds an override file.
const maxFile = 1 << 20

// file is the format of prices.json and of an override file.
type file struct {
	Snapshot string                       `json:"snapshot"`
	Note     string                       `json:"note,omitempty"`
	Models   map[string]annals.ModelPrice `json:"models"`
}

// Table is a pricing table; see the package comment.
type Table struct {
	prices     map[string]annals.ModelPrice // by normalised name
	snapshot   string
	overridden bool
}

var _ annals.Pricer = (*Table)(nil)

// Builtin returns the table shipped in the binary.
func Builtin() *Table {
	t, err := parse(builtin, "the built-in price table")
	if err != nil {
		// The embedded file is checked by this package's tests; a broken build prices nothing.
		return &Table{prices: map[string]annals.ModelPrice{}, snapshot: "none"}
	}
	return t
}

// Load returns the built-in table with the models of the JSON file at path laid over it (same
// format as prices.json: {"snapshot": "...", "models": {"name": {"input": 3, "output": 15}}});
// "" is the built-in table alone. Errors name the file and what is wrong.
func Load(path string) (*Table, error) {
	t := Builtin()
	if path == "" {
		return t, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pricing file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("pricing file %s: %w", path, err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("pricing file %s is larger than %d bytes", path, maxFile)
	}
	over, err := parse(b, "pricing file "+path)
	if err != nil {
		return nil, err
	}
	for k, p := range over.prices {
		t.prices[k] = p
	}
	if over.snapshot != "" {
		t.snapshot = over.snapshot
	}
	t.overridden = true
	return t, nil
}

func parse(b []byte, what string) (*Table, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w (want {\"snapshot\": \"2025-11\", \"models\": {\"model-name\": {\"input\": 3, \"output\": 15, \"cache_read\": 0.3, \"cache_write\": 3.75}}}, prices in USD per million tokens)", what, err)
	}
	t := &Table{prices: make(map[string]annals.ModelPrice, len(f.Models)), snapshot: f.Snapshot}
	for name, p := range f.Models {
		for _, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
			if v < 0 || math.IsNaN(v) || v > 1e6 {
				return nil, fmt.Errorf("%s: model %q has a price of %v (want a number of USD per million tokens, 0 to 1000000)", what, name, v)
			}
		}
		key := Normalize(name)
		if key == "" {
			return nil, fmt.Errorf("%s: a model name is empty", what)
		}
		t.prices[key] = p
	}
	return t, nil
}

// Pricing describes the table for the usage report.
func (t *Table) Pricing() annals.UsagePricing {
	return annals.UsagePricing{Snapshot: t.snapshot, Overridden: t.overridden}
}

// Price returns the price of model: the listed model its normalised name is, or else the
// longest listed model it extends by a non-numeric suffix ("gemini-2.5-pro-preview-06-05" is
// gemini-2.5-pro, "claude-opus-4-6" is not claude-opus-4: a number names another version).
func (t *Table) Price(model string) (annals.ModelPrice, bool) {
	name := Normalize(model)
	if name == "" {
		return annals.ModelPrice{}, false
	}
	if p, ok := t.prices[name]; ok {
		return p, true
	}
	best := ""
	for k := range t.prices {
		if len(k) > len(best) && strings.HasPrefix(name, k+"-") {
			if rest := name[len(k)+1:]; rest[0] < '0' || rest[0] > '9' {
				best = k
			}
		}
	}
	if best == "" {
		return annals.ModelPrice{}, false
	}
	return t.prices[best], true
}

var (
	// Suffixes that name a release of a model rather than another model: dates (20250514,
	// 2024-08-06, 0613), numbered builds (001), "latest", API versions (v1, v2).
	releaseSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2}|\d{3,4}|latest|v\d+)$`)
	// A cloud's regional and vendor prefix: us.anthropic., eu.anthropic., anthropic.
	vendorPrefix = regexp.MustCompile(`^([a-z]{2,4}\.)?(anthropic|openai|google|meta|mistral|amazon)\.`)
)

// Normalize is the form of a model name the table is keyed by: lower case, without a provider
// path (openrouter/anthropic/…, models/…), a cloud's vendor prefix (us.anthropic.…), a
// fine-tune's "ft:" and account suffix, a version tag after ':' or '@', or release suffixes
// (dates, latest, v1); dots are dashes, so claude-opus-4.1 and claude-opus-4-1 are one model.
func Normalize(model string) string {
	s := strings.ToLower(strings.TrimSpace(model))
	s = strings.TrimPrefix(s, "ft:")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = vendorPrefix.ReplaceAllString(s, "")
	if i := strings.IndexAny(s, ":@"); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, ".", "-")
	for {
		t := releaseSuffix.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return s
}
