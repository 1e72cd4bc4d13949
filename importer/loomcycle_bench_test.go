package importer_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/loomcycletest"
)

// lcBench is about 50,000 events: the size of the measurement of the reference.
var lcBench = loomcycletest.Options{Sessions: 700, Turns: 5}

// BenchmarkLoomcycleParse measures reading and mapping a loomcycle database (SQLite), without
// a store: go test ./importer/ -run '^$' -bench LoomcycleParse -benchtime 5x
func BenchmarkLoomcycleParse(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loomcycle.db")
	db, st, err := loomcycletest.GenerateSQLite(path, lcBench)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	f := srcFormat(b, "loomcycle")
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
	formats := []importer.Format{srcFormat(b, "loomcycle")}
	cpu := lcCPU()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		store := mustOpenDB(b)
		b.StartTimer()
		importAll(b, newImporter(store, importer.Options{Formats: formats}), path)
	}
	lcReport(b, st.Events, cpu)
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
	f := srcFormat(b, "loomcycle")
	cpu := lcCPU()
	b.ResetTimer()
	for b.Loop() {
		if _, err := importer.ParseServer(context.Background(), f, dsn); err != nil {
			b.Fatal(err)
		}
	}
	lcReport(b, st.Events, cpu)
}
