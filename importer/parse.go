package importer

import (
	"context"
	"fmt"
	"os"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Parsed is everything one format read from one source, without a store: for tests, and for
// looking at what an import would write.
type Parsed struct {
	// Ops are the capture ops in the order emitted.
	Ops []annals.CaptureOp
	// Chats are the chats in the order first emitted (a chat emitted twice appears once).
	Chats []*annals.Chat
	// Entries are each chat's transcript as a store would hold it: entries in order, an id
	// already present skipped, truncations applied.
	Entries map[string][]*annals.Entry
	// Titles maps a source id to the title given to the chat holding it.
	Titles map[string]string
	// ChatTitles maps a chat id to the first title given to it with TitleForChat.
	ChatTitles map[string]string
	// Warnings are the lines or records skipped.
	Warnings []Warning
}

// Parse reads the source at path with format f, from the start, and returns what it emitted.
// Entries pass the same validation and size fitting as in an import.
func Parse(ctx context.Context, f reader.Format, path string) (*Parsed, error) {
	src, fi, err := statSource(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	p := &Parsed{Entries: map[string][]*annals.Entry{}, Titles: map[string]string{}, ChatTitles: map[string]string{}}
	c := &collector{p: p, src: src, seen: map[string]map[string]bool{}, chats: map[string]bool{}, resumers: resumers(Formats())}
	switch fp := f.(type) {
	case reader.LineParser:
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory; format %s reads files", path, f.Name())
		}
		sess, err := fp.NewSession(src, nil)
		if err != nil {
			return nil, err
		}
		fh, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", path, err)
		}
		defer fh.Close()
		if err := reader.EachLine(ctx, fh, func(n int, line []byte) error {
			c.line = n
			return sess.Line(ctx, n, line, c)
		}, c.Warnf); err != nil {
			return nil, err
		}
		if err := sess.Finish(ctx, c); err != nil {
			return nil, err
		}
	case reader.FileParser:
		if err := fp.ParseFile(ctx, src, c); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("format %s implements neither LineParser nor FileParser", f.Name())
	}
	return p, nil
}

// ParseBytes runs a line format over data, as the fuzz tests of line parsers do: every line,
// then Finish. It never touches a file.
func ParseBytes(ctx context.Context, f reader.LineParser, path string, data []byte) (*Parsed, error) {
	src := &reader.Source{Path: path, Size: int64(len(data))}
	p := &Parsed{Entries: map[string][]*annals.Entry{}, Titles: map[string]string{}, ChatTitles: map[string]string{}}
	c := &collector{p: p, src: src, seen: map[string]map[string]bool{}, chats: map[string]bool{}, resumers: resumers(Formats())}
	sess, err := f.NewSession(src, nil)
	if err != nil {
		return nil, err
	}
	start, n := 0, 0
	for i := 0; i <= len(data); i++ {
		if i < len(data) && data[i] != '\n' {
			continue
		}
		if i == len(data) && start == i {
			break
		}
		n++
		c.line = n
		if err := sess.Line(ctx, n, reader.TrimEOL(data[start:i]), c); err != nil {
			return nil, err
		}
		start = i + 1
	}
	if err := sess.Finish(ctx, c); err != nil {
		return nil, err
	}
	return p, nil
}

// collector is the Output of Parse.
type collector struct {
	p     *Parsed
	src   *reader.Source
	line  int
	seen  map[string]map[string]bool
	chats map[string]bool
	// resumers are the registry's, by name (see withResume).
	resumers map[string]reader.Resumer
}

func (c *collector) Emit(op annals.CaptureOp) error {
	c.p.Ops = append(c.p.Ops, op)
	switch {
	case op.Chat != nil:
		if !c.chats[op.Chat.ID] {
			c.chats[op.Chat.ID] = true
			ch := *op.Chat
			if ch.TenantID == "" {
				ch.TenantID = "local"
			}
			ch.Attributes = withResume(c.resumers, &ch)
			if err := ch.Validate(); err != nil {
				c.Warnf(c.line, "chat %s not imported: %s", ch.ID, annals.ErrorMessage(err))
			}
			c.p.Chats = append(c.p.Chats, &ch)
		}
	case op.Append != nil:
		id := op.Append.ChatID
		if c.seen[id] == nil {
			c.seen[id] = map[string]bool{}
		}
		for _, e := range op.Append.Entries {
			fitEntry(e)
			e.ChatID = id
			if err := e.Validate(); err != nil {
				c.Warnf(c.line, "entry %s not imported: %s", e.ID, annals.ErrorMessage(err))
				continue
			}
			if c.seen[id][e.ID] {
				continue
			}
			c.seen[id][e.ID] = true
			e.Seq = int64(len(c.p.Entries[id]) + 1)
			c.p.Entries[id] = append(c.p.Entries[id], e)
		}
	case op.Truncate != nil:
		id := op.Truncate.ChatID
		es := c.p.Entries[id]
		pt := op.Truncate.Point
		for i, e := range es {
			hit := (pt.EntryID != "" && e.ID == pt.EntryID) || (pt.Seq != 0 && e.Seq == pt.Seq)
			for _, s := range e.SourceIDs {
				if pt.SourceID != "" && s == pt.SourceID {
					hit = true
				}
			}
			if hit {
				for _, gone := range es[i:] {
					delete(c.seen[id], gone.ID)
				}
				c.p.Entries[id] = es[:i]
				break
			}
		}
	}
	return nil
}

func (c *collector) TitleBySourceID(sourceID, title string) { c.p.Titles[sourceID] = title }

func (c *collector) TitleForChat(chatID, title string) {
	if _, ok := c.p.ChatTitles[chatID]; !ok {
		c.p.ChatTitles[chatID] = title
	}
}

func (c *collector) Warnf(line int, format string, args ...any) {
	c.p.Warnings = append(c.p.Warnings, Warning{Path: c.src.Path, Line: line, Message: fmt.Sprintf(format, args...)})
}
