package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

// rawIngest is the raw baseline: the minimum a program must do to put the corpus into the
// store's schema. It reads and decodes the file once with the same decoder and hands the ops,
// in batches of the same number of records as ingest, to the SQLite store's BaselineWriter (plain
// prepared INSERTs through the same driver, into a schema made by the store's own migrations).
// What it skips is what the library adds on top: the validation pass, idempotency checks, and
// aggregate recomputation in SQL. The schema knowledge stays in package sqlite (hooks).
func rawIngest(ctx context.Context, hooks SQLiteHooks, dbPath, corpusPath string) (*ingestRun, error) {
	w, err := hooks.NewBaselineWriter(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	f, err := os.Open(corpusPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	start := time.Now()
	dec := ingest.NewDecoder(f)
	batch := make([]annals.CaptureOp, 0, ingest.DefaultBatchSize)
	for {
		line, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		batch = append(batch, line.Op)
		if len(batch) == ingest.DefaultBatchSize {
			if err := w.Apply(ctx, batch); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		if err := w.Apply(ctx, batch); err != nil {
			return nil, err
		}
	}
	return &ingestRun{entries: w.Entries(), duration: time.Since(start)}, nil
}

// compareDatabases checks that the raw baseline wrote the same data as the library, so the ratio
// compares like with like. It returns "" when the summaries agree, else what differs.
func compareDatabases(ctx context.Context, hooks SQLiteHooks, lib, raw string) string {
	sa, err := hooks.Summarize(ctx, lib)
	if err != nil {
		return "cannot compare: " + err.Error()
	}
	sb, err := hooks.Summarize(ctx, raw)
	if err != nil {
		return "cannot compare: " + err.Error()
	}
	if sa != sb {
		return fmt.Sprintf("library {%s} raw {%s}", sa, sb)
	}
	return ""
}
