// Package annalsexport reads the histories of annals' own exports (`annals export`, Markdown and
// JSON) for annals import (docs/IMPORT.md): one reader behind the importer/reader contracts
// (detect, default locations, read), listed in importer.Formats.
package annalsexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/markdown"
)

// AnnalsExport imports what `annals export` writes, so that an export parses back exactly: the
// portable Markdown document (markdown.Parse reads it, byte-checked) and the JSON of
// `annals export --format json` ({"chat", "format": "json", "entries", "runs"}). The chat keeps its id,
// agent, attributes (its own source among them: the export is a copy of a chat, not a new
// source), title, description, tags, pinned, archived and summary, and its entries keep their
// ids, kinds, texts, tool calls, metadata and times, so importing an export into the annals it
// came from changes nothing. The runs are recorded again with every field (id, status, model,
// start, end, tokens, cost), as runs of the imported chat, so the chat's status, totals and last
// activity come out as they were; an export written before runs were exported has none, and its
// entries keep their run ids. The tenant and user are not taken from the file: they are the
// importing principal's, as for every import, so a file cannot place a chat in another tenant.
type AnnalsExport struct{}

func (AnnalsExport) Name() string { return "annals" }

func (AnnalsExport) DefaultPaths(home string) []string { return nil }

// annalsMarkdownMark opens every Markdown export.
var annalsMarkdownMark = []byte("<!-- annals:chat {")

func (AnnalsExport) Detect(path string, head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	switch {
	case reader.HasExt(path, ".md", ".markdown"):
		return bytes.HasPrefix(h, annalsMarkdownMark)
	case reader.HasExt(path, ".json"):
		f, ok := reader.LineFields(h)
		if !ok || !reader.HasFields(f, "chat") {
			return false
		}
		if f["chat"] == nil {
			// A chat longer than the head (a long summary): its first fields are still there.
			return bytes.Contains(h, []byte(`"tenant_id"`)) && bytes.Contains(h, []byte(`"last_activity"`))
		}
		c, ok := reader.LineFields(f["chat"])
		return ok && reader.HasFields(c, "id", "tenant_id", "last_activity") && reader.FieldString(f, "format") == "json"
	}
	return false
}

func (f AnnalsExport) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	r, err := src.Open()
	if err != nil {
		return fmt.Errorf("annals export: %w", err)
	}
	defer r.Close()
	var exp *markdown.Export
	if reader.HasExt(src.Path, ".json") {
		exp, err = readAnnalsJSON(r)
	} else {
		exp, err = markdown.Parse(r)
	}
	if err != nil {
		return fmt.Errorf("annals export %s: %w", filepath.Base(src.Path), err)
	}
	return emitAnnalsExport(ctx, exp, out)
}

// annalsJSON is the document `annals export --format json` writes: the chat view of GetChat
// with every entry, then the chat's runs.
type annalsJSON struct {
	annals.ChatView
	Runs []*annals.Run `json:"runs"`
}

// readAnnalsJSON reads the JSON of `annals export --format json` into the shape markdown.Parse
// returns, so both forms are imported alike.
func readAnnalsJSON(r io.Reader) (*markdown.Export, error) {
	var view annalsJSON
	if err := json.NewDecoder(r).Decode(&view); err != nil {
		return nil, fmt.Errorf("not an annals JSON export: %w", err)
	}
	if view.Chat == nil || view.Chat.ID == "" {
		return nil, fmt.Errorf("not an annals JSON export: no chat id")
	}
	// `annals export --format json` indents the whole document, the JSON values inside entries
	// too; they are stored compact, as they were before the export.
	for _, e := range view.Entries {
		e.Metadata = reader.CompactJSON(e.Metadata)
		if e.Tool != nil {
			e.Tool.Arguments = reader.CompactJSON(e.Tool.Arguments)
		}
	}
	return &markdown.Export{Chat: *view.Chat, Runs: view.Runs, Entries: view.Entries}, nil
}

// emitAnnalsExport creates the chat as exported (owner aside), records its runs in the exported
// order (the store breaks a tie of start times between runs by the order they were recorded,
// which decides the chat's status) and appends its entries in order, in batches the store
// accepts.
func emitAnnalsExport(ctx context.Context, exp *markdown.Export, out reader.Output) error {
	c, entries := &exp.Chat, exp.Entries
	chat := &annals.Chat{
		ID: c.ID, AgentID: c.AgentID, Attributes: c.Attributes, CreatedAt: c.CreatedAt,
		Title: c.Title, Description: c.Description, Tags: c.Tags, Pinned: c.Pinned,
		ArchivedAt: c.ArchivedAt, Summary: c.Summary, SummaryUpdatedAt: c.SummaryUpdatedAt,
	}
	if err := out.Emit(annals.CaptureOp{Chat: chat}); err != nil {
		return err
	}
	for _, r := range exp.Runs {
		if r == nil {
			continue
		}
		// A run in the file belongs to the chat the file is a copy of, whatever chat id it says.
		run := *r
		run.ChatID = chat.ID
		if err := out.Emit(annals.CaptureOp{Run: &run}); err != nil {
			return err
		}
	}
	for _, e := range entries {
		e.ChatID, e.Seq = "", 0 // the store numbers them again, in the same order
	}
	for len(entries) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(entries), annals.MaxBatchEntries)
		if err := out.Emit(annals.CaptureOp{Append: &annals.AppendOp{ChatID: chat.ID, Entries: entries[:n]}}); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}
