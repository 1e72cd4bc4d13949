package tui_test

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/tui"
)

// BenchmarkKeystrokeToResults measures, under bubbletea's real program (the library's test
// driver), the time from a keystroke in the search box to its results reaching the program's
// loop (the next frame draws them, at most 1/60 s later), on the database ANNALS_TUI_BENCH_DB
// (a corpus from `annals bench gen`, ingested; opened read-only). Each iteration is one key of
// queries typed letter by letter, each cleared with ctrl+u; every key waits for its results
// before the next, so none is cancelled. The 40 ms debounce is part of the time. Reports the
// p50 and p95 (docs/BENCHMARKS.md).
func BenchmarkKeystrokeToResults(b *testing.B) {
	path := os.Getenv("ANNALS_TUI_BENCH_DB")
	if path == "" {
		b.Skip("set ANNALS_TUI_BENCH_DB to an ingested corpus (annals bench gen, annals ingest)")
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	owner := history.For(history.New(history.Config{Store: st}), history.LocalOwner(), history.Access{Local: true, ReadOnly: true})
	got := make(chan time.Time, 16)
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		if reflect.TypeOf(msg) != nil && reflect.TypeOf(msg).String() == "tui.searchMsg" {
			got <- time.Now()
		}
		return msg
	}
	m := tui.New(tui.Options{Service: owner, Context: annals.NewContextWithPrincipal(ctx, owner.Principal())})
	tm := teatest.NewTestModel(b, m, teatest.WithInitialTermSize(120, 40), teatest.WithProgramOptions(tea.WithFilter(filter)))
	<-got // the first list
	var keys []tea.KeyPressMsg
	for _, q := range []string{"commonterm", "mediumterm error", "zqxscarce", "deploy test", "migration failed"} {
		for _, r := range q {
			keys = append(keys, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		keys = append(keys, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		tm.Send(keys[i%len(keys)])
		select {
		case t := <-got:
			lat = append(lat, t.Sub(start))
		case <-time.After(30 * time.Second):
			b.Fatal("no results within 30 s")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(b, teatest.WithFinalTimeout(10*time.Second))
}
