package importer_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// fixtureSource is one source among the fixtures and the one format that must claim it ("" for
// a file no format may claim). Look-alikes are among them: iFlow CLI's session-<uuid>.jsonl
// (Claude Code's line shape with a "session-" sessionId), a Hermes Agent session_<id>.json and
// a gptme conversation.jsonl (OpenAI-style messages with a session header or timestamps) must be
// claimed by their own readers, not by Claude Code's or the generic message arrays'.
type fixtureSource struct {
	path, format string
}

// fixtureFormats names the format of each fixture folder (importer/testdata/<dir> and the
// corpus's <dir>).
var fixtureFormats = map[string]string{
	"claude-code": "claude-code", "codex": "codex", "gemini": "gemini-cli", "aider": "aider", "chatgpt": "chatgpt",
	"chatgpt-export": "chatgpt", "messages": "messages", "openai-chat-completions": "messages", "anthropic-messages": "messages",
	"opencode": "opencode", "copilot-cli": "copilot-cli", "cursor": "cursor", "qwen-code": "qwen-code", "kimi-cli": "kimi-cli",
	"llm-logsdb": "llm", "annals": "annals", "claude-code-web": "claude-code-web", "cline": "cline", "continue": "continue", "copilot-chat": "copilot-chat", "openhands": "openhands", "amp": "amp", "factory-droid": "factory-droid",
	"iflow": "iflow", "gptme": "gptme", "pi": "pi", "hermes": "hermes",
	"claude-ai": "claude-ai", "mistral-vibe": "mistral-vibe", "grok": "grok", "ai-studio": "ai-studio", "copilot-cli-legacy": "copilot-cli-legacy", "antigravity": "antigravity",
	"cline-session": "cline-session",
}

