package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// writeClaudeCorpus writes files Claude Code session files of turns turns each, under
// home/.claude/projects, and returns how many lines it wrote. Each turn is a user prompt, a
// reply split over a thinking line, a text line and a tool call, the tool's result, and a
// closing reply: 5 lines and 5 entries (the call and its result are one). The words are drawn
// from a small vocabulary with planted rare terms, so the full-text index works as it would on
// real transcripts.
func writeClaudeCorpus(tb testing.TB, home string, files, turns int) int {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the test fails because the handler returns an error when the request body is empty so we " +
		"check the config parse the flags retry the build run go vet and fix the import cycle in the store package " +
		"deploy service cache index query schema migration timeout context cancel goroutine channel mutex")
	sentence := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	lines := 0
	t0 := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	for f := 0; f < files; f++ {
		sid := fmt.Sprintf("bench-%04d", f)
		var b strings.Builder
		enc := func(v any) {
			data, err := json.Marshal(v)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(data)
			b.WriteByte('\n')
			lines++
		}
		parent := ""
		line := func(typ, uuid string, msg map[string]any, ts time.Time) {
			var p any
			if parent != "" {
				p = parent
			}
			enc(map[string]any{"parentUuid": p, "isSidechain": false, "cwd": "/home/dev/proj", "sessionId": sid, "gitBranch": "main",
				"type": typ, "uuid": uuid, "timestamp": ts.Format(time.RFC3339Nano), "message": msg})
			parent = uuid
		}
		ts := t0.Add(time.Duration(f) * time.Hour)
		for turn := 0; turn < turns; turn++ {
			id := fmt.Sprintf("%s-%d", sid, turn)
			msgID := "msg_" + id
			usage := map[string]any{"input_tokens": 1000 + rng.IntN(5000), "output_tokens": 50 + rng.IntN(500)}
			prompt := sentence(12 + rng.IntN(20))
			if rng.IntN(1000) == 0 {
				prompt += " zqxrare"
			}
			line("user", id+"-u", map[string]any{"role": "user", "content": prompt}, ts)
			ts = ts.Add(3 * time.Second)
			line("assistant", id+"-a1", map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
				"content": []any{map[string]any{"type": "thinking", "thinking": sentence(30), "signature": "sig"}}}, ts)
			line("assistant", id+"-a2", map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
				"content": []any{map[string]any{"type": "text", "text": sentence(25 + rng.IntN(40))}}}, ts)
			line("assistant", id+"-a3", map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": "Bash", "input": map[string]any{"command": "go test ./" + words[rng.IntN(len(words))]}}}}, ts)
			ts = ts.Add(2 * time.Second)
			line("user", id+"-r", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + id,
				"content": sentence(40 + rng.IntN(120)), "is_error": rng.IntN(10) == 0}}}, ts)
			ts = ts.Add(4 * time.Second)
			line("assistant", id+"-a4", map[string]any{"id": msgID + "b", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
				"content": []any{map[string]any{"type": "text", "text": sentence(20 + rng.IntN(30))}}}, ts)
			ts = ts.Add(time.Minute)
		}
		importertest.WriteFile(tb, filepath.Join(home, ".claude", "projects", fmt.Sprintf("-home-dev-p%02d", f%20), sid+".jsonl"), []byte(b.String()))
	}
	return lines
}

// BenchmarkImportClaudeCode imports 40 sessions of 200 turns (40,000 lines, 40,000 entries)
// into a fresh SQLite store per iteration and reports entries per second.
func BenchmarkImportClaudeCode(b *testing.B) {
	home := b.TempDir()
	writeClaudeCorpus(b, home, 40, 200)
	for _, dry := range []bool{false, true} {
		name := "store"
		if dry {
			name = "parse-only"
		}
		b.Run(name, func(b *testing.B) {
			entries := 0
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db := openDB(b)
				im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(b, "claude-code"), DryRun: dry})
				cands, _ := im.Discover(home)
				b.StartTimer()
				start := time.Now()
				rep, err := im.Import(context.Background(), cands)
				elapsed += time.Since(start)
				if err != nil || len(rep.Errors) > 0 {
					b.Fatalf("import: %v %+v", err, rep.Errors)
				}
				entries += rep.Entries
			}
			b.ReportMetric(float64(entries)/elapsed.Seconds(), "entries/s")
		})
	}
}

// TestBenchCorpusGenerator keeps the benchmark's generator honest: 5 entries per turn, and
// everything imports.
func TestBenchCorpusGenerator(t *testing.T) {
	home := t.TempDir()
	if lines := writeClaudeCorpus(t, home, 2, 10); lines != 120 {
		t.Fatalf("%d lines, want 120 (6 a turn)", lines)
	}
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code")})
	cands, _ := im.Discover(home)
	rep, err := im.Import(context.Background(), cands)
	if err != nil || rep.Entries != 100 || rep.Warnings != 0 {
		t.Fatalf("import: %v, %d entries, %d warnings; want 100 and none", err, rep.Entries, rep.Warnings)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err != nil {
		t.Fatal(err)
	}
}

// TestWriteBenchCorpus writes the benchmark's corpus to $ANNALS_BENCH_HOME, for timing
// `annals import` itself (docs/BENCHMARKS.md); it is skipped otherwise. ANNALS_BENCH_FILES and
// ANNALS_BENCH_TURNS size it (40 files of 200 turns, 27 MiB, by default; 150 of 200 make the
// ~100 MB directory of the import throughput figures).
func TestWriteBenchCorpus(t *testing.T) {
	home := os.Getenv("ANNALS_BENCH_HOME")
	if home == "" {
		t.Skip("set ANNALS_BENCH_HOME to write the benchmark corpus there")
	}
	t.Logf("%d lines", writeClaudeCorpus(t, home, envSize("ANNALS_BENCH_FILES", 40), envSize("ANNALS_BENCH_TURNS", 200)))
}

// envSize is the positive count in the environment variable env, else def.
func envSize(env string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
		return n
	}
	return def
}
