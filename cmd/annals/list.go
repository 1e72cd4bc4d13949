package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/annals-dev/annals"
)

// filterFlags are the list filters shared by list and search.
type filterFlags struct {
	scope, status, from, to, tag, agent, title, cursor *string
	attrs                                              *multiFlag
	limit, offset                                      *int
	pinned, archived                                   *bool
}

func addFilterFlags(fs *pflag.FlagSet) *filterFlags {
	f := &filterFlags{
		scope:    fs.String("scope", "", "whose chats: self, user, tenant or global (default: the widest this caller may use)"),
		status:   fs.String("status", "", "only chats with this status (running, awaiting_input, completed, failed, cancelled)"),
		from:     fs.String("from", "", "only chats active at or after this time: a date (2025-03-14, from the start of that day, UTC) or an RFC3339 time"),
		to:       fs.String("to", "", "only chats active at or before this time: a date (2025-03-14, to the end of that day, UTC) or an RFC3339 time"),
		tag:      fs.String("tag", "", "only chats with this exact tag"),
		agent:    fs.String("agent", "", "only chats of this agent"),
		title:    fs.String("title", "", "only chats whose title contains this text (case-insensitive)"),
		cursor:   fs.String("cursor", "", "continue from a previous page's next_cursor"),
		attrs:    &multiFlag{},
		limit:    fs.Int("limit", annals.DefaultListLimit, fmt.Sprintf("rows to show (at most %d)", annals.MaxListLimit)),
		offset:   fs.Int("offset", 0, "rows to skip"),
		pinned:   fs.Bool("pinned", false, "only pinned chats"),
		archived: fs.Bool("archived", false, "include archived chats"),
	}
	fs.Var(f.attrs, "attr", "attribute filter, repeatable: key=value (exact) or key~=text (contains)")
	return f
}

// listParams is the typed list these flags ask for.
func (f *filterFlags) listParams() (annals.ListParams, error) {
	q, pg, err := f.query()
	return annals.ListParams{Scope: annals.Scope(*f.scope), Filter: q, Page: pg}, err
}

// query is the typed filter and paging these flags ask for: a bad --attr is a usage error; a
// bad status or time is refused by the root's parsers, so it reads the same here as over HTTP
// (status first, then from, then to, as the op envelope checks them).
func (f *filterFlags) query() (annals.ChatQuery, annals.PageParams, error) {
	q := annals.ChatQuery{Tag: *f.tag, Agent: *f.agent, TitleContains: *f.title, PinnedOnly: *f.pinned, IncludeArchived: *f.archived}
	pg := annals.PageParams{Limit: *f.limit, Offset: *f.offset, Cursor: *f.cursor}
	for _, a := range *f.attrs {
		m := annals.AttrMatch{Contains: true}
		k, v, ok := strings.Cut(a, "~=")
		if !ok || k == "" {
			m.Contains = false
			if k, v, ok = strings.Cut(a, "="); !ok || k == "" {
				return q, pg, usagef("--attr %q: want key=value (exact) or key~=text (contains)", a)
			}
		}
		m.Value = v
		if q.Attributes == nil {
			q.Attributes = map[string]annals.AttrMatch{}
		}
		q.Attributes[k] = m
	}
	err := q.ParseBounds(*f.status, *f.from, *f.to)
	return q, pg, err
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
func (m *multiFlag) Type() string       { return "key=value" }

func runList(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("list", "[flags]", "List chats, pinned first, then by most recent activity.")
	c := readFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON: {chats, total, limit, offset, next_cursor, scope}")
	ff := addFilterFlags(fs)
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("list takes no arguments, got %q", fs.Arg(0))
	}
	params, err := ff.listParams()
	if err != nil {
		return invalidIsUsage(err)
	}
	a, err := m.openQuery(ctx, c)
	if err != nil {
		return err
	}
	res, err := a.svc.FindChats(a.ctx, params)
	if err != nil {
		return invalidIsUsage(err)
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(res)
	}
	return writeChatPage(m.human(), res, "No chats.", m.width())
}

func writeChatPage(w io.Writer, res *annals.ChatPage, empty string, width int) error {
	if len(res.Chats) == 0 {
		fmt.Fprintln(w, empty)
		return nil
	}
	if err := writeChatTable(w, res.Chats, nil, width); err != nil {
		return err
	}
	if shown := res.Offset + len(res.Chats); shown < res.Total {
		fmt.Fprintf(w, "%d of %s shown (--offset %d or --cursor %s for more)\n", len(res.Chats), plural(res.Total, "chat", "chats"), shown, res.NextCursor)
	}
	return nil
}
