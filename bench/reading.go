package bench

import (
	"fmt"
	"slices"
)

// reading is the report's sentences on how to read its numbers: the percentile rule, and per
// backend how the gap between annals and the native client splits into annals' own overhead
// (annals over the same SQL through the same driver) and the driver's (that SQL through the
// driver over the native client), as ranges over the rows that measured both.
func reading(rows []Row) []string {
	out := []string{percentileRule + "."}
	for _, backend := range []string{"sqlite", "postgres"} {
		var own, gap, total []float64
		native := ""
		for _, r := range rows {
			if r.Backend != backend {
				continue
			}
			if r.OwnRatio > 0 {
				own = append(own, r.OwnRatio)
			}
			if r.DriverGap > 0 {
				gap = append(gap, r.DriverGap)
				total = append(total, r.Ratio)
				native = r.Baseline.Name
			}
		}
		if len(own) == 0 {
			continue
		}
		s := fmt.Sprintf("%s: annals takes %s the time of its own SQL replayed through the same driver (%s) over %d cases: that is annals' own overhead.",
			backend, spread(own), driverName(backend), len(own))
		if len(gap) > 0 {
			s += fmt.Sprintf(" The same SQL through that driver takes %s the time of the %s client (%d cases): that part of annals' %s against %s is the driver's gap to the native client, not annals'.",
				spread(gap), native, len(gap), spread(total), native)
		}
		out = append(out, s)
	}
	return out
}

// driverName names the Go driver a backend's store runs on.
func driverName(backend string) string {
	if backend == "postgres" {
		return "pgx"
	}
	return "modernc.org/sqlite, SQLite compiled to Go"
}

// spread renders ratios as their range: "1.01-1.11x", or "1.05x" when they agree.
func spread(v []float64) string {
	lo, hi := slices.Min(v), slices.Max(v)
	if lo == hi {
		return fmtRatio(lo)
	}
	return fmt.Sprintf("%.2f-%s", lo, fmtRatio(hi))
}
