package bench

import (
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals/corpus"
)

// Report is everything one run of annals bench measured, with what is needed to repeat it. Its
// JSON form (WriteJSON) is the --json output and the record docs/BENCHMARKS.md quotes.
type Report struct {
	Date    string  `json:"date"`
	Command string  `json:"command"`
	Machine Machine `json:"machine"`
	Build   Build   `json:"build"`
	Corpus  Corpus  `json:"corpus"`
	Targets string  `json:"targets"`
	// Reading says in words how to read the numbers: which percentiles are reported, and how
	// the gap to the native client splits between annals and the driver in this run.
	Reading []string `json:"reading,omitempty"`
	Rows    []Row    `json:"results"`
	Gaps    []Gap    `json:"gaps,omitempty"`
	Seconds float64  `json:"seconds"`
}

// Corpus is what the report says about the data: the generated corpus, the big chat the get
// and export scenarios read, and the prepared database.
type Corpus struct {
	Seed           uint64               `json:"seed"`
	Entries        int                  `json:"entries"`
	Chats          int                  `json:"chats"`
	Runs           int                  `json:"runs"`
	Lines          int                  `json:"lines"`
	Bytes          int64                `json:"bytes"`
	Markers        []corpus.MarkerCount `json:"markers"`
	Path           string               `json:"path"`
	BigChat        string               `json:"big_chat"`
	BigChatEntries int                  `json:"big_chat_entries"`
	Database       string               `json:"database,omitempty"`
	DatabaseBytes  int64                `json:"database_bytes,omitempty"`
	CachedDatabase bool                 `json:"cached_database"`
	Pinned         int                  `json:"pinned"`
	Embedded       int                  `json:"embedded"`
	// Share is the small tenant the share cases search as (share.go).
	Share *ShareTenant `json:"share,omitempty"`
}

// WriteJSON writes the report as indented JSON, ending in a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Gap is a scenario, or a column of one, that did not run, and why.
type Gap struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// Row is one measurement. Latency rows fill the percentiles, rate rows Rate and Unit.
// Times are milliseconds.
type Row struct {
	Scenario string `json:"scenario"`
	Case     string `json:"case"`
	Backend  string `json:"backend"`
	Query    string `json:"query,omitempty"`
	// Mode is the search mode (entries for an entry-level search), Owner whose data a search
	// covers: "" every tenant, the 1% tenant's id (share.go), or a scope and the tenant.
	Mode  string `json:"mode,omitempty"`
	Owner string `json:"owner,omitempty"`
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
	// Tail names the highest percentile the row reports, by its number of samples (see
	// tailFor): "p99", "p95" or "p50"; the percentiles above it are left out.
	Tail string `json:"tail,omitempty"`
	// Baseline is the same work done by the native tool or plain SQL, in the same run.
	Baseline *Baseline `json:"baseline,omitempty"`
	// Ratio is annals over the baseline: p50 wall time over the baseline's p50 for latencies
	// (lower is better, 1 is parity), rate over the baseline's rate for throughput (higher is
	// better). CPURatio compares median CPU times for latencies, and for an ingest rate the
	// baseline's least CPU time per entry over this row's (higher is better).
	Ratio    float64 `json:"ratio,omitempty"`
	CPURatio float64 `json:"cpu_ratio,omitempty"`
	// Driver is the same SQL replayed through the same driver as the store, sampled in turn
	// with annals and Baseline. OwnRatio is annals p50 over Driver's p50: the library's own
	// overhead. DriverGap is Driver's p50 over Baseline's: the driver's cost against the
	// native client, which is not annals' to remove.
	Driver    *Baseline `json:"driver,omitempty"`
	OwnRatio  float64   `json:"own_ratio,omitempty"`
	DriverGap float64   `json:"driver_gap,omitempty"`
	// Target names the target for this row, Met whether this run meets it.
	// ShareOfAll and ShareCPU are a 1% tenant row's p50 and median CPU time in percent of the
	// same query's over every tenant (shareCost).
	ShareOfAll float64 `json:"share_of_all_pct,omitempty"`
	ShareCPU   float64 `json:"share_cpu_pct,omitempty"`
	// Load is the 1, 5 and 15 minute load averages when the row was measured.
	Load   string `json:"load,omitempty"`
	Target string `json:"target,omitempty"`
	Met    *bool  `json:"met,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Baseline is the baseline side of a row.
type Baseline struct {
	Name  string  `json:"name"`
	N     int     `json:"n,omitempty"`
	Tail  string  `json:"tail,omitempty"`
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
func latencyRow(r Row, s []sample) Row {
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
	r.Tail = tailFor(len(s))
	r.P50 = ms(percentile(walls, 50))
	if r.Tail != "p50" {
		r.P95 = ms(percentile(walls, 95))
	}
	if r.Tail == "p99" {
		r.P99 = ms(percentile(walls, 99))
	}
	r.Mean = ms(sum / time.Duration(len(s)))
	r.CPU50 = ms(percentile(cpus, 50))
	return r
}

func baselineOf(name string, s []sample) *Baseline {
	r := latencyRow(Row{}, s)
	return &Baseline{Name: name, N: r.N, Tail: r.Tail, P50: r.P50, P95: r.P95, P99: r.P99, CPU50: r.CPU50}
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

func met(r Row) string {
	switch {
	case r.Met == nil:
		return ""
	case *r.Met:
		return "met"
	}
	return "MISSED"
}
