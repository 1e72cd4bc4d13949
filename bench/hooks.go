package bench

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
)

// SQLiteHooks are the SQLite store's documented benchmark hooks (sqlite/baseline.go), handed in
// by the caller (cmd/ wires them from package sqlite) so that the harness imports no concrete
// store and still holds no SQL of its own.
type SQLiteHooks struct {
	// NewBaselineWriter creates (or migrates) the database at path with the store's own
	// migrations and returns the raw capture baseline that writes to it.
	NewBaselineWriter func(ctx context.Context, path string) (BaselineWriter, error)
	// Summarize describes the data of the database at path in one line, so the raw baseline's
	// database and the library's can be compared.
	Summarize func(ctx context.Context, path string) (string, error)
	// EngineVersion is the version of the SQLite library inside the store's driver.
	EngineVersion func(ctx context.Context) (string, error)
	// OpenReplay opens the database at path read-only with the store's reader settings, to
	// replay traced statements through the same driver.
	OpenReplay func(path string) (*sql.DB, error)
}

// BaselineWriter is the raw capture baseline: plain INSERTs of capture ops into the store's
// schema, one transaction per Apply.
type BaselineWriter interface {
	Apply(ctx context.Context, ops []annals.CaptureOp) error
	// Entries is the number of entries written so far.
	Entries() int
	Close() error
}

// check refuses hooks a run cannot use.
func (h SQLiteHooks) check() error {
	if h.NewBaselineWriter == nil || h.Summarize == nil || h.EngineVersion == nil || h.OpenReplay == nil {
		return errors.New("bench: Options.SQLite needs all four hooks (NewBaselineWriter, Summarize, EngineVersion, OpenReplay)")
	}
	return nil
}
