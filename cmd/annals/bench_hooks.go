package main

import (
	"context"

	"github.com/annals-dev/annals/bench"
	"github.com/annals-dev/annals/sqlite"
)

// sqliteBenchHooks hands the harness the SQLite store's documented benchmark hooks, so package
// bench imports no concrete store.
func sqliteBenchHooks() bench.SQLiteHooks {
	return bench.SQLiteHooks{
		NewBaselineWriter: func(ctx context.Context, path string) (bench.BaselineWriter, error) {
			w, err := sqlite.NewBaselineWriter(ctx, path)
			if err != nil {
				return nil, err // not a typed nil inside the interface
			}
			return w, nil
		},
		Summarize:     sqlite.Summarize,
		EngineVersion: sqlite.EngineVersion,
		OpenReplay:    sqlite.OpenReplay,
	}
}
