package annalsexport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/markdown"
)

// An annals export, Markdown or JSON (the output of `annals export`, rendered here by the same
// markdown.Render and ChatView the command uses), imported into another annals gives back the
// chat, every entry and every run exactly: ids, kinds, texts, reasoning, tool calls, metadata,
// times; run statuses, models, starts, ends, tokens and costs.
func TestAnnalsExportsParseBackExactly(t *testing.T) {
	ctx := context.Background()
	const id = "claude-code:sess-main"
	src := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(src, importertest.ImporterOptionsFor(t, "claude-code")), importertest.Testdata("claude-code", "project", "sess-main.jsonl"))
	chat, err := src.FindChatByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	entries := importertest.EntriesOf(t, src, id)
	runs, err := src.FindRuns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 2 {
		t.Fatalf("the fixture has %d runs, want several to check their round trip", len(runs))
	}
	var md bytes.Buffer
	if err := markdown.Render(&md, chat, runs, entries); err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(struct {
		annals.ChatView
		Runs []*annals.Run `json:"runs"`
	}{annals.ChatView{Chat: chat, Format: "json", Entries: entries}, runs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{"chat.md": md.Bytes(), "chat.json": js} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			importertest.WriteFile(t, path, data)
			if !importertest.Format(t, "annals").Detect(path, importertest.Head(t, path)) {
				t.Fatalf("annals does not claim %s", name)
			}
			dst := openDB(t)
			im := importertest.NewImporter(dst, importertest.ImporterOptionsFor(t, "annals", "claude-code", "messages"))
			cands, _, err := im.Resolve([]string{path}, nil)
			if err != nil || len(cands) != 1 || cands[0].Format.Name() != "annals" {
				t.Fatalf("resolved %+v (%v), want the annals format", cands, err)
			}
			importertest.ImportAll(t, im, path)
			got, err := dst.FindChatByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Title != chat.Title || !reflect.DeepEqual(got.Attributes, chat.Attributes) || !got.CreatedAt.Equal(chat.CreatedAt) || got.TenantID != chat.TenantID {
				t.Errorf("chat %q %v %v %s, want %q %v %v %s", got.Title, got.Attributes, got.CreatedAt, got.TenantID, chat.Title, chat.Attributes, chat.CreatedAt, chat.TenantID)
			}
			back := importertest.EntriesOf(t, dst, id)
			if len(back) != len(entries) {
				t.Fatalf("%d entries, want %d", len(back), len(entries))
			}
			for i := range entries {
				a, b := *entries[i], *back[i]
				if !reflect.DeepEqual(a, b) {
					t.Errorf("entry %d:\n got %+v %+v\nwant %+v %+v", i+1, b, b.Tool, a, a.Tool)
				}
			}
			backRuns, err := dst.FindRuns(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(backRuns, runs) {
				t.Errorf("runs:\n got %s\nwant %s", mustMarshal(t, backRuns), mustMarshal(t, runs))
			}
			if got.Status != chat.Status || got.Totals != chat.Totals || !got.LastActivity.Equal(chat.LastActivity) {
				t.Errorf("chat status %s totals %+v last activity %v, want %s %+v %v", got.Status, got.Totals, got.LastActivity, chat.Status, chat.Totals, chat.LastActivity)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Markdown export written before runs had comment lines (its runs table alone) still imports:
// the chat and every entry exactly, and no runs, because the table rounds them.
func TestAnnalsMarkdownExportWithoutRunLinesImportsWithoutRuns(t *testing.T) {
	ctx := context.Background()
	const id = "claude-code:sess-main"
	src := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(src, importertest.ImporterOptionsFor(t, "claude-code")), importertest.Testdata("claude-code", "project", "sess-main.jsonl"))
	chat, err := src.FindChatByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	entries := importertest.EntriesOf(t, src, id)
	runs, err := src.FindRuns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := markdown.Render(&md, chat, runs, entries); err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`(?m)(^<!-- annals:run .*\n)+\n`).ReplaceAll(md.Bytes(), nil)
	if bytes.Equal(old, md.Bytes()) || !bytes.Contains(old, []byte("## Runs\n\n| Run |")) {
		t.Fatalf("could not make the old layout:\n%s", old)
	}
	path := filepath.Join(t.TempDir(), "old.md")
	importertest.WriteFile(t, path, old)
	dst := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(dst, importertest.ImporterOptionsFor(t, "annals")), path)
	back, err := dst.FindRuns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 0 {
		t.Errorf("got %d runs from an export without run lines, want none", len(back))
	}
	if got := importertest.EntriesOf(t, dst, id); !reflect.DeepEqual(got, entries) {
		t.Errorf("entries differ after importing the old layout")
	}
}
