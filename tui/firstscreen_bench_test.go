package tui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/tui"
)

// longChatEntries is the length of the chat BenchmarkFirstScreenOfALongChat opens (issue 29,
// Speed: a 100,000-entry chat shows its first screen within 200 ms).
const longChatEntries = 100_000

// BenchmarkFirstScreenOfALongChat measures, under bubbletea's real program (the library's test
// driver), the time from the key that opens a 100,000-entry chat to the first frame that shows
// its entries (the model's View, drawn; the terminal writes it at the next tick, at most 1/60 s
// later); the time to close it again is not counted. Two ways in: from the list of recent chats (the chat's start) and from a search whose
// only match is entry 90,001 (the window around it). Each iteration closes the chat (esc esc)
// and opens it again. ANNALS_TUI_BENCH_LONGCHAT names the database file: it is built there
// (about a minute) when it does not exist. Reports p50 and p95 (docs/BENCHMARKS.md).
func BenchmarkFirstScreenOfALongChat(b *testing.B) {
	path := os.Getenv("ANNALS_TUI_BENCH_LONGCHAT")
	if path == "" {
		b.Skip("set ANNALS_TUI_BENCH_LONGCHAT to a database file (built there when missing)")
	}
	ctx := context.Background()
	if _, err := os.Stat(path); err != nil {
		buildLongChat(b, path)
	}
	st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	owner := history.For(history.New(history.Config{Store: st}), history.LocalOwner(), history.Access{Local: true, ReadOnly: true})
	pctx := annals.NewContextWithPrincipal(ctx, owner.Principal())
	for _, c := range []struct{ name, query, shows string }{
		{"start", "", "you #1 ·"},
		{"match", "zqxdeep", "you #90001 ·"},
	} {
		b.Run(c.name, func(b *testing.B) {
			shown := make(chan time.Time, 16)
			w := &frameClock{Model: tui.New(tui.Options{Service: owner, Context: pctx, Query: c.query}), shows: c.shows, shown: shown}
			tm := teatest.NewTestModel(b, w, teatest.WithInitialTermSize(120, 40))
			teatest.WaitFor(b, tm.Output(), func(out []byte) bool { return strings.Contains(string(out), "Long chat") },
				teatest.WithDuration(60*time.Second))
			tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) // to the results
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			wait := func(what string) time.Time {
				select {
				case t := <-shown:
					return t
				case <-time.After(30 * time.Second):
					b.Fatalf("no frame %s within 30 s", what)
				}
				return time.Time{}
			}
			for i := 0; i < b.N; i++ {
				w.state.Store(waitShown)
				start := time.Now()
				tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
				lat = append(lat, wait("showed the chat").Sub(start))
				b.StopTimer()
				w.state.Store(waitGone)
				tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
				tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
				wait("closed the chat")
				b.StartTimer()
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
			tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
			tm.WaitFinished(b, teatest.WithFinalTimeout(10*time.Second))
		})
	}
}

// frameClock wraps the browser and notes the first frame that shows a text (state waitShown),
// or that no longer does (waitGone). The benchmark sets the state, the program's loop draws.
type frameClock struct {
	*tui.Model
	shows string
	shown chan time.Time
	state atomic.Int32
}

const (
	waitNothing = iota
	waitShown
	waitGone
)

func (f *frameClock) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := f.Model.Update(msg)
	return f, cmd
}

func (f *frameClock) View() tea.View {
	v := f.Model.View()
	if st := f.state.Load(); st != waitNothing {
		if strings.Contains(sgr.ReplaceAllString(f.Model.Render(), ""), f.shows) == (st == waitShown) {
			f.state.Store(waitNothing)
			f.shown <- time.Now()
		}
	}
	return v
}

// buildLongChat writes a database holding a few short chats and one of longChatEntries entries
// (a user prompt, an assistant answer and a tool call in turn), whose entry 90,000 alone holds
// the word zqxdeep (a user prompt).
func buildLongChat(b *testing.B, path string) {
	b.Helper()
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	tmp := path + ".building"
	_ = os.Remove(tmp)
	st, err := sqlite.Open(ctx, tmp, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	owner := history.For(history.New(history.Config{Store: st}), history.LocalOwner(), history.Access{Local: true})
	pctx := annals.NewContextWithPrincipal(ctx, owner.Principal())
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		if _, err := annals.CreateChat(pctx, owner, &annals.Chat{ID: fmt.Sprintf("short-%d", i), Title: "Short chat", CreatedAt: base}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := annals.CreateChat(pctx, owner, &annals.Chat{ID: "long", Title: "Long chat", CreatedAt: base}); err != nil {
		b.Fatal(err)
	}
	batch := make([]*annals.Entry, 0, 1000)
	for i := 1; i <= longChatEntries; i++ {
		e := &annals.Entry{ID: fmt.Sprint(i), Time: base.Add(time.Duration(i) * time.Second)}
		switch i % 3 {
		case 1:
			e.Kind, e.Text = annals.KindUser, fmt.Sprintf("entry %d of the long chat: please look at the failing build in package p%d", i, i%97)
		case 2:
			e.Kind, e.Text = annals.KindAssistant, fmt.Sprintf("entry %d: the build fails in p%d because a test expects the old rounding; I will read the file first.", i, i%97)
		default:
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: "Read", CallID: fmt.Sprint("c", i), Arguments: []byte(fmt.Sprintf(`{"file_path":"/src/p%d/x.go"}`, i%97)),
				Result: strings.Repeat("line of code ", 20), Outcome: annals.OutcomeSucceeded}
		}
		if i == 90_001 {
			e.Text += " zqxdeep"
		}
		batch = append(batch, e)
		if len(batch) == cap(batch) || i == longChatEntries {
			if _, err := annals.AppendEntries(pctx, owner, "long", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
}
