package markdown

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/annals-dev/annals"
)

// Parse reads a Markdown export written by Render and returns the chat, its runs and its entries
// exactly as they were rendered. A document that is truncated, edited inside a
// content part, converted to other line endings or not an annals export is refused with an
// annals.Error of code annals.EINVALID that names the line where it stopped matching.
//
// Parse reads the whole document into memory; declared lengths are checked against what is
// there, so a forged length cannot make it allocate more than the input's size.
func Parse(r io.Reader) (*Export, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("markdown: read export: %w", err)
	}
	p := &parser{data: data, line: 1}
	return p.document()
}

// parser walks a document held in memory. pos is the next unread byte and line its 1-based
// line number; last is the number of the line readLine returned last. Both are kept for error
// messages.
type parser struct {
	data []byte
	pos  int
	line int
	last int
}

// invalid builds the error for a document that does not match the layout, at the line last
// read. cause, when set, is wrapped so callers can inspect it with errors.As.
func (p *parser) invalid(cause error, format string, args ...any) error {
	line := p.last
	if line == 0 {
		line = p.line
	}
	msg := fmt.Sprintf("markdown export: line %d: %s", line, fmt.Sprintf(format, args...))
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &annals.Error{Code: annals.EINVALID, Message: msg, Err: cause}
}

// readLine returns the next line without its "\n". ok is false at the end of the data. The
// last line may lack its newline (editors often drop it).
func (p *parser) readLine() (line string, ok bool) {
	if p.pos >= len(p.data) {
		return "", false
	}
	p.last = p.line
	rest := p.data[p.pos:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		p.pos = len(p.data)
		return string(rest), true
	}
	p.pos += i + 1
	p.line++
	return string(rest[:i]), true
}

// expectLine reads a line and checks that it equals want.
func (p *parser) expectLine(want, what string) error {
	line, ok := p.readLine()
	if !ok {
		return p.invalid(nil, "document ends where %s was expected (truncated?)", what)
	}
	if line != want {
		return p.invalid(nil, "want %s %q, got %.60q", what, want, line)
	}
	return nil
}

// block skips a run of non-empty display lines (a heading, a header list) and the blank line
// that ends it. The first line must start with prefix, which catches a document whose content
// lengths no longer match before the error spreads.
func (p *parser) block(prefix, what string) error {
	first, ok := p.readLine()
	if !ok {
		return p.invalid(nil, "document ends where the %s was expected (truncated?)", what)
	}
	if !strings.HasPrefix(first, prefix) {
		return p.invalid(nil, "want the %s (a line starting with %q), got %.60q", what, prefix, first)
	}
	for {
		line, ok := p.readLine()
		if !ok {
			return p.invalid(nil, "document ends inside the %s (truncated?)", what)
		}
		if line == "" {
			return nil
		}
	}
}

// content reads exactly n bytes of a content part and the newline that Render adds after
// content that does not end with one.
func (p *parser) content(n int64, what string) (string, error) {
	p.last = p.line // errors below are about the part, which starts here
	if n < 0 {
		return "", p.invalid(nil, "%s has a negative length %d", what, n)
	}
	if n > int64(len(p.data)-p.pos) {
		return "", p.invalid(nil, "%s is declared as %d bytes but only %d remain (truncated?)", what, n, len(p.data)-p.pos)
	}
	b := p.data[p.pos : p.pos+int(n)]
	p.pos += int(n)
	p.line += bytes.Count(b, []byte("\n"))
	if n == 0 || b[n-1] != '\n' {
		if p.pos >= len(p.data) || p.data[p.pos] != '\n' {
			return "", p.invalid(nil, "want a line break after the %d bytes of %s (edited or truncated?)", n, what)
		}
		p.pos++
		p.line++
	}
	return string(b), nil
}

// fenced reads a part written by writeFenced: optional label line, opening fence, n bytes,
// closing fence equal to the opening one, blank line.
func (p *parser) fenced(label string, n int64, what string) (string, error) {
	if label != "" {
		if err := p.expectLine(label, "the label of "+what); err != nil {
			return "", err
		}
	}
	open, ok := p.readLine()
	if !ok {
		return "", p.invalid(nil, "document ends where the fence of %s was expected (truncated?)", what)
	}
	ticks := 0
	for ticks < len(open) && open[ticks] == '`' {
		ticks++
	}
	if ticks < 3 || strings.Contains(open[ticks:], "`") {
		return "", p.invalid(nil, "want the opening fence of %s, got %.60q", what, open)
	}
	s, err := p.content(n, what)
	if err != nil {
		return "", err
	}
	if err := p.expectLine(open[:ticks], "the closing fence of "+what); err != nil {
		return "", err
	}
	return s, p.expectLine("", "a blank line after "+what)
}

