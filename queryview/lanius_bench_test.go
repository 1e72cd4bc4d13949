package queryview_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/laniustest"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/sqlite"
)

// TestLaniusViewSpeed times every kind on a generated lanius database of about 100k messages
// imported into SQLite (docs/QUERYVIEW.md, Storage notes). It is slow to set up, so it runs
// only with ANNALS_LANIUS_BENCH_DIR set: the directory keeps lanius.db and annals.db between
// runs, so a second run times the queries alone.
func TestLaniusViewSpeed(t *testing.T) {
	dir := os.Getenv("ANNALS_LANIUS_BENCH_DIR")
	if dir == "" {
		t.Skip("set ANNALS_LANIUS_BENCH_DIR to time the view on a 100k-message lanius database")
	}
	ctx := context.Background()
	src, dst := filepath.Join(dir, "lanius.db"), filepath.Join(dir, "annals.db")
	if _, err := os.Stat(src); err != nil {
		db, err := laniustest.Generate(src, laniustest.Options{Sessions: 2200, Turns: 10})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	_, err := os.Stat(dst)
	fresh := err != nil
	store, err := sqlite.Open(ctx, dst, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if fresh {
		f, _ := importer.Lookup(importer.Formats(), "lanius")
		if _, _, err := importer.New(store, importer.Options{Formats: []importer.Format{f}}).ImportPath(ctx, src, f); err != nil {
			t.Fatal(err)
		}
	}
	v := queryview.New(store)
	pctx := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "local", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	for _, q := range []string{
		`{"kind":"agents"}`,
		`{"kind":"sessions"}`,
		`{"kind":"sessions","agent":"ops"}`,
		`{"kind":"transcript","session":"s-00000000"}`,
		`{"kind":"conversation","correlation":"corr-5-3"}`,
		`{"kind":"search","page":{"limit":80}}`,
		`{"kind":"search","filter":{"text":"sigma"},"page":{"limit":80}}`,
		`{"kind":"search","filter":{"text":"restart"},"page":{"limit":80}}`,
		`{"kind":"search","filter":{"channels":["in/agent/main"]},"page":{"limit":80}}`,
		`{"kind":"search","filter":{"roles":["tool"]},"select":{"tool_results":{"truncate":200}}}`,
	} {
		var ds []time.Duration
		for i := 0; i < 21; i++ {
			start := time.Now()
			if _, err := v.Query(pctx, strings.NewReader(q)); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		t.Logf("p50 %8.2f ms  p95 %8.2f ms  %s", ms(ds[len(ds)/2]), ms(ds[len(ds)*95/100]), q)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TestLaniusViewAnswersDump answers the queries of dir/cases.jsonl (one query object a line) on
// the benchmark database and writes each answer, as the wire carries it, to dir/annals.jsonl,
// for comparing with the reference's answers on the same lanius.db. It runs only with
// ANNALS_LANIUS_BENCH_DIR set and a cases file present.
func TestLaniusViewAnswersDump(t *testing.T) {
	dir := os.Getenv("ANNALS_LANIUS_BENCH_DIR")
	cases, err := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	if dir == "" || err != nil {
		t.Skip("set ANNALS_LANIUS_BENCH_DIR to a directory holding annals.db and cases.jsonl")
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	v := queryview.New(store)
	pctx := annals.NewContextWithPrincipal(ctx, &annals.Principal{TenantID: "local", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	var out strings.Builder
	for _, q := range strings.Split(strings.TrimSpace(string(cases)), "\n") {
		start := time.Now()
		ans, err := v.Query(pctx, strings.NewReader(q))
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Logf("%s took %v", q, d)
		}
		var b []byte
		if err != nil {
			b, _ = json.Marshal(map[string]any{"ok": false, "error": annals.ErrorMessage(err)})
		} else if b, err = json.Marshal(ans); err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "annals.jsonl"), []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}
