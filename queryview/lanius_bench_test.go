package queryview_test

import (
	"context"
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
	fresh := false
	if _, err := os.Stat(src); err != nil {
		db, err := laniustest.Generate(src, laniustest.Options{Sessions: 2200, Turns: 10})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		fresh = true
	}
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
