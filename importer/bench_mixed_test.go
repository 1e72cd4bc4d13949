package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// The mixed import corpus of issue 33 item 7: Claude Code sessions and Codex rollouts of
// varied length, the shape of a developer's directory (most sessions short, a few long), for
// timing `annals import` against a peer's sync of the same files (docs/BENCHMARKS.md). Unlike
// writeClaudeCorpus's uniform 200-turn files, a turn's replies and tool outputs vary in size
// (a tool output of up to a few KiB), and a third of the sessions are Codex rollouts.

// mixedTurns is the number of turns of session i: a long tail (1 in 10 sessions has 60-120
// turns, the rest 4-40).
func mixedTurns(rng *rand.Rand) int {
	if rng.IntN(10) == 0 {
		return 60 + rng.IntN(61)
	}
	return 4 + rng.IntN(37)
}

// mixedWords draws sentences from a transcript-like vocabulary.
type mixedWords struct {
	rng   *rand.Rand
	words []string
}

func newMixedWords(rng *rand.Rand) *mixedWords {
	return &mixedWords{rng: rng, words: strings.Fields("the test fails because the handler returns an error when the request body is empty so we " +
		"check the config parse the flags retry the build run go vet and fix the import cycle in the store package " +
		"deploy service cache index query schema migration timeout context cancel goroutine channel mutex " +
		"read write file directory path permission denied connection refused database table column row " +
		"function method struct interface pointer slice map string bytes buffer reader writer stream")}
}

func (w *mixedWords) sentence(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.words[w.rng.IntN(len(w.words))])
	}
	return b.String()
}

// toolOutput is a tool's output: lines of words, from a line to a few KiB.
func (w *mixedWords) toolOutput() string {
	lines := 1 + w.rng.IntN(8)
	if w.rng.IntN(5) == 0 {
		lines += 20 + w.rng.IntN(60)
	}
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString(w.sentence(4 + w.rng.IntN(10)))
		b.WriteByte('\n')
	}
	return b.String()
}

// writeMixedCorpus writes claude Claude Code sessions and codex Codex rollouts under home and
// returns the number of files written.
func writeMixedCorpus(tb testing.TB, home string, claude, codex int) int {
	tb.Helper()
	rng := rand.New(rand.NewPCG(33, 7))
	w := newMixedWords(rng)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for f := 0; f < claude; f++ {
		writeMixedClaude(tb, home, f, mixedTurns(rng), w, t0.Add(time.Duration(f)*time.Hour))
	}
	for f := 0; f < codex; f++ {
		writeMixedCodex(tb, home, f, mixedTurns(rng), w, t0.Add(time.Duration(f)*time.Hour+30*time.Minute))
	}
	return claude + codex
}

type mixedLines struct {
	tb testing.TB
	b  strings.Builder
}

func (j *mixedLines) add(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		j.tb.Fatal(err)
	}
	j.b.Write(data)
	j.b.WriteByte('\n')
}

func writeMixedClaude(tb testing.TB, home string, f, turns int, w *mixedWords, ts time.Time) {
	sid := fmt.Sprintf("0197c0de-%04x-7000-8000-%012x", f, f)
	j := &mixedLines{tb: tb}
	parent := ""
	line := func(typ, uuid string, msg map[string]any) {
		var p any
		if parent != "" {
			p = parent
		}
		j.add(map[string]any{"parentUuid": p, "isSidechain": false, "userType": "external", "cwd": fmt.Sprintf("/home/dev/p%02d", f%20),
			"sessionId": sid, "version": "2.0.14", "gitBranch": "main", "type": typ, "uuid": uuid, "timestamp": ts.Format(time.RFC3339Nano), "message": msg})
		parent = uuid
	}
	for turn := 0; turn < turns; turn++ {
		id := fmt.Sprintf("%s-%d", sid, turn)
		msgID := "msg_" + id
		usage := map[string]any{"input_tokens": 10 + w.rng.IntN(50), "cache_read_input_tokens": 20000 + w.rng.IntN(40000), "output_tokens": 50 + w.rng.IntN(900)}
		line("user", id+"-u", map[string]any{"role": "user", "content": w.sentence(6 + w.rng.IntN(40))})
		ts = ts.Add(3 * time.Second)
		if w.rng.IntN(2) == 0 {
			line("assistant", id+"-a1", map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
				"content": []any{map[string]any{"type": "thinking", "thinking": w.sentence(10 + w.rng.IntN(60)), "signature": "sig"}}})
		}
		calls := w.rng.IntN(4)
		for c := 0; c < calls; c++ {
			call := fmt.Sprintf("toolu_%s_%d", id, c)
			line("assistant", fmt.Sprintf("%s-c%d", id, c), map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
				"content": []any{map[string]any{"type": "tool_use", "id": call, "name": []string{"Bash", "Read", "Edit", "Grep"}[w.rng.IntN(4)],
					"input": map[string]any{"command": "go test ./" + w.sentence(1)}}}})
			ts = ts.Add(2 * time.Second)
			line("user", fmt.Sprintf("%s-r%d", id, c), map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call,
				"content": w.toolOutput(), "is_error": w.rng.IntN(10) == 0}}})
		}
		line("assistant", id+"-a2", map[string]any{"id": msgID + "b", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
			"content": []any{map[string]any{"type": "text", "text": w.sentence(15 + w.rng.IntN(80))}}})
		ts = ts.Add(time.Minute)
	}
	importertest.WriteFile(tb, filepath.Join(home, ".claude", "projects", fmt.Sprintf("-home-dev-p%02d", f%20), sid+".jsonl"), []byte(j.b.String()))
}

