package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
)

// focus is the pane keys go to.
type focus int

const (
	focusSearch focus = iota
	focusResults
	focusTranscript
)

// promptKind is what the one-line prompt at the bottom is asking for.
type promptKind int

const (
	promptNone promptKind = iota
	promptTag
	promptRename
	promptExport
	promptFilter
	promptRun // y/n: run the resume command
)

// Model is the browser's state. Its methods run on bubbletea's loop only; the service is called
// in commands, never in Update, so a slow search or page never blocks a keystroke.
type Model struct {
	opts Options
	keys keyMap
	st   styles

	width, height int
	focus         focus
	input         textinput.Model
	help          bool

	prompt     textinput.Model
	promptKind promptKind
	promptChat *annals.Chat
	confirm    *annals.ResumeHandle

	status    string
	statusBad bool

	s  searchState
	tr *transcript

	result Result
}

// New returns the browser's model; Run runs it on a terminal, tests drive it directly.
func New(opts Options) *Model {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Debounce == 0 {
		opts.Debounce = 40 * time.Millisecond
	}
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "search: words, \"phrases\", prefix*, -not, tag:x agent:y after:2026-01-01"
	in.CharLimit = 4096 // the query language's length limit
	in.SetValue(opts.Query)
	st := newStyles(opts.Color)
	in.SetStyles(st.input())
	in.Focus()
	pr := textinput.New()
	pr.CharLimit = 4096
	pr.SetStyles(st.input())
	m := &Model{opts: opts, keys: newKeyMap(), st: st, input: in, prompt: pr, width: 80, height: 24}
	m.s.filter, m.s.filterText = opts.Filter, opts.FilterText
	return m
}

// Init starts the first search (the most recent chats when the query is empty).
func (m *Model) Init() tea.Cmd { return m.search(0) }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.input.SetWidth(m.width - 12)
		if m.tr != nil {
			m.tr.invalidate()
		}
		return m, nil
	case searchMsg:
		return m, m.gotResults(msg)
	case pageMsg:
		return m, m.gotPage(msg)
	case hitsMsg:
		m.gotHits(msg)
		return m, nil
	case runsMsg:
		m.gotRuns(msg)
		return m, nil
	case chatMsg:
		m.gotChat(msg)
		return m, nil
	case statusMsg:
		m.say(msg.text, msg.bad)
		return m, nil
	case webMsg:
		return m, m.gotWeb(msg)
	case resumeMsg:
		return m, m.gotResume(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.promptKind != promptNone {
			var cmd tea.Cmd
			m.prompt, cmd = m.prompt.Update(msg)
			return m, cmd
		}
		if m.focus == focusSearch {
			return m, m.typed(msg)
		}
	}
	return m, nil
}

// key dispatches a key press: the prompt, the help screen and the search box take keys first.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" {
		return m.quit()
	}
	switch {
	case m.promptKind != promptNone:
		return m.promptKey(k)
	case m.help:
		if key.Matches(k, m.keys.Help, m.keys.Back, m.keys.Quit) {
			m.help = false
		}
		return nil
	case m.focus == focusSearch:
		return m.searchKey(k)
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.quit()
	case key.Matches(k, m.keys.Help):
		m.help = true
	case key.Matches(k, m.keys.Search):
		m.setFocus(focusSearch)
	case key.Matches(k, m.keys.Switch):
		m.cycleFocus(k.String() == "shift+tab")
	case key.Matches(k, m.keys.Filter):
		m.ask(promptFilter, nil, "filter: ", m.s.filterInput)
	case key.Matches(k, m.keys.ClearFilter):
		m.s.filter, m.s.filterText, m.s.filterInput, m.s.rank = annals.ChatQuery{}, "", "", ""
		return m.search(0)
	case key.Matches(k, m.keys.Rank):
		m.s.rank = nextRank(orText(m.s.rank, annals.RankLexical))
		m.say("rank: "+m.s.rank+" ("+rankSays[m.s.rank]+")", false)
		return m.search(0)
	case key.Matches(k, m.keys.Archived):
		m.s.filter.IncludeArchived = !m.s.filter.IncludeArchived
		return m.search(0)
	default:
		if cmd, ok := m.curationKey(k); ok {
			return cmd
		}
		if m.focus == focusTranscript && m.tr != nil {
			return m.transcriptKey(k)
		}
		return m.resultsKey(k)
	}
	return nil
}

// searchKey handles a key in the search box: editing keys search again, moving keys leave it.
func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter", "down", "tab":
		if len(m.s.rows) > 0 {
			m.setFocus(focusResults)
		}
		return nil
	case "esc":
		if m.input.Value() != "" {
			m.input.SetValue("")
			return m.search(0)
		}
		m.setFocus(focusResults)
		return nil
	case "shift+tab":
		if m.tr != nil {
			m.setFocus(focusTranscript)
		}
		return nil
	}
	return m.typed(k)
}

// typed passes a message to the search box and searches again if the text changed.
func (m *Model) typed(msg tea.Msg) tea.Cmd {
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == before {
		return cmd
	}
	return tea.Batch(cmd, m.search(0))
}

func (m *Model) setFocus(f focus) {
	m.focus = f
	if f == focusSearch {
		m.input.Focus()
	} else {
		m.input.Blur()
	}
}

func (m *Model) cycleFocus(back bool) {
	order := []focus{focusSearch, focusResults}
	if m.tr != nil {
		order = append(order, focusTranscript)
	}
	i := 0
	for j, f := range order {
		if f == m.focus {
			i = j
		}
	}
	if back {
		i += len(order) - 1
	} else {
		i++
	}
	m.setFocus(order[i%len(order)])
}

func (m *Model) quit() tea.Cmd {
	m.stopSearch()
	return tea.Quit
}

// say puts a message in the status line; bad ones (refusals, failures) are styled as such.
func (m *Model) say(text string, bad bool) { m.status, m.statusBad = text, bad }

// statusMsg is a message for the status line, from a command.
type statusMsg struct {
	text string
	bad  bool
}

// refusal is the status line for a failed operation: the service's message for the caller
// (never an internal cause), made safe.
func refusal(op string, err error) statusMsg {
	return statusMsg{text: op + ": " + oneLine(annals.ErrorMessage(err)), bad: true}
}
