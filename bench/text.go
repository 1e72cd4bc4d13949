package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/annals-dev/annals/internal/human"
)

// WriteText prints the report as tables for people: a header naming the corpus, machine and
// build, one table for throughput, one for latency, then the gaps and the targets.
func (r *Report) WriteText(w io.Writer) error {
	writeHeader(w, r)
	var rates, lats []Row
	for _, row := range r.Rows {
		if row.Unit != "" {
			rates = append(rates, row)
		} else {
			lats = append(lats, row)
		}
	}
	if err := writeRates(w, rates); err != nil {
		return err
	}
	if err := writeLatencies(w, lats); err != nil {
		return err
	}
	if len(r.Reading) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "How to read this:")
		for _, p := range r.Reading {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if len(r.Gaps) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Not measured:")
		for _, g := range r.Gaps {
			fmt.Fprintf(w, "  %s: %s\n", g.What, g.Why)
		}
	}
	_, err := fmt.Fprintf(w, "\nTargets (%s).\nTotal %.0f s.\n", r.Targets, r.Seconds)
	return err
}

// writeHeader says what was measured where: numbers without their machine and build mean little.
func writeHeader(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "annals bench: %s entries in %s chats (seed %d), %s\n", groupThousands(float64(rep.Corpus.Entries)),
		groupThousands(float64(rep.Corpus.Chats)), rep.Corpus.Seed, rep.Date)
	fmt.Fprintf(w, "machine: %d cores, %s memory, %s; load average %s before, %s after\n", rep.Machine.Cores,
		human.Bytes(rep.Machine.MemoryBytes), rep.Machine.OS, rep.Machine.LoadBefore, rep.Machine.LoadAfter)
	commit := rep.Build.Commit
	if commit == "" {
		commit = "unknown"
	}
	if rep.Build.Modified {
		commit += " (modified)"
	}
	if rep.Build.CommitFromCheckout {
		commit += " (the working directory's checkout: the binary carries no revision)"
	}
	fmt.Fprintf(w, "build: commit %s, %s, SQLite %s (modernc %s); sqlite3 tool %s\n", commit, rep.Build.Go,
		rep.Build.SQLite, rep.Build.Modernc, orDash(rep.Build.SQLite3Tool))
	fmt.Fprintf(w, "command: %s\n", rep.Command)
}

func writeRates(w io.Writer, rates []Row) error {
	if len(rates) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tCASE\tBACKEND\tRATE\tUNIT\tBASELINE\tRATIO\tCPU\tLOAD\tTARGET\tNOTE")
	for _, r := range rates {
		base := "-"
		if r.Baseline != nil && r.Baseline.Rate > 0 {
			base = groupThousands(r.Baseline.Rate) + " (" + r.Baseline.Name + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Case, r.Backend, groupThousands(r.Rate), r.Unit,
			base, fmtRatio(r.Ratio), fmtRatio(r.CPURatio), load1(r.Load), strings.TrimSpace(r.Target+" "+met(r)), r.Note)
	}
	return tw.Flush()
}

func writeLatencies(w io.Writer, lats []Row) error {
	if len(lats) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Latencies in ms; each row is sampled in turn with its baselines, N samples each. DRIVER is the p50 of")
	fmt.Fprintln(w, "the same SQL through the same driver as the store, NATIVE of the same SQL in the database's own client")
	fmt.Fprintln(w, "(sqlite3, psql). OWN = annals/DRIVER is annals' own overhead; GAP = DRIVER/NATIVE is the driver's cost")
	fmt.Fprintln(w, "against the native client, not annals'; RATIO = annals/NATIVE (the target), CPU the same for CPU time.")
	fmt.Fprintln(w, "TAIL is the highest percentile the row's N supports; CPU50 the median CPU time of annals; LOAD the")
	fmt.Fprintln(w, "1-minute load average when the row was measured.")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tCASE\tBACKEND\tHITS\tN\tTAIL\tP50\tP95\tP99\tCPU50\tDRIVER\tOWN\tNATIVE\tGAP\tRATIO\tCPU\tLOAD\tTARGET\tNOTE")
	for _, r := range lats {
		hits, drv, base := "-", "-", "-"
		if r.Hits != nil {
			hits = groupThousands(float64(*r.Hits))
		}
		if r.Driver != nil {
			drv = fmtMS(r.Driver.P50)
		}
		if r.Baseline != nil {
			base = fmtMS(r.Baseline.P50)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Case, r.Backend, hits, r.N,
			orDash(r.Tail), fmtMS(r.P50), fmtMS(r.P95), fmtMS(r.P99), fmtMS(r.CPU50), drv, fmtRatio(r.OwnRatio), base, fmtRatio(r.DriverGap),
			fmtRatio(r.Ratio), fmtRatio(r.CPURatio), load1(r.Load), strings.TrimSpace(r.Target+" "+met(r)), r.Note)
	}
	return tw.Flush()
}

// load1 is the 1-minute load average of a row's load averages, or "-".
func load1(load string) string {
	if f := strings.Fields(load); len(f) > 0 {
		return f[0]
	}
	return "-"
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
