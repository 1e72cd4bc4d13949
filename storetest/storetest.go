// Package storetest is the conformance suite that every annals.Store backend must pass.
//
// A backend runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(tb testing.TB) annals.Store { return MustOpenDB(tb) })
//	}
//
// The suite states the Store contract of the root package as executable checks: capture is
// idempotent and atomic, seq numbers stay contiguous through appends, rewinds and concurrent
// writers, counters and the derived chat status follow the rows, the owner constraint folds
// every list and every full-text lookup, and the full-text index changes in the same
// transaction as the rows it indexes. Embedding vectors are folded by owner like chats.
//
// It is an ordinary (non-test) package so that several backends can import it. It uses only
// the standard testing package. Each subtest gets a fresh empty store from open and writes at
// most a few hundred rows: under -race the pure-Go SQLite driver is about 35 times slower, and
// the suite must stay cheap enough to run there too. Subtests do not call t.Parallel, so a
// backend whose open helper shares one server (a PostgreSQL database reset between tests, for
// example) works unchanged.
package storetest

import (
	"context"
	"errors"
	"testing"

	annals "github.com/annals-dev/annals"
)

// Store is what the suite tests: the store contract plus the TextIndex test hook, with which
// every change to the full-text indexes is checked literally.
type Store interface {
	annals.Store
	annals.TextIndex
}

// test is one behaviour of the contract, proven against a fresh store.
type test struct {
	name string
	fn   func(t *testing.T, s Store)
}

// group is a set of tests about one method or concern; its name becomes the parent subtest.
type group struct {
	name  string
	tests []test
}

// Run runs the whole conformance suite. open must return a fresh, empty store each time it is
// called and register its own cleanup (closing the store, removing files) on tb.
func Run(t *testing.T, open func(tb testing.TB) annals.Store) {
	t.Helper()
	groups := []group{
		{"CreateChat", createChatTests()},
		{"AppendEntries", appendTests()},
		{"FindEntries", findEntriesTests()},
		{"Capture", captureTests()},
		{"TruncateChat", truncateTests()},
		{"RecordRun", runTests()},
		{"FindChats", findChatsTests()},
		{"MatchChatIDs", matchIDsTests()},
		{"UpdateChat", updateTests()},
		{"DeleteChat", deleteTests()},
		{"FullText", fullTextTests()},
		{"SearchPaths", searchPathTests()},
		{"SearchOrderOnly", orderOnlyTests()},
		{"Snippets", snippetTests()},
		{"Embeddings", embeddingTests()},
		{"Concurrency", concurrencyTests()},
		{"Bounds", boundsTests()},
		{"Refs", refTests()},
		{"Rescan", rescanTests()},
		{"Keys", keyTests()},
		{"ImportState", importStateTests()},
		{"Usage", usageTests()},
		{"AdoptAgent", adoptAgentTests()},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					opened := open(t)
					if opened == nil {
						t.Fatal("open returned a nil store")
					}
					s, ok := opened.(Store)
					if !ok {
						t.Fatalf("%T does not implement annals.TextIndex, the test hook the suite checks the full-text indexes with", opened)
					}
					tc.fn(t, s)
					checkIndex(t, s)
				})
			}
		})
	}
}

// IndexChecker is implemented by stores that can verify their full-text index against the rows
// it was built from (SQLite's FTS5 integrity check). The suite runs it after every subtest, so
// every kind of write is proven to leave the index exactly in step with the rows.
type IndexChecker interface {
	CheckIndex(ctx context.Context) error
}

func checkIndex(t *testing.T, s Store) {
	t.Helper()
	if c, ok := s.(IndexChecker); ok && !t.Failed() {
		if err := c.CheckIndex(context.Background()); err != nil {
			t.Errorf("full-text index out of step with its rows after this test: %v", errors.Unwrap(err))
		}
	}
}
