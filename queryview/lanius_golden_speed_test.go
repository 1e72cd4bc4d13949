package queryview_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

// TestLaniusGoldenSpeed times every kind over HTTP, one client, on the database of the recorded
// answers (TestLaniusGoldenAnswers builds and imports it): p50 and p95 of 41 runs of each query,
// against the reference's times recorded on the same database (issue 32, Speed; docs/BENCHMARKS.md).
// It only logs, and runs only with ANNALS_LANIUS_SPEED set: to 1 for every query, or to a part of
// the names of those to time. ANNALS_LANIUS_SPEED_RUNS changes the 41 runs (more, to profile).
// The CPU time is the process's (server and client), per request: on a loaded machine the wall
// times grow with the load, CPU times much less.
// The server keeps answers (queryview.Cache), so every run after a query's first is answered
// kept; ANNALS_LANIUS_SPEED_NOCACHE=1 times every run read afresh, as a first call.
func TestLaniusGoldenSpeed(t *testing.T) {
	if os.Getenv("ANNALS_LANIUS_SPEED") == "" {
		t.Skip("set ANNALS_LANIUS_SPEED=1 to time the view on the recorded answers' database")
	}
	dir := interopDir(t)
	src := generatedLanius(t, dir)
	ctx := context.Background()
	store, err := sqlite.Open(ctx, importedLanius(t, src), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var man struct {
		Conversations map[string]string `json:"conversations"`
	}
	readJSON(t, filepath.Join(filepath.Dir(src), "manifest.json"), &man)
	svc := history.New(history.Config{Store: store, View: store})
	// ANNALS_LANIUS_SPEED_NOCACHE=1 keeps no answers (httpapi.Config.QueryCacheBytes): every
	// run reads and encodes its answer, as the first call of a query does.
	cacheBytes := 0
	if os.Getenv("ANNALS_LANIUS_SPEED_NOCACHE") != "" {
		cacheBytes = -1
	}
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Keys: store, QueryCacheBytes: cacheBytes})
	if err := srv.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	runs := 41
	if n, err := strconv.Atoi(os.Getenv("ANNALS_LANIUS_SPEED_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, q := range []struct{ name, body string }{
		{"agents", `{"kind":"agents"}`},
		{"sessions of one agent", `{"kind":"sessions","agent":"main"}`},
		{"search rare text", `{"kind":"search","filter":{"text":"kestrel"}}`},
		{"transcript", `{"kind":"transcript","session":"s-982613bf"}`},
		{"transcript before_id", `{"kind":"transcript","session":"s-982613bf","before_id":95750}`},
		{"conversation typical", `{"kind":"conversation","correlation":"` + man.Conversations["typical"] + `"}`},
		{"conversation over 500", `{"kind":"conversation","correlation":"` + man.Conversations["over_500"] + `"}`},
	} {
		if only := os.Getenv("ANNALS_LANIUS_SPEED"); only != "1" && !strings.Contains(q.name, only) {
			continue
		}
		var ds, cpu []time.Duration
		for i := 0; i < runs; i++ {
			start, c0 := time.Now(), cpuTime()
			resp, err := http.Post(srv.URL()+"/query", "application/json", strings.NewReader(q.body))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: status %d", q.body, resp.StatusCode)
			}
			ds, cpu = append(ds, time.Since(start)), append(cpu, cpuTime()-c0)
		}
		slices.Sort(ds)
		slices.Sort(cpu)
		t.Logf("%-22s p50 %8.2f ms  p95 %8.2f ms  cpu p50 %7.2f ms", q.name, ms(ds[len(ds)/2]), ms(ds[len(ds)*95/100]), ms(cpu[len(cpu)/2]))
	}
}
