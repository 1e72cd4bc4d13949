package importer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestImportReadsSourcesThroughOneLineBuffer: the sources of an import are read through one
// line buffer (256 KiB), not one each — a buffer per file was a tenth of the bytes an import
// of 450 sessions allocated — and each source still reads only its own lines.
func TestImportReadsSourcesThroughOneLineBuffer(t *testing.T) {
	home := t.TempDir()
	const files = 64
	for i := 0; i < files; i++ {
		sid := fmt.Sprintf("0197c0de-%04x-7000-8000-%012x", i, i)
		line := fmt.Sprintf(`{"type":"user","uuid":"%s-u","sessionId":"%s","cwd":"/home/dev","timestamp":"2026-03-01T09:00:00Z",`+
			`"message":{"role":"user","content":"prompt number %d"}}`+"\n", sid, sid, i)
		importertest.WriteFile(t, filepath.Join(home, ".claude", "projects", "-home-dev", sid+".jsonl"), []byte(line))
	}
	im := importertest.NewImporter(openDB(t), importer.Options{Formats: importertest.FormatsNamed(t, "claude-code"), DryRun: true})
	cands, _ := im.Discover(home)
	if len(cands) != files {
		t.Fatalf("%d candidates, want %d", len(cands), files)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := im.Import(context.Background(), cands)
	runtime.ReadMemStats(&after)
	if err != nil || rep.Entries != files || rep.Chats != files || rep.Warnings != 0 {
		t.Fatalf("import: %v, %d entries, %d chats, %d warnings; want %d each and none", err, rep.Entries, rep.Chats, rep.Warnings, files)
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / files; per > 128<<10 {
		t.Fatalf("an import allocated %d KiB per one-line source, want at most 128 (a line buffer per source is 256)", per>>10)
	}
}