// prose reads a part written by writeProse: raw content then a blank line, or a fenced part.
func (p *parser) prose(n int64, fenced bool, what string) (string, error) {
	if fenced {
		return p.fenced("", n, what)
	}
	s, err := p.content(n, what)
	if err != nil {
		return "", err
	}
	return s, p.expectLine("", "a blank line after "+what)
}

// comment parses a marker line: prefix, JSON object, suffix.
func (p *parser) comment(line, prefix, what string, v any) error {
	if strings.HasSuffix(line, markerSuffix+"\r") {
		return p.invalid(nil, "the %s line ends with \\r: the export's line endings were converted (to CRLF?), which changes its byte lengths", what)
	}
	if !strings.HasSuffix(line, markerSuffix) || len(line) < len(prefix)+len(markerSuffix) {
		return p.invalid(nil, "the %s line does not end with %q", what, markerSuffix)
	}
	if err := decodeComment([]byte(line[len(prefix):len(line)-len(markerSuffix)]), v); err != nil {
		return p.invalid(err, "bad %s JSON", what)
	}
	return nil
}

func (p *parser) document() (*Export, error) {
	// Tolerate a byte order mark and leading blank lines, which some editors and pipes add.
	if bytes.HasPrefix(p.data, []byte("\uFEFF")) {
		p.pos = len("\uFEFF")
	}
	var line string
	for {
		var ok bool
		line, ok = p.readLine()
		if !ok {
			return nil, p.invalid(nil, "no %q line: not an annals Markdown export", strings.TrimSpace(chatPrefix))
		}
		if strings.TrimSpace(line) != "" {
			break
		}
	}
	if !strings.HasPrefix(line, chatPrefix) {
		return nil, p.invalid(nil, "want the %q line first, got %.60q: not an annals Markdown export", strings.TrimSpace(chatPrefix), line)
	}
	var cc chatComment
	if err := p.comment(line, chatPrefix, "chat comment", &cc); err != nil {
		return nil, err
	}
	if cc.V != formatVersion {
		return nil, p.invalid(nil, "export format version %d is not supported (want %d)", cc.V, formatVersion)
	}
	out := &Export{Chat: annals.Chat{
		ID:               cc.ID,
		TenantID:         cc.TenantID,
		UserID:           cc.UserID,
		AgentID:          cc.AgentID,
		Attributes:       cc.Attributes,
		CreatedAt:        cc.CreatedAt,
		LastActivity:     cc.LastActivity,
		Status:           cc.Status,
		Title:            cc.Title,
		Tags:             cc.Tags,
		Pinned:           cc.Pinned,
		ArchivedAt:       cc.ArchivedAt,
		SummaryUpdatedAt: cc.SummaryUpdatedAt,
		Totals:           cc.Totals,
	}}
	if err := p.block("# ", "title heading"); err != nil {
		return nil, err
	}
	if err := p.block("- ", "header list"); err != nil {
		return nil, err
	}
	var err error
	if cc.DescriptionBytes != 0 {
		if out.Chat.Description, err = p.prose(cc.DescriptionBytes, cc.DescriptionFenced, "the description"); err != nil {
			return nil, err
		}
	}
	if cc.SummaryBytes != 0 {
		if err := p.block("## Summary", "summary heading"); err != nil {
			return nil, err
		}
		if out.Chat.Summary, err = p.prose(cc.SummaryBytes, cc.SummaryFenced, "the summary"); err != nil {
			return nil, err
		}
	}

	if err := p.body(out); err != nil {
		return nil, err
	}
	return out, nil
}

