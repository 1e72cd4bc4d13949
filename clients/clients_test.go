// Package clients holds the TypeScript and Python clients of the annals API (clients/typescript,
// clients/python). Its Go tests run each client's own suite against a real `annals serve` built
// here, and hold both clients to docs/openapi.yaml (drift_test.go).
package clients

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// annalsBin is the annals binary TestMain builds once for every suite.
var annalsBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "annals-clients-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "clients: no temporary folder for the annals binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	annalsBin = filepath.Join(dir, "annals")
	return m.Run()
}

// buildAnnals builds cmd/annals into annalsBin (once).
func buildAnnals(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(annalsBin); err == nil {
		return annalsBin
	}
	cmd := exec.Command("go", "build", "-o", annalsBin, "./cmd/annals")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/annals: %v\n%s", err, out)
	}
	return annalsBin
}

// need finds a tool on PATH. Without it the test skips, naming what is missing, unless
// ANNALS_REQUIRE_CLIENTS is set (as .ci/run does): then it fails.
func need(t *testing.T, tool, why string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		unavailable(t, "%s is not on PATH (%s): %v", tool, why, err)
	}
	return p
}

func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("ANNALS_REQUIRE_CLIENTS") != "" {
		t.Fatalf(format+" (ANNALS_REQUIRE_CLIENTS is set, so this fails rather than skips)", args...)
	}
	t.Skipf(format+"; the client suite is skipped (set ANNALS_REQUIRE_CLIENTS=1 to make that a failure)", args...)
}

func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("the client suites run in the plain test run: their server is a separate binary, which -race does not instrument")
	}
}

// runSuite runs a client's test command in dir with ANNALS_BIN set, logging its output.
func runSuite(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ANNALS_BIN="+buildAnnals(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s:\n%s", name, strings.Join(args, " "), tail(string(out), 40))
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// TestTypeScriptClient compiles clients/typescript and runs its node:test suite (npm test)
// against a real server; `npm ci` first installs its one devDependency (typescript, pinned in
// package-lock.json) when it is missing.
func TestTypeScriptClient(t *testing.T) {
	skipUnderRace(t)
	need(t, "node", "the TypeScript client's tests run on Node 18 or later")
	npm := need(t, "npm", "the TypeScript client's tests install typescript with npm")
	dir := filepath.Join("typescript")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript", "package.json")); errors.Is(err, os.ErrNotExist) {
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			unavailable(t, "npm ci in clients/typescript failed (is the npm registry reachable?): %v\n%s", err, out)
		}
	}
	runSuite(t, dir, npm, "test")
}

// TestPythonClient runs clients/python's unittest suite against a real server.
func TestPythonClient(t *testing.T) {
	skipUnderRace(t)
	python := need(t, "python3", "the Python client's tests run on Python 3.9 or later")
	runSuite(t, "python", python, "-W", "error::ResourceWarning", "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v")
}
