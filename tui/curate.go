package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/annals-dev/annals"
)

// chatMsg is a chat as a curation left it.
type chatMsg struct {
	op   string
	chat *annals.Chat
	err  error
}

// resumeMsg is the answer of ResumeChat, to copy (run false) or to confirm and run.
type resumeMsg struct {
	h   *annals.ResumeHandle
	run bool
	err error
}

// current is the chat the curation keys act on: the open one in the transcript, else the
// selected result.
func (m *Model) current() *annals.Chat {
	if m.focus == focusTranscript && m.tr != nil {
		return m.tr.chat
	}
	if r := m.selected(); r != nil {
		return r.chat
	}
	return nil
}

// curationKey handles the keys that act on the current chat; ok is false for other keys.
func (m *Model) curationKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	ks := m.keys
	if !key.Matches(k, ks.Pin, ks.Tag, ks.Rename, ks.Archive, ks.Export, ks.CopyResume, ks.RunResume, ks.Web) {
		return nil, false
	}
	c := m.current()
	if c == nil {
		m.say("no chat selected", true)
		return nil, true
	}
	sel := annals.ChatSelector{Scope: m.opts.Scope, ID: c.ID}
	svc, ctx := m.opts.Service, m.opts.Context
	switch {
	case key.Matches(k, ks.Pin):
		pin := !c.Pinned
		return m.curate("pin", func() (*annals.Chat, error) { return svc.PinChat(ctx, sel, pin) }), true
	case key.Matches(k, ks.Archive):
		archive := c.ArchivedAt == nil
		op := "archive"
		if !archive {
			op = "restore"
		}
		return m.curate(op, func() (*annals.Chat, error) { return svc.ArchiveChat(ctx, sel, archive) }), true
	case key.Matches(k, ks.Tag):
		m.ask(promptTag, c, "tags: ", strings.Join(c.Tags, " "))
	case key.Matches(k, ks.Rename):
		m.ask(promptRename, c, "title: ", c.Title)
	case key.Matches(k, ks.Export):
		m.ask(promptExport, c, "export to: ", fileName(c.ID)+".md")
	case key.Matches(k, ks.CopyResume), key.Matches(k, ks.RunResume):
		run := key.Matches(k, ks.RunResume)
		return func() tea.Msg {
			h, err := svc.ResumeChat(ctx, sel)
			return resumeMsg{h: h, run: run, err: err}
		}, true
	case key.Matches(k, ks.Web):
		return m.web(c.ID), true
	}
	return nil, true
}

// curate runs one curation in a command; its answer updates the rows and the open chat.
func (m *Model) curate(op string, call func() (*annals.Chat, error)) tea.Cmd {
	m.say(op+"…", false)
	return func() tea.Msg {
		c, err := call()
		return chatMsg{op: op, chat: c, err: err}
	}
}

func (m *Model) gotChat(msg chatMsg) {
	if msg.err != nil {
		s := refusal(msg.op, msg.err)
		m.say(s.text, s.bad)
		return
	}
	c := msg.chat
	for i := range m.s.rows {
		if m.s.rows[i].chat.ID == c.ID {
			m.s.rows[i].chat = c
		}
	}
	if m.tr != nil && m.tr.chat.ID == c.ID {
		m.tr.chat = c
	}
	what := map[string]string{"pin": "pinned", "archive": "archived", "restore": "restored", "tag": "tagged", "rename": "renamed"}[msg.op]
	if msg.op == "pin" && !c.Pinned {
		what = "unpinned"
	}
	m.say(what+" "+titleOf(c), false)
}

// ask opens the prompt line for a value.
func (m *Model) ask(kind promptKind, c *annals.Chat, label, value string) {
	m.promptKind, m.promptChat = kind, c
	m.prompt.Prompt = label
	m.prompt.SetValue(value)
	m.prompt.CursorEnd()
	m.prompt.SetWidth(max(10, m.width-len(label)-2))
	m.prompt.Focus()
}

func (m *Model) closePrompt() {
	m.promptKind, m.promptChat, m.confirm = promptNone, nil, nil
	m.prompt.Blur()
}

