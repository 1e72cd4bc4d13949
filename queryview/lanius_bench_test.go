package queryview_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/laniustest"
	"github.com/annals-dev/annals/postgres"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/view"
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
	timeQueries(t, "sqlite", store)
	// ANNALS_LANIUS_BENCH_POSTGRES names a PostgreSQL database holding the same history (annals
	// copy --from dir/annals.db --to URL): the same queries are timed there too.
	if dsn := os.Getenv("ANNALS_LANIUS_BENCH_POSTGRES"); dsn != "" {
		pg, err := postgres.Open(ctx, dsn, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer pg.Close()
		timeQueries(t, "postgres", pg)
	}
}

// timeQueries logs p50 and p95 of 21 runs of every query in process.
func timeQueries(t *testing.T, backend string, store interface {
	history.Store
	view.Store
}) {
	v := queryview.New(history.New(history.Config{Store: store, View: store}))
	pctx := annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "local", Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	for _, lq := range laniusQueries {
		q := lq.body
		var ds, cpu []time.Duration
		for i := 0; i < 21; i++ {
			start, c0 := time.Now(), cpuTime()
			if _, err := v.Query(pctx, strings.NewReader(q)); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			ds, cpu = append(ds, time.Since(start)), append(cpu, cpuTime()-c0)
		}
		slices.Sort(ds)
		slices.Sort(cpu)
		t.Logf("%s p50 %8.2f ms  p95 %8.2f ms  cpu p50 %7.2f ms  %s", backend, ms(ds[len(ds)/2]), ms(ds[len(ds)*95/100]), ms(cpu[len(cpu)/2]), q)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is the CPU time (user and system) this process has used: on a machine shared with
// other work, wall times grow with the load, CPU times much less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
	v := queryview.New(history.New(history.Config{Store: store, View: store}))
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

// laniusQueries are the queries of the speed test, one per kind and search filter, each with the
// reference's own kind of SQL on lanius.db as the stand-in for the reference (its search is a
// LIKE scan of messages newest first, stopped at the page; reference 003), run in the sqlite3
// CLI. The SQL is written from the reference's documented rules, not taken from its code.
var laniusQueries = []struct{ body, ref string }{
	{`{"kind":"agents"}`, `SELECT DISTINCT substr(e.type, 10), m.session_id FROM messages m JOIN events e ON e.id = m.event_id WHERE e.type LIKE 'in/agent/%'`},
	{`{"kind":"sessions"}`, `SELECT session_id, min(created_at), max(created_at), count(*) FROM messages GROUP BY session_id ORDER BY max(created_at) DESC LIMIT 500`},
	{`{"kind":"sessions","agent":"ops"}`, `SELECT m.session_id, min(m.created_at), max(m.created_at), count(*) FROM messages m WHERE m.session_id IN (SELECT m2.session_id FROM messages m2 JOIN events e ON e.id = m2.event_id WHERE e.type LIKE 'in/agent/ops%') GROUP BY m.session_id ORDER BY max(m.created_at) DESC LIMIT 500`},
	{`{"kind":"transcript","session":"s-00000000"}`, `SELECT id, role, content, created_at FROM messages WHERE session_id = 's-00000000' ORDER BY id DESC LIMIT 81`},
	{`{"kind":"conversation","correlation":"corr-5-3"}`, `SELECT id, type, cause_id, state, payload, created_at FROM events WHERE correlation_id = 'corr-5-3' ORDER BY id LIMIT 501`},
	{`{"kind":"search","page":{"limit":80}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id ORDER BY m.id DESC LIMIT 81`},
	{`{"kind":"search","filter":{"text":"sigma"},"page":{"limit":80}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE m.content LIKE '%sigma%' ESCAPE '\' ORDER BY m.id DESC LIMIT 81`},
	{`{"kind":"search","filter":{"text":"restart"},"page":{"limit":80}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE m.content LIKE '%restart%' ESCAPE '\' ORDER BY m.id DESC LIMIT 81`},
	{`{"kind":"search","filter":{"text":"zz-no-such"},"page":{"limit":80}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE m.content LIKE '%zz-no-such%' ESCAPE '\' ORDER BY m.id DESC LIMIT 81`},
	{`{"kind":"search","filter":{"text":"ab"},"page":{"limit":80}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE m.content LIKE '%ab%' ESCAPE '\' ORDER BY m.id DESC LIMIT 81`},
	{`{"kind":"search","filter":{"channels":["in/agent/main"]},"page":{"limit":80}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE e.type LIKE 'in/agent/main%' ORDER BY m.id DESC LIMIT 81`},
	{`{"kind":"search","filter":{"roles":["tool"]},"select":{"tool_results":{"truncate":200}}}`, `SELECT m.id, m.session_id, m.role, m.content, m.created_at, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE m.role = 'tool' ORDER BY m.id DESC LIMIT 81`},
}

// TestLaniusViewSpeedHTTP times every kind over HTTP (annals's POST /query on :0, local mode)
// against the reference's SQL in the sqlite3 CLI on the same lanius.db, p50 and p95 of 21 runs,
// then 8 parallel clients on the cheap kinds. Like TestLaniusViewSpeed it runs only with
// ANNALS_LANIUS_BENCH_DIR set; it also needs sqlite3 on PATH.
func TestLaniusViewSpeedHTTP(t *testing.T) {
	dir := os.Getenv("ANNALS_LANIUS_BENCH_DIR")
	cli, err := exec.LookPath("sqlite3")
	if dir == "" || err != nil {
		t.Skip("set ANNALS_LANIUS_BENCH_DIR (and have sqlite3 on PATH) to time the view over HTTP against the reference's SQL")
	}
	ctx := context.Background()
	src := filepath.Join(dir, "lanius.db")
	if _, err := os.Stat(src); err != nil {
		t.Skip("run TestLaniusViewSpeed first: it generates and imports the database")
	}
	start := time.Now()
	var last [2]int
	store, err := sqlite.Open(ctx, filepath.Join(dir, "annals.db"), sqlite.Options{SubstringProgress: func(done, total int) { last = [2]int{done, total} }})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	t.Logf("open: %v (substring index built for %d of %d entries)", time.Since(start), last[0], last[1])
	svc := history.New(history.Config{Store: store, View: store})
	srv := httpapi.New(httpapi.Config{Addr: "127.0.0.1:0", Service: svc, View: svc, Stats: svc, Keys: store})
	if err := srv.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(body string) {
		resp, err := http.Post(srv.URL()+"/query", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
	for _, q := range laniusQueries {
		var ds, cpu []time.Duration
		for i := 0; i < 21; i++ {
			s, c0 := time.Now(), cpuTime()
			post(q.body)
			ds, cpu = append(ds, time.Since(s)), append(cpu, cpuTime()-c0)
		}
		slices.Sort(ds)
		slices.Sort(cpu)
		ref, refCPU := referenceTimes(t, cli, src, q.ref, 21)
		t.Logf("annals p50 %7.2f p95 %7.2f cpu %6.2f ms | reference p50 %7.2f p95 %7.2f cpu %6.2f ms | %s",
			ms(ds[10]), ms(ds[19]), ms(cpu[10]), ms(ref[10]), ms(ref[19]), ms(refCPU[10]), q.body)
	}
	for _, q := range laniusQueries[:3] {
		const clients, each = 8, 10
		s := time.Now()
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					post(q.body)
				}
			}()
		}
		wg.Wait()
		annalsQPS := float64(clients*each) / time.Since(s).Seconds()
		s = time.Now()
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				referenceTimes(t, cli, src, q.ref, each)
			}()
		}
		wg.Wait()
		t.Logf("8 clients: annals %6.1f q/s, reference %6.1f q/s | %s", annalsQPS, float64(clients*each)/time.Since(s).Seconds(), q.body)
	}
}

// referenceTimes runs sql n times in one sqlite3 process on a read-only lanius.db and returns
// the wall and CPU (user and system) times its .timer reports, each sorted: the statement
// alone, the reference's own cost without a process start.
func referenceTimes(t *testing.T, cli, db, sql string, n int) (wall, cpu []time.Duration) {
	t.Helper()
	var script strings.Builder
	script.WriteString(".output /dev/null\n.timer on\n")
	for i := 0; i < n; i++ {
		script.WriteString(sql + ";\n")
	}
	cmd := exec.Command(cli, "-readonly", db)
	cmd.Stdin = strings.NewReader(script.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		var real, user, sys float64
		if _, err := fmt.Sscanf(line, "Run Time: real %f user %f sys %f", &real, &user, &sys); err == nil {
			wall = append(wall, time.Duration(real*float64(time.Second)))
			cpu = append(cpu, time.Duration((user+sys)*float64(time.Second)))
		}
	}
	if len(wall) != n {
		t.Fatalf("sqlite3 reported %d times, want %d: %s", len(wall), n, out)
	}
	slices.Sort(wall)
	slices.Sort(cpu)
	return wall, cpu
}
