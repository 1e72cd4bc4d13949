package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// benchReport is everything one run of annals bench measured, with what is needed to repeat it.
type benchReport struct {
	Date    string       `json:"date"`
	Command string       `json:"command"`
	Machine benchMachine `json:"machine"`
	Build   benchBuild   `json:"build"`
	Corpus  benchCorpus  `json:"corpus"`
	Targets string       `json:"targets"`
	Rows    []benchRow   `json:"results"`
	Gaps    []benchGap   `json:"gaps,omitempty"`
	Seconds float64      `json:"seconds"`
}

// benchGap is a scenario, or a column of one, that did not run, and why.
type benchGap struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// benchRow is one measurement. Latency rows fill the percentiles, rate rows Rate and Unit.
// Times are milliseconds.
type benchRow struct {
	Scenario string `json:"scenario"`
	Case     string `json:"case"`
	Backend  string `json:"backend"`
	Query    string `json:"query,omitempty"`
	// Hits is the total the operation reported (matching chats or entries, listed chats).
	Hits *int    `json:"hits,omitempty"`
	N    int     `json:"n,omitempty"`
	P50  float64 `json:"p50_ms,omitempty"`
	P95  float64 `json:"p95_ms,omitempty"`
	P99  float64 `json:"p99_ms,omitempty"`
	Mean float64 `json:"mean_ms,omitempty"`
	// CPU50 is the median CPU time (user + system, the whole process) per operation.
	CPU50 float64 `json:"cpu_p50_ms,omitempty"`
	Rate  float64 `json:"rate,omitempty"`
	Unit  string  `json:"unit,omitempty"`
	// Baseline is the same work done by the native tool or plain SQL, in the same run.
	Baseline *benchBaseline `json:"baseline,omitempty"`
	// Ratio is annals over the baseline: p50 wall time over the baseline's p50 for latencies
	// (lower is better, 1 is parity), rate over the baseline's rate for throughput (higher is
	// better). CPURatio compares median CPU times.
	Ratio    float64 `json:"ratio,omitempty"`
	CPURatio float64 `json:"cpu_ratio,omitempty"`
	// Target names the target for this row, Met whether this run meets it.
	Target string `json:"target,omitempty"`
	Met    *bool  `json:"met,omitempty"`
	Note   string `json:"note,omitempty"`
}

// benchBaseline is the baseline side of a row.
type benchBaseline struct {
	Name  string  `json:"name"`
	N     int     `json:"n,omitempty"`
	P50   float64 `json:"p50_ms,omitempty"`
	P95   float64 `json:"p95_ms,omitempty"`
	P99   float64 `json:"p99_ms,omitempty"`
	CPU50 float64 `json:"cpu_p50_ms,omitempty"`
	Rate  float64 `json:"rate,omitempty"`
	Note  string  `json:"note,omitempty"`
}

// sample is one timed operation: wall-clock and CPU time.
type sample struct{ wall, cpu time.Duration }

// latencyRow fills a row's percentiles from samples.
func latencyRow(r benchRow, s []sample) benchRow {
	walls := make([]time.Duration, len(s))
	cpus := make([]time.Duration, len(s))
	var sum time.Duration
	for i, x := range s {
		walls[i], cpus[i] = x.wall, x.cpu
		sum += x.wall
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	r.N = len(s)
	if len(s) == 0 {
		return r
	}
	r.P50, r.P95, r.P99 = ms(percentile(walls, 50)), ms(percentile(walls, 95)), ms(percentile(walls, 99))
	r.Mean = ms(sum / time.Duration(len(s)))
	r.CPU50 = ms(percentile(cpus, 50))
	return r
}

func baselineOf(name string, s []sample) *benchBaseline {
	r := latencyRow(benchRow{}, s)
	return &benchBaseline{Name: name, N: r.N, P50: r.P50, P95: r.P95, P99: r.P99, CPU50: r.CPU50}
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return roundTo(float64(d)/1e6, 3) }

func roundTo(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return roundTo(a/b, 2)
}

func boolp(v bool) *bool { return &v }
func intp(v int) *int    { return &v }

func fmtMS(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return groupThousands(v)
}

func fmtRatio(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "x"
}

// groupThousands renders a rounded number with thousands separators: 12,345.
func groupThousands(v float64) string {
	n := int64(math.Round(v))
	s := strconv.FormatInt(max(n, -n), 10)
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func met(r benchRow) string {
	switch {
	case r.Met == nil:
		return ""
	case *r.Met:
		return "met"
	}
	return "MISSED"
}

// writeBenchReport prints the report as tables for people: one for throughput, one for
// latency, then the gaps.
func writeBenchReport(w io.Writer, rep *benchReport) error {
	fmt.Fprintf(w, "annals bench: %s entries in %s chats (seed %d), %s\n", groupThousands(float64(rep.Corpus.Entries)),
		groupThousands(float64(rep.Corpus.Chats)), rep.Corpus.Seed, rep.Date)
	fmt.Fprintf(w, "machine: %d cores, %s memory, %s; load average %s before, %s after\n", rep.Machine.Cores,
		humanBytes(rep.Machine.MemoryBytes), rep.Machine.OS, rep.Machine.LoadBefore, rep.Machine.LoadAfter)
	commit := rep.Build.Commit
	if commit == "" {
		commit = "unknown"
	}
	if rep.Build.Modified {
		commit += " (modified)"
	}
	fmt.Fprintf(w, "build: commit %s, %s, SQLite %s (modernc %s); sqlite3 tool %s\n", commit, rep.Build.Go,
		rep.Build.SQLite, rep.Build.Modernc, orDash(rep.Build.SQLite3Tool))
	fmt.Fprintf(w, "command: %s\n", rep.Command)

	var rates, lats []benchRow
	for _, r := range rep.Rows {
		if r.Unit != "" {
			rates = append(rates, r)
		} else {
			lats = append(lats, r)
		}
	}
	if len(rates) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SCENARIO\tCASE\tBACKEND\tRATE\tUNIT\tBASELINE\tRATIO\tTARGET\tNOTE")
		for _, r := range rates {
			base := "-"
			if r.Baseline != nil && r.Baseline.Rate > 0 {
				base = groupThousands(r.Baseline.Rate) + " (" + r.Baseline.Name + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Case, r.Backend, groupThousands(r.Rate), r.Unit,
				base, fmtRatio(r.Ratio), strings.TrimSpace(r.Target+" "+met(r)), r.Note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(lats) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Latencies in ms. BASE is the same SQL in the sqlite3 tool (p50); RATIO is annals p50 over BASE p50, CPU the same for CPU time.")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SCENARIO\tCASE\tBACKEND\tHITS\tN\tP50\tP95\tP99\tBASE P50\tRATIO\tCPU\tTARGET\tNOTE")
		for _, r := range lats {
			hits, base := "-", "-"
			if r.Hits != nil {
				hits = groupThousands(float64(*r.Hits))
			}
			if r.Baseline != nil {
				base = fmtMS(r.Baseline.P50)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Case, r.Backend, hits, r.N,
				fmtMS(r.P50), fmtMS(r.P95), fmtMS(r.P99), base, fmtRatio(r.Ratio), fmtRatio(r.CPURatio),
				strings.TrimSpace(r.Target+" "+met(r)), r.Note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.Gaps) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Not measured:")
		for _, g := range rep.Gaps {
			fmt.Fprintf(w, "  %s: %s\n", g.What, g.Why)
		}
	}
	fmt.Fprintf(w, "\nTargets (%s).\nTotal %.0f s.\n", rep.Targets, rep.Seconds)
	return nil
}
