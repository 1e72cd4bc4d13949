// Package llmlogs reads the histories of Simon Willison's llm (logs.db) for annals import
// (docs/IMPORT.md): one reader behind the importer/reader contracts (detect, default locations,
// read), listed in importer.Formats.
package llmlogs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// LLMLogs imports the logs.db of simonw/llm, in both of its generations:
//
//   - legacy (llm up to 0.2x): a conversations table, and one responses row per model call
//     holding the prompt, the system prompt and the response text, with tool_calls on the
//     response that made them and tool_results on the response whose prompt carried them;
//     fragments and attachments hang off junction tables;
//   - content-addressed (llm 0.32+): threads point at the tip of a chain of messages (linked by
//     parent_hash), each message holds ordered parts (text, reasoning, tool_call, tool_result,
//     attachment), and turns record each model call (model, tokens, times) by the span of the
//     chain it produced. Forked threads share their prefix; forked_from names the origin.
//
// A thread reuses the id of the legacy conversation it continues, and its chain holds that
// conversation's messages again, so a conversation with a thread is read from the thread only;
// the legacy rows are read for conversations that have none. Each model call (legacy response
// or turn) becomes a run carrying its model, tokens and duration; usage is recorded on the runs
// only, so it is not counted twice.
type LLMLogs struct{}

func (LLMLogs) Name() string { return "llm" }

func (LLMLogs) Detect(path string, head []byte) bool {
	if !reader.IsSQLite(head) {
		return false
	}
	return reader.DetectSQLiteTables(path, head, "conversations", "responses") ||
		reader.DetectSQLiteTables(path, head, "threads", "turns", "messages", "parts")
}

func (LLMLogs) DefaultPaths(home string) []string {
	return []string{
		filepath.Join(home, ".config", "io.datasette.llm", "logs.db"),
		filepath.Join(home, "Library", "Application Support", "io.datasette.llm", "logs.db"),
	}
}

// llmTime reads llm's timestamps ("2025-05-13T19:07:31.512345+00:00").
func llmTime(s string) time.Time { return reader.ParseTime(s) }

func (f LLMLogs) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	defer db.Close()
	tables, err := reader.SQLiteTables(ctx, db)
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	r := &llmReader{f: f, db: db, tables: tables, out: out, fragments: map[int64]string{}}
	if tables["fragments"] {
		rows, err := reader.QueryMaps(ctx, db, `SELECT id, content FROM fragments`)
		if err != nil {
			return fmt.Errorf("llm: reading fragments: %w", err)
		}
		for _, m := range rows {
			r.fragments[reader.ColInt(m, "id")] = reader.ColString(m, "content")
		}
	}
	threadIDs := map[string]bool{}
	turnIDs := map[string]bool{}
	if tables["threads"] && tables["turns"] && tables["messages"] && tables["parts"] {
		if err := r.threads(ctx, threadIDs, turnIDs); err != nil {
			return err
		}
	}
	if tables["responses"] {
		if err := r.legacy(ctx, threadIDs, turnIDs); err != nil {
			return err
		}
	}
	return nil
}

type llmReader struct {
	f         LLMLogs
	db        *sql.DB
	tables    map[string]bool
	out       reader.Output
	fragments map[int64]string
}

func (r *llmReader) runID(id string) string {
	return reader.SafeID(r.f.Name()+":"+id, annals.MaxIDBytes)
}

// llmTurn is one turns row.
type llmTurn struct {
	id, thread, parent, tip string
	model                   string
	when                    time.Time
	durMS                   int64
	in, outTok              int64
	extra                   map[string]any
}

func (t *llmTurn) run(r *llmReader, chatID string) *annals.Run {
	run := &annals.Run{ID: r.runID(t.id), ChatID: chatID, Status: annals.StatusCompleted, Model: reader.SafeID(t.model, annals.MaxIDBytes),
		StartedAt: t.when, InputTokens: t.in, OutputTokens: t.outTok}
	if !t.when.IsZero() && t.durMS > 0 {
		end := t.when.Add(time.Duration(t.durMS) * time.Millisecond)
		run.EndedAt = &end
	}
	return run
}

// llmToolResult turns a tool's output and exception into a result text and an outcome.
func llmToolResult(output, exception string) (string, annals.Outcome, map[string]any) {
	res := reader.Truncated(reader.ValidText(output), annals.MaxEntryBytes/4)
	if exception == "" {
		return res, annals.OutcomeSucceeded, nil
	}
	if res == "" {
		res = reader.ValidText(exception)
	}
	return res, annals.OutcomeFailed, map[string]any{"exception": reader.ValidText(exception)}
}

// textRef resolves a text_ref payload: fragment references and literal segments, concatenated.
func (r *llmReader) textRef(ref []json.RawMessage) string {
	var b strings.Builder
	for _, raw := range ref {
		o, err := reader.DecodeObject(raw)
		if err != nil {
			continue
		}
		if lit, ok := o["literal"]; ok {
			b.WriteString(reader.TextOf(lit))
			continue
		}
		if o.IsNum("fragment") {
			b.WriteString(r.fragments[int64(o.Num("fragment"))])
		}
	}
	return b.String()
}

// attachments reads the attachments table without the content column: annals keeps what an
// attachment was (type, path, url), not its bytes.
func (r *llmReader) attachments(ctx context.Context) map[string]map[string]any {
	out := map[string]map[string]any{}
	if !r.tables["attachments"] {
		return out
	}
	rows, err := reader.QueryMaps(ctx, r.db, `SELECT id, type, path, url, length(content) AS size FROM attachments`)
	if err != nil {
		return out
	}
	for _, m := range rows {
		out[reader.ColString(m, "id")] = m
	}
	return out
}

func llmAttachmentText(ids []string, attachments map[string]map[string]any, payload reader.JSONObject) (string, json.RawMessage) {
	var descr []string
	var list []map[string]any
	for _, id := range ids {
		a := attachments[id]
		if a == nil {
			descr = append(descr, "attachment "+id)
			list = append(list, map[string]any{"id": id})
			continue
		}
		where := reader.FirstNonEmpty(reader.ColString(a, "path"), reader.ColString(a, "url"))
		descr = append(descr, strings.TrimSpace("attachment "+reader.ColString(a, "type")+" "+where))
		list = append(list, map[string]any{"id": id, "type": reader.ColString(a, "type"), "path": reader.ColString(a, "path"), "url": reader.ColString(a, "url"), "bytes": reader.ColInt(a, "size")})
	}
	if len(descr) == 0 {
		descr = []string{"attachment"}
	}
	return reader.ValidText(strings.Join(descr, "\n")), reader.SafeMeta(map[string]any{"attachments": list, "payload": reader.Extras(payload, "attachment_id")})
}