func writeMixedCodex(tb testing.TB, home string, f, turns int, w *mixedWords, ts time.Time) {
	sid := fmt.Sprintf("0198c0de-%04x-7000-8000-%012x", f, f)
	j := &mixedLines{tb: tb}
	at := func() string { return ts.Format("2006-01-02T15:04:05.000Z") }
	item := func(typ string, payload map[string]any) {
		j.add(map[string]any{"timestamp": at(), "type": typ, "payload": payload})
	}
	item("session_meta", map[string]any{"id": sid, "timestamp": at(), "cwd": fmt.Sprintf("/home/dev/c%02d", f%10), "originator": "codex_cli_rs",
		"cli_version": "0.128.0", "source": "cli", "model_provider": "openai"})
	total := 0
	for turn := 0; turn < turns; turn++ {
		tid := fmt.Sprintf("%s-t%d", sid, turn)
		item("event_msg", map[string]any{"type": "task_started", "turn_id": tid, "model_context_window": 258400})
		item("turn_context", map[string]any{"turn_id": tid, "cwd": "/home/dev/c", "approval_policy": "on-request", "model": "gpt-5.1-codex", "summary": "auto"})
		prompt := w.sentence(6 + w.rng.IntN(40))
		item("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}})
		item("event_msg", map[string]any{"type": "user_message", "message": prompt, "images": []any{}})
		ts = ts.Add(3 * time.Second)
		item("response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": w.sentence(8 + w.rng.IntN(30))}},
			"content": nil, "encrypted_content": "gAAAAB" + strings.Repeat("x", 200)})
		calls := w.rng.IntN(4)
		for c := 0; c < calls; c++ {
			call := fmt.Sprintf("call_%d_%d", turn, c)
			item("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": `{"command":["bash","-lc","go test ./..."]}`, "call_id": call})
			ts = ts.Add(2 * time.Second)
			out, _ := json.Marshal(map[string]any{"output": w.toolOutput(), "metadata": map[string]any{"exit_code": w.rng.IntN(2), "duration_seconds": 0.4}})
			item("response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": string(out)})
		}
		reply := w.sentence(15 + w.rng.IntN(80))
		item("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": reply}}})
		item("event_msg", map[string]any{"type": "agent_message", "message": reply})
		used := 2000 + w.rng.IntN(20000)
		total += used
		item("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{"input_tokens": total, "output_tokens": total / 20},
			"last_token_usage": map[string]any{"input_tokens": used, "output_tokens": used / 20}}})
		item("event_msg", map[string]any{"type": "task_complete", "turn_id": tid, "last_agent_message": reply})
		ts = ts.Add(time.Minute)
	}
	day := ts.Format("2006/01/02")
	name := fmt.Sprintf("rollout-%s-%s.jsonl", ts.Format("2006-01-02T15-04-05"), sid)
	importertest.WriteFile(tb, filepath.Join(home, ".codex", "sessions", day, name), []byte(j.b.String()))
}

// TestMixedCorpusImports keeps the mixed generator honest: both formats import without a
// warning or an error.
func TestMixedCorpusImports(t *testing.T) {
	home := t.TempDir()
	writeMixedCorpus(t, home, 3, 3)
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code", "codex")})
	cands, _ := im.Discover(home)
	rep, err := im.Import(context.Background(), cands)
	if err != nil || rep.Chats != 6 || rep.Warnings != 0 || len(rep.Errors) != 0 || rep.Entries == 0 {
		t.Fatalf("import: %v, %d chats, %d entries, %d warnings, %v; want 6 chats and no warning", err, rep.Chats, rep.Entries, rep.Warnings, rep.Errors)
	}
}

// TestWriteMixedCorpus writes the mixed corpus (300 Claude Code sessions and 150 Codex
// rollouts by default, ANNALS_BENCH_CLAUDE and ANNALS_BENCH_CODEX) to $ANNALS_BENCH_MIXED_HOME;
// skipped otherwise.
func TestWriteMixedCorpus(t *testing.T) {
	home := os.Getenv("ANNALS_BENCH_MIXED_HOME")
	if home == "" {
		t.Skip("set ANNALS_BENCH_MIXED_HOME to write the mixed import corpus there")
	}
	t.Logf("%d files", writeMixedCorpus(t, home, envSize("ANNALS_BENCH_CLAUDE", 300), envSize("ANNALS_BENCH_CODEX", 150)))
}
