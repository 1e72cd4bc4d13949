package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer"
)

// placeImport puts the importer's test fixtures where Claude Code and Codex keep their files.
func placeImport(t *testing.T, home string) {
	t.Helper()
	for src, dst := range map[string]string{
		"../../importer/testdata/claude-code/project/sess-main.jsonl":                                          ".claude/projects/-home-dev-zoo/sess-main.jsonl",
		"../../importer/testdata/claude-code/project/sess-old.jsonl":                                           ".claude/projects/-home-dev-zoo/sess-old.jsonl",
		"../../importer/testdata/codex/rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl": ".codex/sessions/2025/06/01/rollout-2025-06-01T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, dst)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type importJSON struct {
	Sources int `json:"sources"`
	Formats []struct {
		Format    string `json:"format"`
		Files     int    `json:"files"`
		Unchanged int    `json:"unchanged"`
		Chats     int    `json:"chats"`
		Entries   int    `json:"entries"`
	} `json:"formats"`
	Entries  int `json:"entries"`
	Warnings int `json:"warnings"`
	Titled   int `json:"titled"`
}

func TestImportFindsDefaultLocationsAndMakesThemSearchable(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)

	out := tm.mustRun("", "import")
	for _, want := range []string{"claude-code", "codex", "format", "entries", "total"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	list := tm.mustRun("", "list", "--json")
	for _, id := range []string{"claude-code:sess-main", "claude-code:sess-old", "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"} {
		if !strings.Contains(list, id) {
			t.Errorf("list lacks %s", id)
		}
	}
	// The summary line in sess-main titles sess-old; the custom title names sess-main.
	if !strings.Contains(list, "Otters and their sleeping habits") || !strings.Contains(list, "Zebrafish flake") {
		t.Errorf("titles missing from list:\n%s", list)
	}
	if found := tm.mustRun("", "search", "zebrafish"); !strings.Contains(found, "claude-code:sess-main") {
		t.Errorf("search zebrafish:\n%s", found)
	}

	var rep importJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "import", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Entries != 0 || rep.Sources != 3 {
		t.Errorf("second import %+v, want 3 sources and nothing new", rep)
	}
	for _, f := range rep.Formats {
		if f.Unchanged != f.Files {
			t.Errorf("%s: %d of %d files unchanged, want all", f.Format, f.Unchanged, f.Files)
		}
	}

	status := tm.mustRun("", "import", "--status")
	if !strings.Contains(status, "sess-main.jsonl") || !strings.Contains(status, "ok") {
		t.Errorf("status:\n%s", status)
	}
	if err := os.Remove(filepath.Join(tm.home, ".claude/projects/-home-dev-zoo/sess-old.jsonl")); err != nil {
		t.Fatal(err)
	}
	tm.mustRun("", "import")
	status = tm.mustRun("", "import", "--status")
	if !strings.Contains(status, "gone since") {
		t.Errorf("status after a source vanished:\n%s", status)
	}
	if show := tm.mustRun("", "show", "claude-code:sess-old"); !strings.Contains(show, "Otters hold hands") {
		t.Errorf("the chat of a vanished source:\n%s", show)
	}
}

func TestImportOneFormatAndPathAndDryRun(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	var rep importJSON
	out := tm.mustRun("", "import", "--dry-run", "--json", "codex")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Formats) != 1 || rep.Formats[0].Format != "codex" || rep.Entries == 0 {
		t.Errorf("dry run of codex: %+v", rep)
	}
	if _, err := os.Stat(tm.env["ANNALS_DB"]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dry run before the first import created the database: %v", err)
	}
	path := filepath.Join(tm.home, ".claude/projects/-home-dev-zoo/sess-old.jsonl")
	tm.mustRun("", "import", "claude-code", path)
	list := tm.mustRun("", "list")
	if !strings.Contains(list, "claude-code:sess-old") || strings.Contains(list, "claude-code:sess-main") {
		t.Errorf("import of one path:\n%s", list)
	}
	if _, _, err := tm.run("", "import", "not-a-format"); err == nil || exitCode(err) != 2 {
		t.Errorf("unknown format: %v, want a usage error", err)
	}
}

func TestImportConfigRefusesUnknownFormats(t *testing.T) {
	cfg := &Config{}
	err := decodeConfig(strings.NewReader("import:\n  watch: true\n  formats: [claude-code, clippy]\n"), cfg)
	if err == nil || !strings.Contains(err.Error(), `unknown format "clippy"`) || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("err = %v, want the unknown format named with the allowed set", err)
	}
	cfg = &Config{}
	if err := decodeConfig(strings.NewReader("import:\n  watch: true\n  formats: [codex]\n"), cfg); err != nil || !cfg.Import.Watch {
		t.Errorf("valid import config: %v %+v", err, cfg.Import)
	}
}

func TestServeImportWatchImportsTheDefaultLocations(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	cfgPath := filepath.Join(tm.home, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("import:\n  watch: true\n  formats: [codex]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewMain()
	m.Getenv = func(k string) string { return tm.env[k] }
	m.HomeDir = func() (string, error) { return tm.home, nil }
	defer m.Close()
	db := ""
	a, err := m.open(context.Background(), &common{db: &db, config: &cfgPath}, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if err := m.startImportWatch(ctx, a, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.FindChatByID(context.Background(), "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000"); err != nil {
		t.Errorf("codex chat after the serve watch: %v", err)
	}
	if _, err := a.store.FindChatByID(context.Background(), "claude-code:sess-main"); err == nil {
		t.Error("claude-code was imported, but the config limits the watch to codex")
	}
}

func TestServeWithImportWatchImportsWhileServing(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	cfgPath := filepath.Join(tm.home, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("import:\n  watch: true\n  formats: [codex]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfgPath
	s := startServe(t, tm)
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"get","session_id":"codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000","limit":1}`)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watched codex session never arrived through serve: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve stopped with %v", err)
	}
}

// TestServeWatchFlagImports: annals serve --watch imports the agent tools' folders it finds
// without an import.watch in the config, so the web UI shows sessions appear as they grow.
func TestServeWatchFlagImports(t *testing.T) {
	tm := newTestMain(t)
	placeImport(t, tm.home)
	s := startServe(t, tm, "--watch")
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"get","session_id":"codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000","limit":1}`)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve --watch never imported the codex session: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve stopped with %v", err)
	}
}

// TestImportReportSaysInterruptedAndRemoved proves the report a person reads after Ctrl-C says
// so, with what was done, and counts the entries rewinds removed.
func TestImportReportSaysInterruptedAndRemoved(t *testing.T) {
	r := &importer.Report{Sources: 5, Done: 2, Formats: []*importer.FormatReport{{Format: "claude-code", Counts: importer.Counts{Files: 2, Chats: 2, Entries: 40, Removed: 3}}}}
	var out, errOut bytes.Buffer
	writeImportReport(&out, &errOut, r, false, true)
	if s := out.String(); !strings.HasPrefix(s, "Interrupted after 2 of 5 sources") || strings.Contains(s, "Imported") {
		t.Errorf("interrupted report: %q", s)
	}
	if s := out.String(); !strings.Contains(s, "removed") || !strings.Contains(s, " 3 ") {
		t.Errorf("report lacks the removed column: %q", s)
	}
}
