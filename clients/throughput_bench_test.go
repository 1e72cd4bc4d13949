//go:build linux

package clients

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/connect"
	"github.com/annals-dev/annals/httpapi"
)

// BenchmarkCaptureThroughput measures capture through each client against one real `annals
// serve` (SQLite, local mode) in the same run: the Go HTTP client and the TypeScript and
// Python clients on the HTTP route (POST /v1/sessions/{id}/entries), and the Go Connect client
// on Connect, gRPC and gRPC-Web (the Capture RPC). Each appends the same entries to a new chat in
// requests of benchBatch; it reports entries/s and the CPU the server and the client spent per
// entry (the server's from /proc, so the numbers hold under a loaded machine better than the
// wall clock). Run with -benchtime=1x (docs/BENCHMARKS.md, "Capture throughput per client").
func BenchmarkCaptureThroughput(b *testing.B) {
	total, batch := envInt("ANNALS_BENCH_ENTRIES", 10000), envInt("ANNALS_BENCH_BATCH", 100)
	srv := startBenchServer(b)
	goClient := func(make func() (annals.CaptureStore, error)) func(b *testing.B, chat string) (float64, float64) {
		return func(b *testing.B, chat string) (float64, float64) {
			c, err := make()
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, err := annals.CreateChat(ctx, c, &annals.Chat{ID: chat, Title: "capture throughput"}); err != nil {
				b.Fatal(err)
			}
			cpu0, t0 := selfCPU(), time.Now()
			for i := 0; i < total; i += batch {
				var entries []*annals.Entry
				for j := i; j < min(total, i+batch); j++ {
					entries = append(entries, benchEntry(j))
				}
				if _, err := annals.AppendEntries(ctx, c, chat, entries); err != nil {
					b.Fatal(err)
				}
			}
			return time.Since(t0).Seconds(), selfCPU() - cpu0
		}
	}
	rpc := func(p connect.Protocol) func() (annals.CaptureStore, error) {
		return func() (annals.CaptureStore, error) { return connect.NewClient(srv.url, "", p) }
	}
	clients := []struct {
		name string
		run  func(b *testing.B, chat string) (seconds, cpu float64)
	}{
		{"go-http", goClient(func() (annals.CaptureStore, error) { return httpapi.NewClient(srv.url, "") })},
		{"go-connect", goClient(rpc(connect.ProtocolConnect))},
		{"go-grpc", goClient(rpc(connect.ProtocolGRPC))},
		{"go-grpcweb", goClient(rpc(connect.ProtocolGRPCWeb))},
		{"typescript-http", func(b *testing.B, chat string) (float64, float64) {
			return external(b, "typescript", "node", "bench/capture.mjs", srv.url, chat, total, batch)
		}},
		{"python-http", func(b *testing.B, chat string) (float64, float64) {
			return external(b, "python", "python3", "bench/capture.py", srv.url, chat, total, batch)
		}},
	}
	for _, c := range clients {
		b.Run(c.name, func(b *testing.B) {
			var seconds, clientCPU, serverCPU float64
			for i := 0; i < b.N; i++ {
				chat := fmt.Sprintf("bench-%s-%d-%d", c.name, time.Now().UnixNano(), i)
				s0 := srv.cpu(b)
				sec, cpu := c.run(b, chat)
				serverCPU += srv.cpu(b) - s0
				seconds += sec
				clientCPU += cpu
			}
			n := float64(b.N * total)
			b.ReportMetric(n/seconds, "entries/s")
			b.ReportMetric(serverCPU/n*1e6, "server-µs/entry")
			b.ReportMetric(clientCPU/n*1e6, "client-µs/entry")
		})
	}
}

func benchEntry(i int) *annals.Entry {
	kind := annals.EntryKind("user")
	if i%2 == 1 {
		kind = "assistant"
	}
	return &annals.Entry{ID: "e" + strconv.Itoa(i), Kind: kind,
		Text: fmt.Sprintf("turn %d: the build failed in TestUpload because the fixture server timed out after 30 seconds; retrying with a longer deadline and logging the request ids of every upload (%d)", i, i)}
}

// external runs a client's bench script (in clients/<dir>) and reads its JSON report.
func external(b *testing.B, dir, tool, script, url, chat string, total, batch int) (float64, float64) {
	b.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		b.Skipf("%s is not on PATH: %v", tool, err)
	}
	if dir == "typescript" {
		if _, err := os.Stat(filepath.Join(dir, "dist", "index.js")); err != nil {
			b.Skipf("clients/typescript is not built (npm ci && npm run build there): %v", err)
		}
	}
	cmd := exec.Command(tool, script, url, chat, strconv.Itoa(total), strconv.Itoa(batch))
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s %s: %v", tool, script, err)
	}
	var r struct {
		Entries    int     `json:"entries"`
		Seconds    float64 `json:"seconds"`
		CPUSeconds float64 `json:"cpu_seconds"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Entries != total {
		b.Fatalf("%s %s answered %q: %v", tool, script, out, err)
	}
	return r.Seconds, r.CPUSeconds
}

type benchServer struct {
	url string
	pid int
}

// startBenchServer starts annals serve on a fresh database for the benchmark's lifetime.
func startBenchServer(b *testing.B) *benchServer {
	b.Helper()
	dir := b.TempDir()
	portFile := filepath.Join(dir, "port.json")
	cmd := exec.Command(buildAnnals(b), "serve", "--db", filepath.Join(dir, "annals.db"), "--addr", "127.0.0.1:0", "--port-file", portFile)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "ANNALS_SERVER=", "ANNALS_KEY=", "ANNALS_DB=")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	for i := 0; i < 600; i++ {
		var pf struct {
			Port int `json:"port"`
		}
		if raw, err := os.ReadFile(portFile); err == nil && json.Unmarshal(raw, &pf) == nil && pf.Port != 0 {
			return &benchServer{url: fmt.Sprintf("http://127.0.0.1:%d", pf.Port), pid: cmd.Process.Pid}
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatal("annals serve wrote no port file in 30 s")
	return nil
}

// cpu is the server process's user+system CPU seconds so far (/proc/PID/stat).
func (s *benchServer) cpu(b *testing.B) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		b.Skipf("no /proc to read the server's CPU from: %v", err)
	}
	// Fields after the command name (which ends at the last ')'): utime and stime are the 12th
	// and 13th of them, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}

func selfCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
