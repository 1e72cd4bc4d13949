// Package importertest holds what the importer's tests share: the store contract they import
// into (DB: the tests are handed a store and open it with Open; this package wires none, so it
// imports no concrete store), parse and lookup helpers over the registry, the fixture builders of the database-backed
// readers, and Main, which runs a reader's tests from importer/ so that every test names the
// shared fixtures (importer/testdata) alike. Only tests import it.
package importertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// DB is what an importer test imports into and reads back: a whole store with the import
// bookkeeping and the agent change the importer is handed (importer.Options.Agents).
type DB interface {
	annals.Store
	annals.ImportStateStore
	annals.AgentAdopter
}

// Open opens a fresh store with open, in a temporary directory, with open's zero options, and
// closes it when the test ends. A test package hands it its store's constructor (the tests
// wire the store: `importertest.Open(tb, sqlite.Open)`).
func Open[D DB, O any](tb testing.TB, open func(context.Context, string, O) (D, error)) D {
	tb.Helper()
	var opts O
	db, err := open(context.Background(), filepath.Join(tb.TempDir(), "annals.db"), opts)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Titles sets titles directly on the store (the CLI adds redaction in front).
type Titles struct{ DB DB }

func (t Titles) SetTitleIfEmpty(ctx context.Context, chatID, title string) (bool, error) {
	return (&importer.StoreTitles{Store: t.DB}).SetTitleIfEmpty(ctx, chatID, title)
}

func (t Titles) ReplaceDerivedTitle(ctx context.Context, chatID, title string) (bool, error) {
	return (&importer.StoreTitles{Store: t.DB}).ReplaceDerivedTitle(ctx, chatID, title)
}

func NewImporter(db DB, opts importer.Options) *importer.Importer {
	if opts.Titles == nil {
		opts.Titles = Titles{db}
	}
	return importer.New(db, opts)
}

func Format(tb testing.TB, name string) importer.Format {
	tb.Helper()
	f, ok := importer.Lookup(importer.Formats(), name)
	if !ok {
		tb.Fatalf("no format %q", name)
	}
	return f
}

func MustParse(tb testing.TB, formatName, path string) *importer.Parsed {
	tb.Helper()
	p, err := importer.Parse(context.Background(), Format(tb, formatName), path)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	return p
}

func Testdata(parts ...string) string {
	return filepath.Join(append([]string{"testdata"}, parts...)...)
}

// Chat returns the parsed chat with id, failing when there is none.
func Chat(tb testing.TB, p *importer.Parsed, id string) *annals.Chat {
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

// Entry returns the entry with id in chatID.
func Entry(tb testing.TB, p *importer.Parsed, chatID, id string) *annals.Entry {
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

func Kinds(es []*annals.Entry) map[annals.EntryKind]int {
	out := map[annals.EntryKind]int{}
	for _, e := range es {
		out[e.Kind]++
	}
	return out
}

// AllText is every searchable string of a parse, for "nothing lost" and "never rendered" checks.
func AllText(p *importer.Parsed) string {
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

func MetaOf(tb testing.TB, e *annals.Entry) map[string]any {
	tb.Helper()
	m := map[string]any{}
	if len(e.Metadata) > 0 {
		if err := json.Unmarshal(e.Metadata, &m); err != nil {
			tb.Fatalf("entry %s metadata: %v", e.ID, err)
		}
	}
	return m
}

func WarningsMention(p *importer.Parsed, line int) bool {
	for _, w := range p.Warnings {
		if w.Line == line {
			return true
		}
	}
	return false
}

// CopyFile copies src to dst, creating dst's directory.
func CopyFile(tb testing.TB, src, dst string) {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	WriteFile(tb, dst, data)
}

func WriteFile(tb testing.TB, path string, data []byte) {
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

func TakeSnapshot(tb testing.TB, db DB) snapshot {
	tb.Helper()
	ctx := context.Background()
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, Limit: annals.MaxListLimit})
	if err != nil {
		tb.Fatal(err)
	}
	s := snapshot{Chats: chats, Entries: map[string][]*annals.Entry{}, Runs: map[string][]*annals.Run{}}
	for _, c := range chats {
		// The transcript revision counts the way there, not the content: a rewound session
		// read again from the start is rewound again (a truncate and the same entries after it),
		// which raises it. Snapshots compare what the store holds.
		c.Revision = 0
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

// Main runs the tests of a reader's package (importer/<tool>) from importer/, where the shared
// fixtures are (importer/testdata, which the detection tests walk whole): a reader's test
// names its fixtures as importer's tests do. Call it from the package's TestMain.
func Main(m *testing.M) int {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, "importertest: cannot run from importer/:", err)
		return 1
	}
	return m.Run()
}