// fixtureSources lists every source of the fixture folders: each file, except that an OpenCode
// storage tree is one source (its files are claimed by nobody on their own), and the files a
// tool writes beside its transcripts are claimed by nobody.
func fixtureSources(tb testing.TB) []fixtureSource {
	tb.Helper()
	var out []fixtureSource
	roots := []string{"testdata"}
	if _, err := os.Stat(corpusDir); err == nil {
		roots = append(roots, corpusDir)
	}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			top := strings.Split(filepath.ToSlash(rel), "/")[0]
			if top == "fuzz" || p == root {
				return filepathSkip(d)
			}
			want, known := fixtureFormats[top]
			if !known {
				want = ""
			}
			if d.IsDir() {
				if top == "opencode" && (d.Name() == "storage" || strings.HasSuffix(d.Name(), "storage_v2")) {
					out = append(out, fixtureSource{p, "opencode"})
				}
				if top == "openhands" && isDirWith(p, "events") {
					out = append(out, fixtureSource{p, "openhands"})
				}
				return nil
			}
			switch {
			case strings.Contains(filepath.ToSlash(p), "storage") && top != "copilot-chat", top == "openhands":
				want = "" // read with its storage tree or conversation folder
			case strings.HasSuffix(p, ".meta.json"), strings.HasSuffix(p, "wire.jsonl"), strings.HasSuffix(p, "state.json"), strings.HasSuffix(p, "sessions.json"), strings.HasSuffix(p, ".settings.json"), filepath.Base(p) == "kimi.json", strings.HasSuffix(p, ".md") && top != "aider" && top != "annals":
				want = ""
			case top == "cursor" && strings.HasSuffix(p, ".db"):
				want = "cursor-store"
			case top == "hermes" && strings.HasSuffix(p, ".jsonl"):
				want = "hermes-trajectory"
			case filepath.Base(p) == "config.toml", filepath.Base(p) == "meta.json", filepath.Base(p) == "summary.json":
				want = "" // a gptme conversation's settings
			case top == "cline-session" && !strings.HasSuffix(p, ".messages.json"):
				want = "" // a Cline 4 session's manifest
			case top == "cline" && filepath.Base(p) != "api_conversation_history.json":
				want = "" // a task's other files
			case top == "cline" && strings.Contains(p, "roo-cline"):
				want = "roo-code"
			}
			out = append(out, fixtureSource{p, want})
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

func filepathSkip(d os.DirEntry) error {
	if d.IsDir() && d.Name() == "fuzz" {
		return filepath.SkipDir
	}
	return nil
}

// foreignFiles writes JSON and JSON Lines files that no agent tool wrote: a package manifest,
// editor settings, an application log, a JSON array of records. No format may claim them.
func foreignFiles(tb testing.TB) []string {
	dir := tb.TempDir()
	files := map[string]string{
		"package.json":  `{"name": "walrus", "version": "1.0.0", "scripts": {"test": "jest"}, "dependencies": {"left-pad": "^1.3.0"}}`,
		"settings.json": `{"editor.fontSize": 14, "files.exclude": {"**/.git": true}}`,
		"app.jsonl":     `{"level":"info","ts":"2026-01-01T00:00:00Z","msg":"started","role":"server"}` + "\n" + `{"level":"warn","msg":"slow","content":"x"}` + "\n",
		"users.json":    `[{"id": 1, "name": "Ada", "role": "admin"}, {"id": 2, "name": "Lin", "role": "user"}]`,
		"events.jsonl":  `{"type":"session.start","data":{"sessionId":"x"}}` + "\n",
		"notes.md":      "# Notes\n\nNothing to import here.\n",
	}
	var out []string
	for name, body := range files {
		p := filepath.Join(dir, name)
		importertest.WriteFile(tb, p, []byte(body))
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestEveryDetectorRefusesEveryOtherFormat is the cross-format confusion test: every format's
// Detect is asked about every fixture source of every format, and about files of no format;
// only the source's own format may claim it.
func TestEveryDetectorRefusesEveryOtherFormat(t *testing.T) {
	srcs := fixtureSources(t)
	for _, p := range foreignFiles(t) {
		srcs = append(srcs, fixtureSource{p, ""})
	}
	for _, s := range srcs {
		var h []byte
		if fi, err := os.Stat(s.path); err == nil && !fi.IsDir() {
			h = importertest.Head(t, s.path)
		}
		var claims []string
		for _, f := range importer.Formats() {
			if f.Detect(s.path, h) {
				claims = append(claims, f.Name())
			}
		}
		want := []string{}
		if s.format != "" {
			want = []string{s.format}
		}
		if strings.Join(claims, ",") != strings.Join(want, ",") {
			t.Errorf("%s: claimed by %v, want %v", s.path, claims, want)
		}
	}
}

// TestUnknownFilesAreReportedOnceAndCompanionsNot walks fixture folders and files of no format:
// a file no format reads is listed once as unknown, never imported; the files written beside
// transcripts (a sub-agent's meta.json, Kimi's wire.jsonl and state.json) are not listed.
func TestUnknownFilesAreReportedOnceAndCompanionsNot(t *testing.T) {
	foreign := foreignFiles(t)
	im := importertest.NewImporter(openDB(t), importerOptions())
	cands, unknown, err := im.Resolve(append([]string{"testdata", filepath.Dir(foreign[0])}, foreign[0]), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, u := range unknown {
		seen[u]++
	}
	for _, p := range foreign {
		if seen[p] != 1 {
			t.Errorf("%s listed %d times as unknown, want once", p, seen[p])
		}
	}
	for u := range seen {
		if strings.Contains(u, "testdata") && !strings.Contains(u, "/fuzz/") {
			t.Errorf("%s listed as unknown; it is a fixture or a companion file", u)
		}
	}
	for _, c := range cands {
		for _, p := range foreign {
			if c.Path == p {
				t.Errorf("%s imported as %s", p, c.Format.Name())
			}
		}
	}
}

func isDirWith(dir, name string) bool {
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && fi.IsDir()
}
