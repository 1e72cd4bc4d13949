package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/annals-dev/annals"
)

func runList(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("list", "[flags]", "List chats, pinned first, then by most recent activity.")
	db := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON: {chats, total, limit, offset}")
	limit := fs.Int("limit", annals.DefaultListLimit, fmt.Sprintf("rows to show (at most %d)", annals.MaxListLimit))
	offset := fs.Int("offset", 0, "rows to skip")
	tag := fs.String("tag", "", "only chats with this exact tag")
	agent := fs.String("agent", "", "only chats of this agent")
	status := fs.String("status", "", "only chats with this status (running, awaiting_input, completed, failed, cancelled)")
	title := fs.String("title", "", "only chats whose title contains this text (case-insensitive)")
	pinned := fs.Bool("pinned", false, "only pinned chats")
	archived := fs.Bool("archived", false, "include archived chats")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("list takes no arguments, got %q", fs.Arg(0))
	}
	f := annals.ChatFilter{
		Owner:           localOwner(),
		Limit:           *limit,
		Offset:          *offset,
		PinnedOnly:      *pinned,
		IncludeArchived: *archived,
	}
	if *tag != "" {
		f.Tag = tag
	}
	if *agent != "" {
		f.Agent = agent
	}
	if *title != "" {
		f.TitleContains = title
	}
	if *status != "" {
		st, err := annals.ParseRunStatus(*status)
		if err != nil {
			return err
		}
		f.Status = &st
	}
	store, err := m.openDB(ctx, *db, false)
	if err != nil {
		return err
	}
	chats, total, err := store.FindChats(ctx, f)
	if err != nil {
		return err
	}
	effective := annals.EffectiveLimit(*limit, annals.DefaultListLimit, annals.MaxListLimit)
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"chats": chats, "total": total, "limit": effective, "offset": *offset})
	}
	if len(chats) == 0 {
		fmt.Fprintln(m.Stdout, "No chats.")
		return nil
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSTATUS\tENTRIES\tTOKENS\tLAST ACTIVITY\tTAGS")
	for _, c := range chats {
		title := c.Title
		if c.Pinned {
			title = "* " + title
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n",
			c.ID, clip(oneLine(title), 48), orDash(string(c.Status)), c.Totals.Entries,
			humanCount(c.Totals.InputTokens+c.Totals.OutputTokens), humanTime(c.LastActivity), clip(strings.Join(c.Tags, ","), 32))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if shown := *offset + len(chats); shown < total {
		fmt.Fprintf(m.Stdout, "%d of %d chats shown (--offset %d for more)\n", len(chats), total, shown)
	}
	return nil
}

// localOwner is the owner constraint of the local owner of a database file: whoever can read
// the file already has every chat in it, so the CLI acting on a local file sees all tenants.
func localOwner() annals.Owner { return annals.Owner{AllTenants: true} }

func humanTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func humanCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprint(n)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
