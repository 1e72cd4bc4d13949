//go:build unix

package sqlite_test

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/sqlite"
)

// BenchmarkSearchShapes times a chat search (top 20, three snippets, every tenant) for every
// query shape of issue 16's targets, ranked by relevance and by recency, and reports the
// process's CPU time per search besides the wall time: on a shared machine the wall time is
// mostly waiting for a core.
//
//	ANNALS_BENCH_SQLITE=bench.db go test ./sqlite -run '^$' -bench SearchShapes -benchtime 20x
//
// With ANNALS_BENCH_BLOCK_ENTRIES=n the chats longer than the default block are first packed
// again in blocks of n entries (it writes: give it a copy), to compare block sizes.
func BenchmarkSearchShapes(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	if n, err := strconv.Atoi(os.Getenv("ANNALS_BENCH_BLOCK_ENTRIES")); err == nil && n > 0 {
		repackLongChats(b, s.(*sqlite.DB), int64(n))
	}
	term := func(tokens ...string) *annals.TextExpr { return &annals.TextExpr{Op: annals.TextTerm, Tokens: tokens} }
	prefix, invoic := term("mediumt"), term("invoic")
	prefix.Prefix, invoic.Prefix = true, true
	shapes := []struct {
		name string
		text *annals.TextExpr
	}{
		{"rare", term(corpus.RareTerm)}, {"scarce", term(corpus.ScarceTerm)}, {"medium", term(corpus.MediumTerm)},
		{"common", term(corpus.CommonTerm)},
		{"and", &annals.TextExpr{Op: annals.TextAnd, Items: []*annals.TextExpr{term(corpus.MediumTerm), term(corpus.CommonTerm)}}},
		{"prefix", prefix}, {"phrase", term("the", "test")},
		// The prefix and phrase of the bench's search scenario (bench/search.go).
		{"prefix-invoic", invoic}, {"phrase-traceback", term("most", "recent", "call", "last")},
	}
	for _, sort := range []string{annals.SortRelevance, annals.SortRecent} {
		for _, sh := range shapes {
			b.Run(sort+"/"+sh.name, func(b *testing.B) {
				f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}}, Text: sh.text,
					Limit: 20, Snippets: 3, Sort: sort}
				start := cpuTime()
				for b.Loop() {
					if _, _, err := s.SearchChats(ctx, f); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// repackLongChats packs the chats of more than 256 entries again in blocks of n entries (the
// others are one block either way).
func repackLongChats(b *testing.B, db *sqlite.DB, n int64) {
	ctx := context.Background()
	db.SetBlockLimitsForTest(n, n<<10)
	if err := db.ExecForTest(ctx, `INSERT INTO chat_docs_dirty (chat_pk, full) SELECT pk, 1 FROM chats WHERE entry_count > 256
		ON CONFLICT (chat_pk) DO UPDATE SET full = 1`); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := db.FlushForTest(ctx); err != nil {
		b.Fatal(err)
	}
	var blocks, chats int
	if err := db.QueryRowForTest(ctx, `SELECT count(*), count(DISTINCT chat_pk) FROM chat_blocks`, &blocks, &chats); err != nil {
		b.Fatal(err)
	}
	b.Logf("blocks of %d entries: %d sealed blocks in %d chats, repacked in %s", n, blocks, chats, time.Since(start))
}
