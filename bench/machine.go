package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
)

// Machine describes where a run happened: numbers without their machine mean little.
type Machine struct {
	Cores       int    `json:"cores"`
	CPU         string `json:"cpu,omitempty"`
	MemoryBytes int64  `json:"memory_bytes"`
	OS          string `json:"os"`
	// Disk is the file system holding Options.Dir (--db-dir): device, size and free space.
	Disk       string `json:"disk,omitempty"`
	LoadBefore string `json:"load_before,omitempty"`
	LoadAfter  string `json:"load_after,omitempty"`
}

// Build identifies the code and the engines measured.
type Build struct {
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// CommitFromCheckout says the binary carries no revision (go run, or a build outside a
	// checkout) and Commit is the checkout's in the working directory, which may not be the
	// code that runs.
	CommitFromCheckout bool   `json:"commit_from_checkout,omitempty"`
	Go                 string `json:"go"`
	// SQLite is the version inside the modernc driver, SQLite3Tool that of the baseline tool.
	SQLite      string `json:"sqlite"`
	Modernc     string `json:"modernc,omitempty"`
	SQLite3Tool string `json:"sqlite3_tool,omitempty"`
	Psql        string `json:"psql,omitempty"`
}

func machineInfo(dir string) Machine {
	m := Machine{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, LoadBefore: loadAverage()}
	if v := kernelRelease(); v != "" {
		m.OS += " " + v
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	m.MemoryBytes = memTotal()
	m.Disk = diskInfo(dir)
	return m
}

// loadAverage is the 1, 5 and 15 minute load averages, which say how noisy the machine was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			return parseKB(v)
		}
	}
	return 0
}

// parseKB reads "  24684084 kB" as bytes.
func parseKB(s string) int64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	var n int64
	for _, c := range f[0] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n << 10
}

func buildInfo(ctx context.Context, engineVersion func(context.Context) (string, error), sqlite3Tool, psqlTool string) Build {
	b := Build{Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "modernc.org/sqlite" {
				b.Modernc = d.Version
			}
		}
	}
	if b.Commit == "" {
		// go run does not stamp the revision; ask git, when this runs inside the checkout.
		if out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output(); err == nil {
			b.Commit, b.CommitFromCheckout = strings.TrimSpace(string(out)), true
			if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
				b.Modified = len(strings.TrimSpace(string(st))) > 0
			}
		}
	}
	if v, err := engineVersion(ctx); err == nil {
		b.SQLite = v
	}
	if sqlite3Tool != "" {
		if out, err := exec.CommandContext(ctx, sqlite3Tool, "--version").Output(); err == nil {
			if f := strings.Fields(string(out)); len(f) > 0 {
				b.SQLite3Tool = f[0]
			}
		}
	}
	if psqlTool != "" {
		if out, err := exec.CommandContext(ctx, psqlTool, "--version").Output(); err == nil {
			b.Psql = strings.TrimSpace(string(out))
		}
	}
	return b
}
