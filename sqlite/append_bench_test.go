package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
)

// corpusEntries decodes the entries of a generated corpus, so benchmarks append realistic
// transcript rows (prose, tool calls with JSON arguments and results) rather than toy strings.
func corpusEntries(b *testing.B, n int) []*annals.Entry {
	b.Helper()
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 3, Entries: n}, nil); err != nil {
		b.Fatal(err)
	}
	dec := ingest.NewDecoder(&buf)
	var out []*annals.Entry
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			b.Fatal(err)
		}
		if line.Op.Append != nil {
			out = append(out, line.Op.Append.Entries...)
		}
	}
}

// BenchmarkAppendBatch times one AppendEntries call (one transaction: the rows, their FTS5 index
// rows written by triggers, the chat's counters) for batches of 1, 100 and 1000 entries, into
// a chat that keeps growing, as a live transcript or an ingest does. entries/s is the number to
// compare across runs with benchstat; ns/op is per batch.
//
//	go test ./sqlite -run '^$' -bench AppendBatch -count 6 | tee new.txt; benchstat old.txt new.txt
func BenchmarkAppendBatch(b *testing.B) {
	pool := corpusEntries(b, 5000)
	for _, size := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			ctx := context.Background()
			db := MustOpenDB(b)
			if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "bench", TenantID: "t"}); err != nil {
				b.Fatal(err)
			}
			batch := make([]*annals.Entry, size)
			next, appended := 0, 0
			for b.Loop() {
				b.StopTimer()
				for i := range batch {
					e := *pool[next%len(pool)]
					e.ID = fmt.Sprintf("e%d", next) // a new id each time, or the append is skipped as a repeat
					batch[i] = &e
					next++
				}
				b.StartTimer()
				res, err := annals.AppendEntries(ctx, db, "bench", batch)
				if err != nil {
					b.Fatal(err)
				}
				appended += res.Appended
			}
			b.ReportMetric(float64(appended)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkSearchSnippets isolates snippet building: the same ranked chat search (50 chats, every
// tenant) with no snippets and with three per chat, for a medium and a common term of a
// 20,000-entry corpus. The difference between the two is what the snippets cost.
//
//	go test ./sqlite -run '^$' -bench SearchSnippets -count 6
func BenchmarkSearchSnippets(b *testing.B) {
	ctx := context.Background()
	db := MustOpenDB(b)
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 1, Entries: 20000}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := ingest.Ingest(ctx, db, &buf, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	for _, term := range []string{corpus.MediumTerm, corpus.CommonTerm} {
		for _, n := range []int{0, 3} {
			b.Run(fmt.Sprintf("%s/snippets=%d", term, n), func(b *testing.B) {
				f := annals.SearchFilter{
					Chat:     annals.ChatFilter{Owner: annals.Owner{AllTenants: true}},
					Text:     &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{term}},
					Snippets: n,
				}
				for b.Loop() {
					hits, _, err := db.SearchChats(ctx, f)
					if err != nil {
						b.Fatal(err)
					}
					if n > 0 && len(hits) > 0 && len(hits[0].Snippets) == 0 {
						b.Fatal("no snippets built")
					}
				}
			})
		}
	}
}

// BenchmarkAppendToLongChat times appending one entry to a chat that already holds 10,000
// (a long-running agent session): the chat search document's upkeep is what grows with the
// chat, so this is where the block size shows (migration 0010).
//
//	go test ./sqlite -run '^$' -bench AppendToLongChat -benchtime 20x
func BenchmarkAppendToLongChat(b *testing.B) {
	ctx := context.Background()
	pool := corpusEntries(b, 10000)
	db := MustOpenDB(b)
	if _, err := annals.CreateChat(ctx, db, &annals.Chat{ID: "long", TenantID: "t"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(pool); i += 1000 {
		if _, err := annals.AppendEntries(ctx, db, "long", pool[i:min(i+1000, len(pool))]); err != nil {
			b.Fatal(err)
		}
	}
	next := 0
	for b.Loop() {
		e := *pool[next%len(pool)]
		e.ID = fmt.Sprintf("more%d", next)
		next++
		if _, err := annals.AppendEntries(ctx, db, "long", []*annals.Entry{&e}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendToBenchChat appends one entry at a time to chat ANNALS_BENCH_CHAT of the
// database ANNALS_BENCH_SQLITE (a copy: it writes), e.g. the 10k-entry chat of a 1M bench
// database, where the search indexes are as large as they get.
//
//	ANNALS_BENCH_SQLITE=copy.db ANNALS_BENCH_CHAT=id go test ./sqlite -run '^$' -bench AppendToBenchChat -benchtime 20x
func BenchmarkAppendToBenchChat(b *testing.B) {
	chat := os.Getenv("ANNALS_BENCH_CHAT")
	if os.Getenv("ANNALS_BENCH_SQLITE") == "" || chat == "" {
		b.Skip("needs ANNALS_BENCH_SQLITE and ANNALS_BENCH_CHAT")
	}
	ctx := context.Background()
	s := benchStore(b)
	pool := corpusEntries(b, 1000)
	next := 0
	for b.Loop() {
		e := *pool[next%len(pool)]
		e.ID = fmt.Sprintf("bench-append-%d-%d", time.Now().UnixNano(), next)
		next++
		if _, err := annals.AppendEntries(ctx, s, chat, []*annals.Entry{&e}); err != nil {
			b.Fatal(err)
		}
	}
}