// body reads what follows the chat's header: the runs section and display lines, the entries
// and the end marker, into out.
func (p *parser) body(out *Export) error {
	// Between the header and the first entry come the runs section and display lines (the runs
	// heading, the transcript heading), which are skipped up to the first marker line. An
	// export written before runs had comment lines has only the table there, skipped like any
	// display line. After the first entry nothing but blank lines may separate markers.
	for {
		line, ok := p.readLine()
		if !ok {
			return p.invalid(nil, "document ends before its %q line (truncated?)", strings.TrimSpace(endPrefix))
		}
		switch {
		case strings.HasPrefix(line, runPrefix) && len(out.Entries) == 0:
			if out.Runs != nil {
				return p.invalid(nil, "a second runs section (edited?)")
			}
			var err error
			if out.Runs, err = p.runs(line, &out.Chat); err != nil {
				return err
			}
		case strings.HasPrefix(line, entryPrefix):
			e, err := p.entry(line, &out.Chat, len(out.Entries))
			if err != nil {
				return err
			}
			out.Entries = append(out.Entries, e)
		case strings.HasPrefix(line, endPrefix):
			var ec endComment
			if err := p.comment(line, endPrefix, "end marker", &ec); err != nil {
				return err
			}
			if ec.Entries != len(out.Entries) {
				return p.invalid(nil, "the end marker counts %d entries but the document holds %d", ec.Entries, len(out.Entries))
			}
			if rest := p.data[p.pos:]; len(bytes.TrimSpace(rest)) > 0 {
				return p.invalid(nil, "unexpected content after the end marker")
			}
			return nil
		case len(out.Entries) > 0 && line != "":
			return p.invalid(nil, "want an entry or the end marker, got %.60q (edited, or a content length no longer matches?)", line)
		}
	}
}

// entry parses one entry: its comment line (already read), heading block and content parts.
func (p *parser) entry(line string, chat *annals.Chat, i int) (*annals.Entry, error) {
	what := fmt.Sprintf("entry %d comment", i+1)
	var ec entryComment
	if err := p.comment(line, entryPrefix, what, &ec); err != nil {
		return nil, err
	}
	e := &annals.Entry{
		ChatID:        chat.ID,
		ID:            ec.ID,
		Seq:           ec.Seq,
		Kind:          ec.Kind,
		RunID:         ec.RunID,
		SourceIDs:     ec.SourceIDs,
		Channel:       ec.Channel,
		CorrelationID: ec.CorrelationID,
		Time:          ec.Time,
		InputTokens:   ec.InputTokens,
		OutputTokens:  ec.OutputTokens,
	}
	if ec.ChatID != nil {
		e.ChatID = *ec.ChatID
	}
	switch {
	case ec.Metadata != nil && ec.MetadataBase64 != nil:
		return nil, p.invalid(nil, "%s has both metadata and metadata_base64", what)
	case ec.Metadata != nil:
		e.Metadata = json.RawMessage(*ec.Metadata)
	case ec.MetadataBase64 != nil:
		e.Metadata = json.RawMessage(ec.MetadataBase64)
	}
	if err := p.block("### ", fmt.Sprintf("heading of entry %d", i+1)); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("entry %d", i+1)
	var err error
	if ec.ReasoningBytes != 0 {
		if e.Reasoning, err = p.fenced("**Reasoning**", ec.ReasoningBytes, "the reasoning of "+name); err != nil {
			return nil, err
		}
	}
	if ec.TextBytes != 0 {
		if e.Text, err = p.prose(ec.TextBytes, ec.TextFenced, "the text of "+name); err != nil {
			return nil, err
		}
	}
	if t := ec.Tool; t != nil {
		e.Tool = &annals.ToolCall{Name: t.Name, CallID: t.CallID, Outcome: t.Outcome}
		if t.ArgumentsBytes != 0 {
			args, err := p.fenced("**Arguments**", t.ArgumentsBytes, "the arguments of "+name)
			if err != nil {
				return nil, err
			}
			e.Tool.Arguments = json.RawMessage(args)
			if t.ArgumentsIndented {
				var compact bytes.Buffer
				if err := json.Compact(&compact, []byte(args)); err != nil {
					return nil, p.invalid(err, "the indented arguments of %s are not valid JSON", name)
				}
				e.Tool.Arguments = compact.Bytes()
			}
		}
		if t.ResultBytes != 0 {
			if e.Tool.Result, err = p.fenced("**Result**", t.ResultBytes, "the result of "+name); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}
