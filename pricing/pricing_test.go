package pricing_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/annals-dev/annals/pricing"
)

// The shipped table parses, carries its snapshot's date, and every model in it has an input
// and an output price.
func TestBuiltinTable(t *testing.T) {
	tb := pricing.Builtin()
	if snap := tb.Pricing().Snapshot; !regexp.MustCompile(`^\d{4}-\d{2}(-\d{2})?$`).MatchString(snap) {
		t.Errorf("snapshot = %q; want the date the prices were taken", snap)
	}
	if tb.Pricing().Overridden {
		t.Error("the built-in table says it is overridden")
	}
	raw, err := os.ReadFile("prices.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Models map[string]struct{ Input, Output float64 } `json:"models"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Models) < 30 {
		t.Errorf("the table lists %d models; want the common OpenAI, Anthropic and Google ones at least", len(f.Models))
	}
	for name, p := range f.Models {
		if p.Input <= 0 || p.Output <= 0 {
			t.Errorf("%s: input %v, output %v; want both priced", name, p.Input, p.Output)
		}
		if _, ok := tb.Price(name); !ok {
			t.Errorf("%s is listed but Price does not find it", name)
		}
	}
}

// Model names as the sources write them find the listed model: dated, versioned, provider- and
// cloud-prefixed, with dots or dashes; another version or an unknown model finds nothing.
func TestPriceMatchesNamesAsSourcesWriteThem(t *testing.T) {
	tb := pricing.Builtin()
	for name, want := range map[string]float64{ // input price per million
		"claude-sonnet-4-20250514":                     3,
		"claude-sonnet-4-5-20250929":                   3,
		"claude-opus-4-1-20250805":                     15,
		"claude-opus-4.1":                              15,
		"claude-opus-4-5-20251101":                     5,
		"Claude-3-5-Haiku-Latest":                      0.8,
		"anthropic/claude-3.7-sonnet":                  3,
		"us.anthropic.claude-3-7-sonnet-20250219-v1:0": 3,
		"claude-3-5-sonnet@20240620":                   3,
		"gpt-4o-2024-08-06":                            2.5,
		"gpt-4o-mini-2024-07-18":                       0.15,
		"openai/gpt-4.1-mini":                          0.4,
		"gpt-4-0613":                                   30,
		"gpt-3.5-turbo-0125":                           0.5,
		"gpt-5-codex":                                  1.25,
		"o4-mini-2025-04-16":                           1.1,
		"models/gemini-2.5-pro":                        1.25,
		"gemini-2.5-pro-preview-06-05":                 1.25,
		"gemini-2.0-flash-001":                         0.1,
		"gemini-2.5-flash-lite-preview-06-17":          0.1,
		"ft:gpt-4o-mini:acme::abc123":                  0.15,
	} {
		p, ok := tb.Price(name)
		if !ok || p.Input != want {
			t.Errorf("Price(%q) = %+v, %v; want input %v", name, p, ok, want)
		}
	}
	for _, name := range []string{"", "claude-opus-4-6", "gpt-7", "my-local-model", "llama3:8b", "o5"} {
		if p, ok := tb.Price(name); ok {
			t.Errorf("Price(%q) = %+v; want unknown", name, p)
		}
	}
}

// A configured file overrides and extends the built-in table model by model; a bad file is
// refused naming it and what is wrong.
func TestLoadOverrides(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(path, []byte(`{"snapshot": "2026-12-01", "models": {"gpt-4o": {"input": 1, "output": 2}, "acme-coder": {"input": 4, "output": 8}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tb, err := pricing.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := tb.Price("gpt-4o-2024-08-06"); p.Input != 1 || p.Output != 2 {
		t.Errorf("overridden gpt-4o = %+v", p)
	}
	if p, ok := tb.Price("acme-coder-20260101"); !ok || p.Output != 8 {
		t.Errorf("added model = %+v, %v", p, ok)
	}
	if p, _ := tb.Price("claude-sonnet-4"); p.Input != 3 {
		t.Errorf("a model the file does not name lost its built-in price: %+v", p)
	}
	if got := tb.Pricing(); got.Snapshot != "2026-12-01" || !got.Overridden {
		t.Errorf("Pricing() = %+v", got)
	}
	for body, want := range map[string]string{
		`{"models": {"x": {"input": -1, "output": 1}}}`: "price of -1",
		`{"models": {"x": {"inptu": 1}}}`:               "unknown field",
		`[1, 2]`:                                        "want {",
	} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := pricing.Load(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): %v; want an error naming the file and %q", body, err, want)
		}
	}
	if _, err := pricing.Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing pricing file loaded")
	}
}
