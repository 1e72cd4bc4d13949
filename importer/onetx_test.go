package importer_test

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/importer/reader"
	"github.com/annals-dev/annals/sqlite"
)

// countingStore counts the store's write transactions of an import (one per Capture call) and
// keeps the chat ops it was given.
type countingStore struct {
	*sqlite.DB
	captures int
	chats    []annals.Chat
}

func (s *countingStore) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	s.captures++
	for _, op := range ops {
		if op.Chat != nil {
			s.chats = append(s.chats, *op.Chat)
		}
	}
	return s.DB.Capture(ctx, ops)
}

// countingTitles counts the titles the run applies after the chats were written.
type countingTitles struct {
	importertest.Titles
	calls int
}

func (t *countingTitles) SetTitleIfEmpty(ctx context.Context, chatID, title string) (bool, error) {
	t.calls++
	return t.Titles.SetTitleIfEmpty(ctx, chatID, title)
}

func (t *countingTitles) ReplaceDerivedTitle(ctx context.Context, chatID, title string) (bool, error) {
	t.calls++
	return t.Titles.ReplaceDerivedTitle(ctx, chatID, title)
}

// TestNewChatIsWrittenTitledWithItsEntries: a session file naming no title is imported in one
// write transaction, its chat created with the title derived from its first prompt and its
// entries together, and no title is applied afterwards (each extra transaction rebuilt the
// chat's search document again; issue 33 item 7). The chat is as before: titled, the derived
// title in its attribute, every entry stored.
func TestNewChatIsWrittenTitledWithItsEntries(t *testing.T) {
	db := openDB(t)
	st := &countingStore{DB: db}
	titles := &countingTitles{Titles: importertest.Titles{DB: db}}
	im := importer.New(st, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code"), Titles: titles})
	rep := importertest.ImportAll(t, im, importertest.Testdata("claude-code", "titles", "sess-title.jsonl"))
	if rep.Chats != 1 || rep.Entries == 0 {
		t.Fatalf("import: %d chats, %d entries; want 1 chat and its entries", rep.Chats, rep.Entries)
	}
	const want = "Why do the otters in enclosure 4 sleep so much?"
	if st.captures != 1 || titles.calls != 0 {
		t.Errorf("%d write transactions and %d titles applied afterwards; want 1 and 0", st.captures, titles.calls)
	}
	if len(st.chats) != 1 || st.chats[0].Title != want {
		t.Errorf("chats written %+v; want one, titled %q at creation", st.chats, want)
	}
	c, err := db.FindChatByID(context.Background(), "claude-code:sess-title")
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != want || c.Attributes[reader.DerivedTitleAttr] != want || c.Totals.Entries != int64(rep.Entries) {
		t.Errorf("stored chat: title %q, derived %q, %d entries; want %q, %q, %d", c.Title, c.Attributes[reader.DerivedTitleAttr], c.Totals.Entries, want, want, rep.Entries)
	}
}
