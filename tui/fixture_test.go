package tui_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/sqlite"
	"github.com/annals-dev/annals/tui"
)

// fixture is a real history on a real SQLite database, and the local owner's door to it.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	svc   *history.Service
	owner *history.Caller
	base  time.Time
}

// newFixture opens the database; with, when given, completes the history's configuration.
func newFixture(t *testing.T, with ...func(*history.Config)) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "annals.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := history.Config{Store: st, View: st}
	for _, w := range with {
		w(&cfg)
	}
	svc := history.New(cfg)
	owner := history.For(svc, history.LocalOwner(), history.Access{Local: true})
	return &fixture{t: t, ctx: annals.NewContextWithPrincipal(ctx, owner.Principal()), svc: svc, owner: owner,
		base: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
}

// chat stores a chat with the given texts, each an entry: "user: ...", "assistant: ...", or
// "tool NAME ARGS => RESULT".
func (f *fixture) chat(id, title string, attrs annals.Attributes, texts ...string) {
	f.t.Helper()
	c := &annals.Chat{ID: id, Title: title, Attributes: attrs, CreatedAt: f.base}
	if _, err := annals.CreateChat(f.ctx, f.owner, c); err != nil {
		f.t.Fatal(err)
	}
	var entries []*annals.Entry
	for i, s := range texts {
		e := &annals.Entry{ID: fmt.Sprintf("%s-%d", id, i), Time: f.base.Add(time.Duration(i) * time.Second)}
		switch {
		case strings.HasPrefix(s, "user: "):
			e.Kind, e.Text = annals.KindUser, strings.TrimPrefix(s, "user: ")
		case strings.HasPrefix(s, "tool "):
			name, rest, _ := strings.Cut(strings.TrimPrefix(s, "tool "), " ")
			args, result, _ := strings.Cut(rest, " => ")
			e.Kind, e.Tool = annals.KindTool, &annals.ToolCall{Name: name, Arguments: []byte(args), Result: result, Outcome: annals.OutcomeFailed}
		default:
			e.Kind, e.Text = annals.KindAssistant, strings.TrimPrefix(s, "assistant: ")
		}
		entries = append(entries, e)
	}
	for len(entries) > 0 {
		n := min(len(entries), 1000)
		if _, err := annals.AppendEntries(f.ctx, f.owner, id, entries[:n]); err != nil {
			f.t.Fatal(err)
		}
		entries = entries[n:]
	}
}

// get reads a chat back from the store, as the local owner.
func (f *fixture) get(id string) *annals.Chat {
	f.t.Helper()
	v, err := f.owner.GetChat(f.ctx, annals.GetParams{Chat: annals.ChatSelector{ID: id}, Limit: 1})
	if err != nil {
		f.t.Fatal(err)
	}
	return v.Chat
}

// opts are the browser's options over svc (the owner's door unless a test wraps it).
func (f *fixture) opts(svc annals.HistoryService) tui.Options {
	return tui.Options{Service: svc, Context: f.ctx, Debounce: time.Millisecond, Dir: f.t.TempDir(),
		Now: func() time.Time { return f.base.Add(time.Hour) }}
}

// driver drives the model as bubbletea's loop does, but in the test's goroutine: a key goes to
// Update, and the commands it returns are queued; settle runs them and feeds their messages
// back until none is left.
type driver struct {
	t     *testing.T
	m     *tui.Model
	queue []tea.Cmd
	// out are the messages no Update takes (quit, clipboard, ...): the commands' effects.
	out []tea.Msg
}

func newDriver(t *testing.T, o tui.Options, w, h int) *driver {
	d := &driver{t: t, m: tui.New(o)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.queue = append(d.queue, d.m.Init())
	d.settle()
	return d
}

// send hands a message to Update and queues the command it returns.
func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	if cmd != nil {
		d.queue = append(d.queue, cmd)
	}
}

// keys presses keys: a single rune, or a name such as "enter", "esc", "space", "up", "ctrl+c".
func (d *driver) keys(keys ...string) {
	for _, k := range keys {
		d.send(keyMsg(k))
	}
}

// typeText types text one rune at a time, without running the searches it starts.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	names := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "space": tea.KeySpace, "up": tea.KeyUp,
		"down": tea.KeyDown, "tab": tea.KeyTab, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown, "end": tea.KeyEnd}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	if r, ok := names[k]; ok {
		if r == tea.KeySpace {
			return tea.KeyPressMsg{Code: r, Text: " "}
		}
		return tea.KeyPressMsg{Code: r}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// settle runs the queued commands, in order, feeding their messages back to Update.
func (d *driver) settle() {
	d.t.Helper()
	for i := 0; len(d.queue) > 0; i++ {
		if i > 10000 {
			d.t.Fatal("the commands never settle")
		}
		cmd := d.queue[0]
		d.queue = d.queue[1:]
		d.deliver(cmd())
	}
}

func (d *driver) deliver(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			if c != nil {
				d.queue = append(d.queue, c)
			}
		}
	case tea.QuitMsg:
		d.out = append(d.out, msg)
	default:
		if strings.HasPrefix(reflect.TypeOf(msg).String(), "tea.") && reflect.TypeOf(msg).Kind() == reflect.String {
			d.out = append(d.out, msg) // a terminal effect, such as the clipboard
			return
		}
		d.send(msg)
	}
}

// screen is the rendered screen without its styles; raw is it with them.
func (d *driver) screen() string { return sgr.ReplaceAllString(d.m.Render(), "") }
func (d *driver) raw() string    { return d.m.Render() }

// quit reports whether a command asked the program to quit.
func (d *driver) quit() bool {
	for _, m := range d.out {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// recording wraps a history and records what the browser asked of it; block, when set, holds
// the first search until its context is cancelled.
type recording struct {
	annals.HistoryService
	mu       sync.Mutex
	searches []string
	ranks    []string // each search's rank, in order
	gets     []annals.GetParams
	block    chan struct{} // closed when the blocked search has started
	blockErr chan error    // the blocked search's context error
}

func (r *recording) SearchChats(ctx context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	r.mu.Lock()
	r.searches = append(r.searches, p.Query)
	r.ranks = append(r.ranks, p.Rank)
	first := len(r.searches) == 1
	r.mu.Unlock()
	if first && r.block != nil && p.Mode != annals.SearchEntriesMode {
		close(r.block)
		<-ctx.Done()
		r.blockErr <- ctx.Err()
		return nil, ctx.Err()
	}
	return r.HistoryService.SearchChats(ctx, p)
}

func (r *recording) GetChat(ctx context.Context, p annals.GetParams) (*annals.ChatView, error) {
	r.mu.Lock()
	r.gets = append(r.gets, p)
	r.mu.Unlock()
	return r.HistoryService.GetChat(ctx, p)
}

// lines is the screen's lines.
func lines(s string) []string { return strings.Split(s, "\n") }

// lineWith is the first line of the screen holding text, or "".
func lineWith(screen, text string) string {
	for _, l := range lines(screen) {
		if strings.Contains(l, text) {
			return l
		}
	}
	return ""
}