// promptKey edits the prompt; enter submits it, esc cancels.
func (m *Model) promptKey(k tea.KeyPressMsg) tea.Cmd {
	if m.promptKind == promptRun {
		h := m.confirm
		m.closePrompt()
		if k.String() == "y" || k.String() == "Y" {
			m.result.Resume = h
			return m.quit()
		}
		m.say("not run", false)
		return nil
	}
	switch k.String() {
	case "esc":
		m.closePrompt()
		m.say("cancelled", false)
		return nil
	case "enter":
		return m.submit()
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(k)
	return cmd
}

// submit acts on the prompt's value.
func (m *Model) submit() tea.Cmd {
	kind, c, v := m.promptKind, m.promptChat, strings.TrimSpace(m.prompt.Value())
	m.closePrompt()
	svc, ctx := m.opts.Service, m.opts.Context
	switch kind {
	case promptFilter:
		f, rank, err := parseFilter(v)
		if err != nil {
			m.say("filter: "+oneLine(annals.ErrorMessage(err)), true)
			m.ask(promptFilter, nil, "filter: ", v)
			return nil
		}
		f.IncludeArchived = f.IncludeArchived || m.s.filter.IncludeArchived // a keeps its toggle
		m.s.filter, m.s.filterText, m.s.filterInput = f, v, v
		if rank != "" {
			m.s.rank = rank
		}
		return m.search(0)
	case promptTag:
		sel := annals.ChatSelector{Scope: m.opts.Scope, ID: c.ID}
		tags := strings.Fields(v)
		if tags == nil {
			tags = []string{}
		}
		return m.curate("tag", func() (*annals.Chat, error) {
			return svc.AnnotateChat(ctx, sel, annals.Annotation{Tags: &tags})
		})
	case promptRename:
		sel := annals.ChatSelector{Scope: m.opts.Scope, ID: c.ID}
		return m.curate("rename", func() (*annals.Chat, error) { return svc.RenameChat(ctx, sel, v) })
	case promptExport:
		return m.export(c, v)
	}
	return nil
}

// export writes the chat's Markdown export to path (relative to Options.Dir); it never
// overwrites a file.
func (m *Model) export(c *annals.Chat, path string) tea.Cmd {
	if path == "" {
		m.say("export: give a file name", true)
		return nil
	}
	if !filepath.IsAbs(path) && m.opts.Dir != "" {
		path = filepath.Join(m.opts.Dir, path)
	}
	sel := annals.ChatSelector{Scope: m.opts.Scope, ID: c.ID}
	svc, ctx := m.opts.Service, m.opts.Context
	m.say("exporting…", false)
	return func() tea.Msg {
		v, err := svc.GetChat(ctx, annals.GetParams{Chat: sel, Format: annals.FormatMarkdown})
		if err != nil {
			return refusal("export", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return statusMsg{text: "export: " + oneLine(path) + " exists; give another name (nothing is overwritten)", bad: true}
		}
		if err != nil {
			return statusMsg{text: "export: " + oneLine(err.Error()), bad: true}
		}
		_, err = f.WriteString(v.Markdown)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return statusMsg{text: "export: " + oneLine(err.Error()), bad: true}
		}
		return statusMsg{text: fmt.Sprintf("exported %s to %s", titleOf(v.Chat), oneLine(path))}
	}
}

// gotResume copies the resume command (OSC 52) or asks to run it.
func (m *Model) gotResume(msg resumeMsg) tea.Cmd {
	if msg.err != nil {
		s := refusal("resume", msg.err)
		m.say(s.text, true)
		return nil
	}
	line := msg.h.ShellLine()
	if line == "" {
		m.say("no tool command continues this chat: "+oneLine(msg.h.Hint), true)
		return nil
	}
	if msg.run {
		m.confirm = msg.h
		m.promptKind = promptRun
		return nil
	}
	m.say("copied: "+oneLine(line), false)
	return tea.SetClipboard(line)
}

// web opens the chat in the web UI of a running server, or says why it cannot.
func (m *Model) web(id string) tea.Cmd {
	if m.opts.WebURL == nil {
		m.say("web: no server is known (run annals serve, or browse with --server URL)", true)
		return nil
	}
	ctx, find, open := m.opts.Context, m.opts.WebURL, m.opts.OpenURL
	return func() tea.Msg {
		u, err := find(ctx, id)
		if err != nil {
			return statusMsg{text: "web: " + oneLine(annals.ErrorMessage(err)), bad: true}
		}
		if open != nil && open(u) == nil {
			return statusMsg{text: "opened " + oneLine(u)}
		}
		return webMsg{url: u}
	}
}

// webMsg is a web UI address no browser could open: it goes to the clipboard instead.
type webMsg struct{ url string }

func (m *Model) gotWeb(msg webMsg) tea.Cmd {
	m.say("copied "+oneLine(msg.url)+" (no browser to open it)", false)
	return tea.SetClipboard(msg.url)
}

// fileName is a chat id as a file name: characters a file name should not hold become '-'.
func fileName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < 0x20 || r == 0x7f {
			return '-'
		}
		return r
	}, id)
}

// titleOf is a chat's title for the status line, quoted and safe.
func titleOf(c *annals.Chat) string {
	if c == nil {
		return ""
	}
	t := c.Title
	if t == "" {
		t = c.ID
	}
	return "“" + clip(oneLine(t), 40) + "”"
}
