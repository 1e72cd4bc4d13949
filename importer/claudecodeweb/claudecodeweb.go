// Package claudecodeweb reads the histories of Claude Code on the web for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package claudecodeweb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/annals-dev/annals/importer/claudecode"
	"github.com/annals-dev/annals/importer/reader"
)

// ClaudeCodeWeb imports a Claude Code on the web session as the sessions API returns it and
// tools save it: one JSON document {"loglines": [...]} whose loglines are the lines a local
// Claude Code session writes to its .jsonl file (user, assistant, system, summary, ...). They are
// read by the Claude Code reader, line by line in order, so a web session maps exactly as a
// local one does (chat claude-code:<sessionId>, sub-agent side chains, tool pairing, runs).
type ClaudeCodeWeb struct{}

func (ClaudeCodeWeb) Name() string { return "claude-code-web" }

func (ClaudeCodeWeb) DefaultPaths(home string) []string { return nil }

func (ClaudeCodeWeb) Detect(path string, head []byte) bool {
	if head == nil || !reader.HasExt(path, ".json") {
		return false
	}
	f, ok := reader.LineFields(head)
	if !ok || !reader.HasFields(f, "loglines") {
		return false
	}
	// The array, or its beginning when it is longer than the head, is Claude Code lines.
	raw := f["loglines"]
	if raw == nil {
		// Its first lines follow the key, one object after another.
		i := bytes.Index(head, []byte(`"loglines"`))
		j := bytes.IndexByte(head[i:], '[')
		if j < 0 {
			return false
		}
		return claudecode.Evidence(bytes.ReplaceAll(head[i+j+1:], []byte("},{"), []byte("}\n{")))
	}
	var lines []json.RawMessage
	if json.Unmarshal(raw, &lines) != nil {
		return false
	}
	return len(lines) == 0 || claudecode.Evidence(joinLines(lines, 8))
}

// joinLines writes up to n JSON values one per line, as a .jsonl head.
func joinLines(vals []json.RawMessage, n int) []byte {
	var out []byte
	for i, v := range vals {
		if i == n {
			break
		}
		out = append(out, reader.CompactJSON(v)...)
		out = append(out, '\n')
	}
	return out
}

func (ClaudeCodeWeb) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	data, err := src.ReadAll("claude-code-web", 1<<30)
	if err != nil {
		return err
	}
	var doc struct {
		Loglines []json.RawMessage `json:"loglines"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("claude-code-web: %s is not a session document: %w", src.Path, err)
	}
	sess, err := claudecode.ClaudeCode{}.NewSession(src, nil)
	if err != nil {
		return err
	}
	for i, line := range doc.Loglines {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Line numbers are the positions in loglines, so a warning names the line to look at.
		if err := sess.Line(ctx, i+1, reader.CompactJSON(line), out); err != nil {
			return err
		}
	}
	return sess.Finish(ctx, out)
}
