package importer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/sqlite"
)

// mustOpenDB opens a fresh SQLite store in a temporary directory.
func mustOpenDB(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// titles sets titles directly on the store (the CLI adds redaction in front).
type titles struct{ db *sqlite.DB }

func (t titles) SetTitleIfEmpty(ctx context.Context, chatID, title string) (bool, error) {
	return (&importer.StoreTitles{Store: t.db}).SetTitleIfEmpty(ctx, chatID, title)
}

func (t titles) ReplaceDerivedTitle(ctx context.Context, chatID, title string) (bool, error) {
	return (&importer.StoreTitles{Store: t.db}).ReplaceDerivedTitle(ctx, chatID, title)
}

func newImporter(db *sqlite.DB, opts importer.Options) *importer.Importer {
	if opts.Titles == nil {
		opts.Titles = titles{db}
	}
	return importer.New(db, opts)
}

func format(tb testing.TB, name string) importer.Format {
	tb.Helper()
	f, ok := importer.Lookup(importer.Formats(), name)
	if !ok {
		tb.Fatalf("no format %q", name)
	}
	return f
}

func mustParse(tb testing.TB, formatName, path string) *importer.Parsed {
	tb.Helper()
	p, err := importer.Parse(context.Background(), format(tb, formatName), path)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	return p
}

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"testdata"}, parts...)...)
}

// chat returns the parsed chat with id, failing when there is none.
func chat(tb testing.TB, p *importer.Parsed, id string) *annals.Chat {
	tb.Helper()
	for _, c := range p.Chats {
		if c.ID == id {
			return c
		}
	}
	var ids []string
	for _, c := range p.Chats {
		ids = append(ids, c.ID)
	}
	tb.Fatalf("no chat %q; chats: %v", id, ids)
	return nil
}

// entry returns the entry with id in chatID.
func entry(tb testing.TB, p *importer.Parsed, chatID, id string) *annals.Entry {
	tb.Helper()
	for _, e := range p.Entries[chatID] {
		if e.ID == id {
			return e
		}
	}
	var ids []string
	for _, e := range p.Entries[chatID] {
		ids = append(ids, e.ID)
	}
	tb.Fatalf("chat %s has no entry %q; entries: %v", chatID, id, ids)
	return nil
}

func kinds(es []*annals.Entry) map[annals.EntryKind]int {
	out := map[annals.EntryKind]int{}
	for _, e := range es {
		out[e.Kind]++
	}
	return out
}

// allText is every searchable string of a parse, for "nothing lost" and "never rendered" checks.
func allText(p *importer.Parsed) string {
	var b strings.Builder
	for _, es := range p.Entries {
		for _, e := range es {
			b.WriteString(e.Text + "\n" + e.Reasoning + "\n" + string(e.Metadata) + "\n")
			if e.Tool != nil {
				b.WriteString(e.Tool.Name + "\n" + string(e.Tool.Arguments) + "\n" + e.Tool.Result + "\n")
			}
		}
	}
	return b.String()
}

func metaOf(tb testing.TB, e *annals.Entry) map[string]any {
	tb.Helper()
	m := map[string]any{}
	if len(e.Metadata) > 0 {
		if err := json.Unmarshal(e.Metadata, &m); err != nil {
			tb.Fatalf("entry %s metadata: %v", e.ID, err)
		}
	}
	return m
}

func warningsMention(p *importer.Parsed, line int) bool {
	for _, w := range p.Warnings {
		if w.Line == line {
			return true
		}
	}
	return false
}

// copyFile copies src to dst, creating dst's directory.
func copyFile(tb testing.TB, src, dst string) {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, dst, data)
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// snapshot is everything a store holds for the chats of the local tenant, for comparing
// stores.
type snapshot struct {
	Chats   []*annals.Chat
	Entries map[string][]*annals.Entry
	Runs    map[string][]*annals.Run
}

func takeSnapshot(tb testing.TB, db *sqlite.DB) snapshot {
	tb.Helper()
	ctx := context.Background()
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, Limit: annals.MaxListLimit})
	if err != nil {
		tb.Fatal(err)
	}
	s := snapshot{Chats: chats, Entries: map[string][]*annals.Entry{}, Runs: map[string][]*annals.Run{}}
	for _, c := range chats {
		es, err := db.FindEntries(ctx, annals.EntryFilter{ChatID: c.ID})
		if err != nil {
			tb.Fatal(err)
		}
		s.Entries[c.ID] = es
		rs, err := db.FindRuns(ctx, c.ID)
		if err != nil {
			tb.Fatal(err)
		}
		s.Runs[c.ID] = rs
	}
	return s
}

func TestParseTimeGivesNoTimeForOneAnnalsCannotStore(t *testing.T) {
	for _, v := range []any{"0000-01-01 0:00:00", "0001-01-01T00:00:00Z", "2300-01-01T00:00:00Z", float64(1e300)} {
		if got := reader.ParseTime(v); !got.IsZero() {
			t.Errorf("ParseTime(%v) = %v, want no time", v, got)
		}
	}
	if got := reader.ParseTime("2025-03-10T14:00:00Z"); got.Year() != 2025 {
		t.Errorf("an ordinary time: %v", got)
	}
}

func TestReportTotalAddsEveryCount(t *testing.T) {
	r := &importer.Report{Formats: []*importer.FormatReport{
		{Format: "a", Counts: importer.Counts{Files: 1, Unchanged: 2, Chats: 3, Entries: 4, Skipped: 5, Removed: 6, Warnings: 7, Errors: 8}},
		{Format: "b", Counts: importer.Counts{Files: 10, Unchanged: 20, Chats: 30, Entries: 40, Skipped: 50, Removed: 60, Warnings: 70, Errors: 80}},
	}}
	want := importer.Counts{Files: 11, Unchanged: 22, Chats: 33, Entries: 44, Skipped: 55, Removed: 66, Warnings: 77, Errors: 88}
	if got := r.Total(); got != want {
		t.Fatalf("Total = %+v, want %+v", got, want)
	}
}
