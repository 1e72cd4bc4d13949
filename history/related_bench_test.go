package history_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/embed"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
)

// BenchmarkRelatedByChat is related by session_id on the shape the issue measured against the
// loomcycle reference: 1,000 chats of one tenant, one run each, every chat embedded. It reports
// the process CPU time per call (cpu-ns/op) beside the wall time, since the reference was
// compared in CPU.
func BenchmarkRelatedByChat(b *testing.B) {
	const chats = 1000
	db, svc := relatedBenchDB(b, chats)
	emb, err := embed.NewHashing(0)
	if err != nil {
		b.Fatal(err)
	}
	// Under the cap every vector of the owner is a candidate (the common case); over it, the
	// store reads the newest cap in order.
	b.Run("under-cap", func(b *testing.B) { benchRelated(b, svc) })
	b.Run("over-cap", func(b *testing.B) {
		benchRelated(b, history.New(history.Config{Store: db, Embedder: emb, CandidateCap: chats / 2}))
	})
}

func benchRelated(b *testing.B, svc *history.Service) {
	ctx := annals.NewContextWithPrincipal(context.Background(), &annals.Principal{TenantID: "T", UserID: "u", AgentID: "bot", Role: annals.RoleMember, Scopes: annals.Scopes})
	// Ask about old and recent chats alike: an old chat's vector is not among the newest.
	ids := []string{"loomcycle:s_0003", "loomcycle:s_0500", "loomcycle:s_0997"}
	cpu0 := cpuNanos()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page, err := svc.FindRelated(ctx, annals.RelatedParams{Scope: annals.ScopeTenant, ChatID: ids[i%len(ids)]})
		if err != nil || len(page.Results) != history.DefaultRelatedLimit {
			b.Fatalf("related: %v %+v", err, page)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N), "cpu-ns/op")
}

// relatedBenchDB opens the benchmark's database: made here, or, when ANNALS_BENCH_RELATED_DB
// names a file, a copy of that file (made by an earlier run with ANNALS_BENCH_RELATED_SAVE), so
// that before-and-after runs measure the same data without building it twice.
func relatedBenchDB(b *testing.B, chats int) (*sqlite.DB, *history.Service) {
	ctx := context.Background()
	dbPath := filepath.Join(b.TempDir(), "annals.db")
	emb, err := embed.NewHashing(0)
	if err != nil {
		b.Fatal(err)
	}
	if src := os.Getenv("ANNALS_BENCH_RELATED_DB"); src != "" {
		raw, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(dbPath, raw, 0o600); err != nil {
			b.Fatal(err)
		}
		db, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db, history.New(history.Config{Store: db, Embedder: emb})
	}
	db, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := history.New(history.Config{Store: db, Embedder: emb})
	seedRelatedBench(b, db, svc, chats)
	if p := os.Getenv("ANNALS_BENCH_RELATED_SAVE"); p != "" {
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(dbPath, p); err != nil {
			b.Fatal(err)
		}
		b.Skip("saved the database to " + p)
	}
	return db, svc
}

// seedRelatedBench makes chats chats of one tenant, one run and 50 entries each, all embedded.
func seedRelatedBench(b *testing.B, db *sqlite.DB, svc *history.Service, chats int) {
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < chats; i++ {
		id := fmt.Sprintf("loomcycle:s_%04d", i)
		t0 := start.Add(time.Duration(i) * time.Minute)
		ops := []annals.CaptureOp{
			{Chat: &annals.Chat{ID: id, TenantID: "T", UserID: "u", AgentID: "bot", CreatedAt: t0,
				Title: fmt.Sprintf("chat %d about topic %d", i, i%37), Summary: fmt.Sprintf("a summary of subject %d and %d", i%11, i%53)}},
			{Run: &annals.Run{ID: id + "/r", ChatID: id, Status: annals.StatusCompleted, StartedAt: t0, InputTokens: 100, OutputTokens: 50, CostUSD: 0.01}},
		}
		var entries []*annals.Entry
		for j := 0; j < 50; j++ {
			kind := annals.KindUser
			if j%2 == 1 {
				kind = annals.KindAssistant
			}
			entries = append(entries, &annals.Entry{ID: fmt.Sprint(j), Kind: kind, RunID: id + "/r", Time: t0.Add(time.Duration(j) * time.Second), Text: fmt.Sprintf("turn %d of chat %d", j, i)})
		}
		ops = append(ops, annals.CaptureOp{Append: &annals.AppendOp{ChatID: id, Entries: entries}})
		if _, err := db.Capture(ctx, ops); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := svc.Backfill(ctx, nil); err != nil {
		b.Fatal(err)
	}
}

// cpuNanos is the user and system CPU time the process has used.
func cpuNanos() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
