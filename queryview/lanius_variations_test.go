package queryview_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/sqlite"
)

// TestLaniusVariations replays request variations the shared cases do not cover (other cursors
// and before_ids, limits at the edges and in other JSON types, since/until forms, channel,
// agent and role filters, projections, falsy and odd values, errors, the wire) against the
// answers of the reference implementation itself, recorded on the same gen.py database by
// testdata/lanius_variations.py (the reference's history view at lanius HEAD 942c007). They
// are compared as TestLaniusGoldenAnswers compares the shared cases; variationDeliberate lists
// the ones annals answers differently on purpose (docs/QUERYVIEW.md).
func TestLaniusVariations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and imports a 100k-message lanius database: not in -short")
	}
	if raceDetector {
		t.Skip("a replay of recorded answers, not a concurrency test: the plain run covers it")
	}
	dir := interopDir(t)
	src := generatedLanius(t, dir)
	ctx := context.Background()
	store, err := sqlite.Open(ctx, importedLanius(t, src), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := history.New(history.Config{Store: store, View: store})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Keys: store})
	if err := srv.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	cases := readVariations(t, "testdata/lanius_variations.json.gz")
	equal := 0
	var failed []string
	for _, gc := range cases {
		diffs := replay(t, srv.URL(), gc)
		if check, ok := variationDeliberate[gc.Case]; ok {
			if len(diffs) == 0 {
				failed = append(failed, fmt.Sprintf("%s: answered as the reference does, but listed as a deliberate difference", gc.Case))
			} else if d := check(gc, diffs); d != "" {
				failed = append(failed, fmt.Sprintf("%s (a deliberate difference, but not the one documented): %s", gc.Case, d))
			}
			continue
		}
		if len(diffs) == 0 {
			equal++
			continue
		}
		failed = append(failed, fmt.Sprintf("%s: %s", gc.Case, strings.Join(first(diffs, 5), "; ")))
	}
	t.Logf("%d of %d variations answered as the reference does, %d deliberate differences", equal, len(cases), len(variationDeliberate))
	for _, f := range failed {
		t.Error(f)
	}

	// The pages the server writes with their own encoder (AppendJSON) are byte for byte what
	// encoding/json writes, on every recorded query, the shared cases' too.
	var index []struct {
		File string `json:"file"`
	}
	readJSON(t, filepath.Join(dir, "golden", "INDEX.json"), &index)
	for _, c := range index {
		var gc goldenCase
		readJSON(t, filepath.Join(dir, "golden", c.File), &gc)
		cases = append(cases, gc)
	}
	v := queryview.New(history.For(svc, history.LocalOwner(), history.Access{ReadOnly: true, Local: true}).View(svc))
	encoded := 0
	for _, gc := range cases {
		for _, ex := range gc.Exchanges {
			if ex.Request.Method != "POST" || ex.Request.Path != "/query" || ex.Request.BodyRaw == nil {
				continue
			}
			ans, err := v.Query(ctx, strings.NewReader(*ex.Request.BodyRaw))
			a, ok := ans.(interface{ AppendJSON([]byte) ([]byte, error) })
			if err != nil || !ok {
				if err != nil && ex.Response.Status != nil && *ex.Response.Status == 200 {
					t.Errorf("%s: %v", gc.Case, err)
				}
				continue
			}
			want, err1 := json.Marshal(ans)
			got, err2 := a.AppendJSON(nil)
			if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: AppendJSON (%v) differs from json.Marshal (%v): %d and %d bytes", gc.Case, err2, err1, len(got), len(want))
			}
			encoded++
		}
	}
	t.Logf("%d recorded queries encoded alike by AppendJSON and encoding/json", encoded)
}

// variationDeliberate are the variations annals answers differently on purpose, each checking
// that annals's answer is the documented one.
var variationDeliberate = map[string]func(gc goldenCase, got []exchangeResult) string{
	// The reference ignores a sessions limit (always 500); annals honours it.
	"sessions_limit_ignored": func(gc goldenCase, got []exchangeResult) string {
		return firstItems(gc, got, "sessions", 5)
	},
	// The reference matches text in the stored JSON text of the whole message, annals in each
	// field's value: a needle with a bare backslash or quote finds the fields holding it, and
	// digits that occur in a call id find no tool row by it.
	"search_text_backslash": func(gc goldenCase, got []exchangeResult) string {
		return holding(got, `C:\Users\shrike`)
	},
	"search_text_quote": func(gc goldenCase, got []exchangeResult) string {
		return holding(got, `"quoted"`)
	},
	"search_text_number": func(gc goldenCase, got []exchangeResult) string {
		return holding(got, "100")
	},
}

// firstItems checks that annals's list is the reference's first n items.
func firstItems(gc goldenCase, got []exchangeResult, key string, n int) string {
	if len(got) != 1 || got[0].Status != 200 {
		return fmt.Sprintf("want one 200 answer, got %+v", got)
	}
	ref, _ := renumber(gc.Exchanges[0].Response.Body).(map[string]any)
	refItems, _ := ref[key].([]any)
	body, _ := got[0].Body.(map[string]any)
	items, _ := body[key].([]any)
	if len(items) != n || len(refItems) < n {
		return fmt.Sprintf("%d %s, want the reference's first %d of %d", len(items), key, n, len(refItems))
	}
	return strings.Join(compareAnswer(key, refItems[:n], items), "; ")
}

// holding checks that every message annals answered holds the needle in one of its fields'
// values (an answer's text, as JSON decodes it).
func holding(got []exchangeResult, needle string) string {
	if len(got) != 1 || got[0].Status != 200 {
		return fmt.Sprintf("want one 200 answer, got %+v", got)
	}
	body, _ := got[0].Body.(map[string]any)
	items, _ := body["messages"].([]any)
	if len(items) == 0 {
		return "no messages, want those holding " + needle
	}
	for _, it := range items {
		var values []string
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				values = append(values, strings.ToLower(x))
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		content := it.(map[string]any)["content"]
		if c, _ := content.(map[string]any); c != nil && c["truncated"] == true {
			continue // the whole content's stub: the needle may lie past its preview
		}
		walk(content)
		if !slices.ContainsFunc(values, func(s string) bool { return strings.Contains(s, strings.ToLower(needle)) }) {
			return fmt.Sprintf("message %.200s does not hold %q", jsonText(it), needle)
		}
	}
	return ""
}

// readVariations reads the recorded variations (gzip-compressed JSON).
func readVariations(t *testing.T, path string) []goldenCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []goldenCase `json:"cases"`
	}
	if err := json.NewDecoder(zr).Decode(&file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return file.Cases
}
