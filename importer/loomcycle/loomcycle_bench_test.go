package loomcycle_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/loomcycletest"
)

// lcBench is about 50,000 events: the size of the measurement of the reference.
// LOOMCYCLE_BENCH_SESSIONS scales it (700 sessions ≈ 48,500 events).
var lcBench = loomcycletest.Options{Sessions: lcBenchSessions(), Turns: 5}

func lcBenchSessions() int {
	if n, err := strconv.Atoi(os.Getenv("LOOMCYCLE_BENCH_SESSIONS")); err == nil && n > 0 {
		return n
	}
	return 700
}

// BenchmarkLoomcycleParse measures reading and mapping a loomcycle database (SQLite), without
// a store: go test ./importer/ -run '^$' -bench LoomcycleParse -benchtime 5x
func BenchmarkLoomcycleParse(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loomcycle.db")
	db, st, err := loomcycletest.GenerateSQLite(path, lcBench)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	f := importertest.SrcFormat(b, "loomcycle")
	cpu := lcCPU()
	b.ResetTimer()
	for b.Loop() {
		if _, err := importer.Parse(context.Background(), f, path); err != nil {
			b.Fatal(err)
		}
	}
	lcReport(b, st.Events, cpu)
}

// BenchmarkLoomcycleImport measures a whole import of a loomcycle database (SQLite) into a
// fresh SQLite store: go test ./importer/ -run '^$' -bench LoomcycleImport -benchtime 3x
func BenchmarkLoomcycleImport(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loomcycle.db")
	db, st, err := loomcycletest.GenerateSQLite(path, lcBench)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	formats := []importer.Format{importertest.SrcFormat(b, "loomcycle")}
	runtime.GC()
	peak := lcPeakHeap()
	cpu := lcCPU()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		store := openDB(b)
		b.StartTimer()
		importertest.ImportAll(b, importertest.NewImporter(store, importer.Options{Formats: formats}), path)
	}
	lcReport(b, st.Events, cpu)
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
}

// lcReport reports events per second of wall time and of process CPU time: the machine the
// benchmarks run on is shared, and CPU time is what stays comparable when it is loaded.
func lcReport(b *testing.B, events int, cpuBefore time.Duration) {
	n := float64(events) * float64(b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(n/(lcCPU()-cpuBefore).Seconds(), "events/cpu-s")
	b.ReportMetric(float64(events), "events")
}

// lcCPU is the process's user and system CPU time so far.
func lcCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoomcycleParsePostgres is BenchmarkLoomcycleParse on a PostgreSQL deployment:
// go test ./importer/ -run '^$' -bench LoomcycleParsePostgres -benchtime 3x (needs
// ANNALS_TEST_POSTGRES_DSN). Its CPU figure leaves out the server's.
func BenchmarkLoomcycleParsePostgres(b *testing.B) {
	dsn, st := lcPostgres(b, lcBench)
	f := importertest.SrcFormat(b, "loomcycle")
	cpu := lcCPU()
	b.ResetTimer()
	for b.Loop() {
		if _, err := importer.ParseServer(context.Background(), f, dsn); err != nil {
			b.Fatal(err)
		}
	}
	lcReport(b, st.Events, cpu)
}

// lcPeakHeap samples the heap in use every 20 ms until the returned function is called, which
// returns the largest sample.
func lcPeakHeap() func() uint64 {
	stop := make(chan struct{})
	res := make(chan uint64)
	go func() {
		var max uint64
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			max = maxU(max, ms.HeapInuse)
			select {
			case <-stop:
				res <- max
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-res }
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
