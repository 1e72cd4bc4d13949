// Package aider reads the histories of Aider for annals import (docs/IMPORT.md): one reader behind
// the importer/reader contracts (detect, default locations, read), listed in importer.Formats.
package aider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Aider reads Aider's chat history, .aider.chat.history.md, which Aider appends to in the root
// of each repository it runs in. A "# aider chat started at <time>" header starts a session,
// which becomes one chat, "aider:<hash of the file's path>:<start time>". Inside a session,
// "#### " lines are what the person typed, "> " lines are Aider's own output (commands, token
// and cost reports, commits, lint and test output), and all other lines are the model's reply.
//
// The file is append-only, so it is read incrementally like a JSON Lines file. A block (a run
// of lines of one kind) is emitted when the next block starts; the file can be checkpointed at
// the first line of each block.
type Aider struct{}

func (Aider) Name() string { return "aider" }

// ResumeCommand: Aider keeps no session ids; `aider --restore-chat-history`, run in the
// repository, loads the history file back.
func (Aider) ResumeCommand(native string) (string, string, bool) {
	return reader.ResumeWith("aider --restore-chat-history", native)
}

const aiderFile = ".aider.chat.history.md"

func (Aider) DefaultPaths(home string) []string {
	// Aider writes into each repository, so there is no single folder: the home directory and
	// three levels of folders below it (~/src/project, ~/code/org/project) cover the usual
	// layouts without walking all of home.
	return []string{
		filepath.Join(home, aiderFile),
		filepath.Join(home, "*", aiderFile),
		filepath.Join(home, "*", "*", aiderFile),
		filepath.Join(home, "*", "*", "*", aiderFile),
	}
}

func (Aider) Detect(path string, head []byte) bool {
	base := filepath.Base(path)
	if base == aiderFile || strings.HasSuffix(base, ".chat.history.md") {
		return true
	}
	return strings.EqualFold(filepath.Ext(path), ".md") && bytes.Contains(head, []byte("# aider chat started at "))
}

type adKind byte

const (
	adNone adKind = iota
	adUser
	adOutput
	adReply
)

// adState is what an Aider history needs to resume at the first line of a block.
type adState struct {
	Chat    string    `json:"chat,omitempty"`
	Created bool      `json:"created,omitempty"`
	Start   time.Time `json:"start,omitempty"`
	Header  string    `json:"header,omitempty"`
	Dup     int       `json:"dup,omitempty"`
	Blocks  int       `json:"blocks,omitempty"`
	Model   string    `json:"model,omitempty"`
	Kind    adKind    `json:"kind,omitempty"`
	Lines   []string  `json:"lines,omitempty"`
	Line    int       `json:"line,omitempty"`    // the line the open block started on
	Fence   bool      `json:"fence,omitempty"`   // the open reply is inside a ``` fence
	Started bool      `json:"started,omitempty"` // a header has been seen
	// Found is the file's modification time when its first line was read. A file without
	// any header is dated by it, and since the state keeps it, touching the file later does
	// not move the chat's time.
	Found time.Time `json:"found,omitempty"`
}

type adSession struct {
	src     *reader.Source
	pathKey string
	st      adState
	pending []annals.CaptureOp
}

