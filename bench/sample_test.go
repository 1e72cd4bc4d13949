package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeSide records into log when it is warmed, sampled and closed.
func fakeSide(name string, log *[]string) *side {
	return &side{
		name: name,
		warm: func(context.Context) error { *log = append(*log, "warm "+name); return nil },
		next: func(context.Context) (sample, error) {
			*log = append(*log, name)
			return sample{wall: time.Millisecond}, nil
		},
		close: func() error { *log = append(*log, "close "+name); return nil },
	}
}

func TestInterleaveSamplesEverySideInTurnRotatingTheOrder(t *testing.T) {
	var log []string
	sides := []*side{fakeSide("annals", &log), fakeSide("driver", &log), fakeSide("sqlite3", &log)}
	got, err := interleave(context.Background(), sampling{iterations: 3, budget: time.Hour}, sides)
	if err != nil {
		t.Fatal(err)
	}
	want := "warm annals,warm driver,warm sqlite3," +
		"annals,driver,sqlite3," + "driver,sqlite3,annals," + "sqlite3,annals,driver," +
		"close annals,close driver,close sqlite3"
	if strings.Join(log, ",") != want {
		t.Errorf("order of calls:\n got %s\nwant %s", strings.Join(log, ","), want)
	}
	for i, s := range got {
		if len(s) != 3 {
			t.Errorf("side %d has %d samples, want 3", i, len(s))
		}
	}
}

func TestInterleaveClosesEverySideWhenOneFails(t *testing.T) {
	var log []string
	bad := fakeSide("sqlite3", &log)
	bad.next = func(context.Context) (sample, error) { return sample{}, errors.New("no such table") }
	_, err := interleave(context.Background(), sampling{iterations: 5, budget: time.Hour}, []*side{fakeSide("annals", &log), bad})
	if err == nil || !strings.Contains(err.Error(), "sqlite3: no such table") {
		t.Errorf("err = %v, want the failing side named", err)
	}
	if !strings.Contains(strings.Join(log, ","), "close annals,close sqlite3") {
		t.Errorf("sides not closed: %v", log)
	}
}

func TestSampleCountsFollowTheBudgetAboveTheFloor(t *testing.T) {
	count := func(iterations int, budget time.Duration) int {
		var log []string
		got, err := interleave(context.Background(), sampling{iterations: iterations, budget: budget}, []*side{fakeSide("annals", &log)})
		if err != nil {
			t.Fatal(err)
		}
		return len(got[0])
	}
	// A spent budget still takes enough samples for a p95, unless fewer iterations are asked for.
	if n := count(500, time.Nanosecond); n != minSamples {
		t.Errorf("spent budget: %d samples, want the floor of %d", n, minSamples)
	}
	if n := count(3, time.Nanosecond); n != 3 {
		t.Errorf("--iterations 3: %d samples, want 3", n)
	}
	if n := count(150, time.Hour); n != 150 {
		t.Errorf("ample budget: %d samples, want all 150 iterations", n)
	}
}

func samplesOf(n int) []sample {
	s := make([]sample, n)
	for i := range s {
		s[i] = sample{wall: time.Duration(i+1) * time.Millisecond, cpu: time.Millisecond}
	}
	return s
}

func TestRowsReportOnlyThePercentilesTheirSamplesSupport(t *testing.T) {
	for _, tc := range []struct {
		n             int
		tail          string
		p95, p99      float64
		baselineTails string
	}{
		{5, "p50", 0, 0, "p50"},
		{19, "p50", 0, 0, "p50"},
		{20, "p95", 19, 0, "p95"},
		{99, "p95", 95, 0, "p95"},
		{100, "p99", 95, 99, "p99"},
	} {
		r := latencyRow(Row{}, samplesOf(tc.n))
		if r.N != tc.n || r.Tail != tc.tail || r.P95 != tc.p95 || r.P99 != tc.p99 {
			t.Errorf("n=%d: got n %d tail %q p95 %v p99 %v, want tail %q p95 %v p99 %v", tc.n, r.N, r.Tail, r.P95, r.P99, tc.tail, tc.p95, tc.p99)
		}
		if b := baselineOf("sqlite3", samplesOf(tc.n)); b.Tail != tc.baselineTails || b.P99 != tc.p99 {
			t.Errorf("n=%d: baseline tail %q p99 %v", tc.n, b.Tail, b.P99)
		}
	}

	// The JSON names the tail and leaves out what was not measured; the table says '-'.
	rep := &Report{Rows: []Row{latencyRow(Row{Scenario: "search", Case: "rare", Backend: "sqlite"}, samplesOf(40))}, Reading: reading(nil)}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Reading []string         `json:"reading"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	row := back.Results[0]
	if row["tail"] != "p95" || row["n"] != 40.0 || row["p95_ms"] != 38.0 || row["p99_ms"] != nil {
		t.Errorf("JSON row %v: want tail p95, n 40, p95 38 and no p99", row)
	}
	if len(back.Reading) == 0 || !strings.Contains(back.Reading[0], "p99 is reported from at least 100 samples") {
		t.Errorf("JSON reading %q does not state the percentile rule", back.Reading)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	line := lineWith(text.String(), "rare")
	if f := strings.Fields(line); len(f) < 9 || f[5] != "p95" || f[7] != "38.0" || f[8] != "-" {
		t.Errorf("table row %q: want TAIL p95, P95 38.0 and P99 '-'", line)
	}
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func TestSearchTargetJudgesP99OnlyWhereItWasMeasured(t *testing.T) {
	few := latencyRow(Row{}, samplesOf(30)) // p50 15 ms, no p99
	target, met := searchTarget(few, true)
	if !strings.Contains(target, "p99 unmeasured") || met == nil || !*met {
		t.Errorf("n=30: target %q met %v, want the p50 judged and the p99 said unmeasured", target, met)
	}
	many := latencyRow(Row{}, samplesOf(200)) // p99 198 ms
	if target, met := searchTarget(many, true); !strings.Contains(target, "p99<") || met == nil || *met {
		t.Errorf("n=200: target %q met %v, want the p99 judged and missed", target, met)
	}
}

func TestReadingSplitsTheGapBetweenAnnalsAndTheDriver(t *testing.T) {
	rows := []Row{
		{Backend: "sqlite", OwnRatio: 1.05, Ratio: 1.6, DriverGap: 1.5, Baseline: &Baseline{Name: "sqlite3"}},
		{Backend: "sqlite", OwnRatio: 1.10, Ratio: 2.0, DriverGap: 1.8, Baseline: &Baseline{Name: "sqlite3"}},
		{Backend: "postgres", OwnRatio: 1.2},
	}
	got := strings.Join(reading(rows), "\n")
	for _, want := range []string{
		"sqlite: annals takes 1.05-1.10x the time of its own SQL replayed through the same driver (modernc.org/sqlite",
		"annals' own overhead",
		"1.50-1.80x the time of the sqlite3 client (2 cases): that part of annals' 1.60-2.00x against sqlite3 is the driver's gap",
		"postgres: annals takes 1.20x the time of its own SQL replayed through the same driver (pgx) over 1 cases",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reading lacks %q:\n%s", want, got)
		}
	}
}