func (Aider) NewSession(src *reader.Source, state json.RawMessage) (reader.LineSession, error) {
	s := &adSession{src: src, pathKey: reader.ShortHash(src.Path)[:12]}
	if state != nil {
		if err := json.Unmarshal(state, &s.st); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var (
	adHeader = regexp.MustCompile(`^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$`)
	adModels = regexp.MustCompile(`^(?:Main )?[Mm]odels?: (\S+)`)
	adTokens = regexp.MustCompile(`^Tokens: ([\d.,]+)([kKmM]?) sent(?:, [\d.,]+[kKmM]? cache \w+)*(?:, ([\d.,]+)([kKmM]?) received)?`)
	adCost   = regexp.MustCompile(`Cost: \$([\d.]+) (?:message|request)`)
)

func (s *adSession) Line(ctx context.Context, n int, raw []byte, out reader.Output) error {
	line := strings.TrimRight(reader.ValidText(string(raw)), " \t")
	if s.st.Found.IsZero() && !s.st.Started {
		s.st.Found = s.src.ModTime.UTC()
	}
	if m := adHeader.FindStringSubmatch(line); m != nil {
		s.endBlock()
		if s.st.Chat == "" && len(s.pending) > 0 {
			// The file began inside a session: that part is dated by the first header.
			s.datePreamble(m[1])
		}
		s.startChat(m[1])
		return s.emit(out)
	}
	kind, text := adReply, line
	switch {
	case s.st.Kind == adReply && s.st.Fence:
		// Inside a code fence of a reply (a SEARCH/REPLACE edit): everything is the reply's.
	case strings.HasPrefix(line, "####"):
		kind, text = adUser, strings.TrimPrefix(strings.TrimPrefix(line, "####"), " ")
	case line == ">" || strings.HasPrefix(line, "> "):
		kind, text = adOutput, strings.TrimPrefix(strings.TrimPrefix(line, ">"), " ")
	case strings.TrimSpace(line) == "":
		if s.st.Kind == adNone {
			return nil
		}
		kind = s.st.Kind // a blank line continues the open block
	}
	if kind != s.st.Kind {
		s.endBlock()
		s.st.Kind, s.st.Line = kind, n
	}
	s.st.Lines = append(s.st.Lines, text)
	if kind == adReply && strings.HasPrefix(strings.TrimSpace(text), "```") {
		s.st.Fence = !s.st.Fence
	}
	return s.emit(out)
}

// startChat begins a session at its header time (local time of the machine that wrote it,
// which the file does not record; it is read as UTC).
func (s *adSession) startChat(stamp string) {
	t, _ := time.Parse("2006-01-02 15:04:05", stamp)
	if stamp == s.st.Header {
		s.st.Dup++ // two sessions started in the same second
	} else {
		s.st.Header, s.st.Dup = stamp, 0
	}
	key := strings.NewReplacer(" ", "T", ":", "-").Replace(stamp)
	if s.st.Dup > 0 {
		key += fmt.Sprintf(".%d", s.st.Dup)
	}
	s.st.Chat = reader.ChatID("aider", s.pathKey+":"+key)
	s.st.Started = true
	s.st.Created, s.st.Start, s.st.Blocks, s.st.Model = false, t.UTC(), 0, ""
}

// ensureChat creates the current chat (the part of the file before its first header is a
// session of its own).
func (s *adSession) ensureChat() {
	if s.st.Chat == "" {
		s.st.Chat = reader.ChatID("aider", s.pathKey+":start")
	}
	if s.st.Created {
		return
	}
	s.st.Created = true
	attrs := annals.Attributes{"source": "aider", "cwd": filepath.Dir(s.src.Path)}
	if s.st.Model != "" {
		attrs["model"] = s.st.Model
	}
	s.pending = append(s.pending, annals.CaptureOp{Chat: &annals.Chat{ID: s.st.Chat, Attributes: attrs, CreatedAt: s.st.Start}})
}

// endBlock turns the open block into an entry (and a run for a token report).
func (s *adSession) endBlock() {
	if s.st.Kind == adNone {
		return
	}
	kind, lines := s.st.Kind, s.st.Lines
	s.st.Kind, s.st.Lines, s.st.Fence = adNone, nil, false
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	if text == "" {
		return
	}
	var runs []*annals.Run
	if kind == adOutput {
		for _, l := range lines {
			if m := adModels.FindStringSubmatch(strings.TrimSpace(l)); m != nil && s.st.Model == "" {
				s.st.Model = m[1]
			}
		}
	}
	// The start-up output names the model; it is the first block, so the chat created for it
	// knows the model.
	s.ensureChat()
	s.st.Blocks++
	id := fmt.Sprintf("b%d", s.st.Blocks)
	e := &annals.Entry{ID: id, Time: s.st.Start, Text: text}
	switch kind {
	case adUser:
		e.Kind = annals.KindUser
	case adReply:
		e.Kind = annals.KindAssistant
	default:
		e.Kind = annals.KindSystem
		e.Metadata = reader.Metadata(map[string]any{"aider_output": true})
		for _, l := range lines {
			if run := s.tokens(strings.TrimSpace(l), id); run != nil {
				runs = append(runs, run)
			}
		}
	}
	for _, r := range runs {
		s.pending = append(s.pending, annals.CaptureOp{Run: r})
	}
	s.pending = append(s.pending, annals.CaptureOp{Append: &annals.AppendOp{ChatID: s.st.Chat, Entries: []*annals.Entry{e}}})
}

// tokens reads a "Tokens: 2.3k sent, 193 received. Cost: $0.01 message, ..." report.
func (s *adSession) tokens(line, blockID string) *annals.Run {
	m := adTokens.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	run := &annals.Run{ID: reader.SafeID(s.st.Chat+"/"+blockID, annals.MaxIDBytes), ChatID: s.st.Chat, Status: annals.StatusCompleted,
		StartedAt: s.st.Start, InputTokens: adCount(m[1], m[2]), OutputTokens: adCount(m[3], m[4])}
	if s.st.Model != "" {
		run.Model = reader.SafeID(s.st.Model, annals.MaxIDBytes)
	}
	if c := adCost.FindStringSubmatch(line); c != nil {
		run.CostUSD, _ = strconv.ParseFloat(c[1], 64)
	}
	return run
}

func adCount(num, unit string) int64 {
	f, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil || f < 0 {
		return 0
	}
	switch unit {
	case "k", "K":
		f *= 1e3
	case "m", "M":
		f *= 1e6
	}
	return int64(f)
}

// datePreamble gives the chat of the lines before the first header the time of that header,
// the latest it can have started.
func (s *adSession) datePreamble(stamp string) {
	t, _ := time.Parse("2006-01-02 15:04:05", stamp)
	for _, op := range s.pending {
		if op.Chat != nil {
			op.Chat.CreatedAt = t.UTC()
		}
		if op.Append != nil {
			for _, e := range op.Append.Entries {
				e.Time = t.UTC()
			}
		}
		if op.Run != nil {
			op.Run.StartedAt = t.UTC()
		}
	}
}

func (s *adSession) emit(out reader.Output) error {
	if s.st.Chat == "" || strings.HasSuffix(s.st.Chat, ":start") && !s.st.Started {
		// Before the first header nothing is emitted: its time is not known yet.
		return nil
	}
	for _, op := range s.pending {
		if err := out.Emit(op); err != nil {
			return err
		}
	}
	s.pending = nil
	return nil
}

// Settled is true at the first line of a block: the blocks before it are emitted and the open
// block holds one line, which the state carries.
func (s *adSession) Settled() bool { return len(s.pending) == 0 && len(s.st.Lines) <= 1 }

func (s *adSession) State() (json.RawMessage, error) { return json.Marshal(s.st) }

func (s *adSession) Finish(ctx context.Context, out reader.Output) error {
	s.endBlock()
	if !s.st.Started && len(s.pending) > 0 {
		// No header at all: Aider wrote no time into the file, so it is dated by its
		// modification time when it was first read (kept in the state).
		found := s.st.Found
		if found.IsZero() {
			found = s.src.ModTime.UTC()
		}
		s.datePreamble(found.Format("2006-01-02 15:04:05"))
		s.st.Started = true
	}
	return s.emit(out)
}
