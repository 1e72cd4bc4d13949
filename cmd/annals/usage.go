package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/internal/termsafe"
)

// usageGroups are the tables --by chooses; hour is the day-of-week × hour heatmap.
var usageGroups = []string{"day", "agent", "model", "tool", "hour"}

func runUsage(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("usage", "[flags]", "Sum tokens and cost over a range: per day, agent, model or source tool, with the top chats. "+
		"Costs marked ~ are estimated from the built-in price table (docs/USAGE.md).")
	c := readFlags(fs)
	scope := fs.String("scope", "", "whose chats: self, user, tenant or global (default: the widest this caller may use)")
	since := fs.String("since", "", "count runs started at or after this: a date (the whole day, in --tz) or an RFC 3339 time (default: 30 days ago)")
	until := fs.String("until", "", "count runs started at or before this: a date (the whole day, in --tz) or an RFC 3339 time (default: now)")
	by := fs.String("by", "day", "the table to print: "+strings.Join(usageGroups, ", ")+" (hour: activity by weekday and hour)")
	tz := fs.String("tz", "", "the time zone days and hours are counted in: an IANA name or UTC (default: this machine's)")
	top := fs.Int("top", 5, fmt.Sprintf("chats in each top list (at most %d; 0 hides them)", annals.MaxUsageTop))
	all := fs.Bool("all", false, "count every run, whatever its date (ignores the default 30 days)")
	asJSON := fs.Bool("json", false, "print the whole report as JSON: {totals, days, agents, models, tools, heatmap, top, pricing}")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("usage takes no arguments, got %q", fs.Arg(0))
	}
	if !slicesHas(usageGroups, *by) {
		return usagef("--by %q: want one of %s", *by, strings.Join(usageGroups, ", "))
	}
	if *top < 0 || *top > annals.MaxUsageTop {
		return usagef("--top %d: want 0 to %d", *top, annals.MaxUsageTop)
	}
	p, err := m.usageParams(*scope, *since, *until, *tz, *all)
	if err != nil {
		return invalidIsUsage(err)
	}
	p.Top = max(*top, 1)
	a, err := m.openRead(ctx, c)
	if err != nil {
		return err
	}
	rep, err := a.svc.Usage(a.ctx, p)
	if err != nil {
		return invalidIsUsage(err)
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(rep)
	}
	return writeUsage(m.human(), rep, *by, *top)
}

// usageParams reads the range in the zone: a date alone is a whole day there. Without --since
// and --all, the last 30 days.
func (m *Main) usageParams(scope, since, until, tz string, all bool) (annals.UsageParams, error) {
	if tz == "" {
		tz = m.localZone()
	}
	p, err := history.UsageRange(tz, "--since", since, "--until", until)
	if err != nil {
		return p, err
	}
	p.Scope = annals.Scope(scope)
	loc, _ := history.UsageZone(tz)
	if p.From == nil && !all {
		from := history.UsageSince(time.Now(), loc, 30)
		p.From = &from
	}
	return p, nil
}

// localZone is this machine's IANA zone name: $TZ, else the zoneinfo file /etc/localtime links
// to, else UTC.
func (m *Main) localZone() string {
	if tz := strings.TrimPrefix(m.Getenv("TZ"), ":"); tz != "" {
		if _, err := history.UsageZone(tz); err == nil {
			return tz
		}
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			if _, err := history.UsageZone(name); err == nil {
				return name
			}
		}
	}
	return "UTC"
}

func writeUsage(w io.Writer, rep *annals.UsageReport, by string, top int) error {
	span := "every run"
	if rep.From != nil || rep.To != nil {
		span = usageDay(rep.From, rep.Zone, "…") + " to " + usageDay(rep.To, rep.Zone, "now")
	}
	t := rep.Totals
	fmt.Fprintf(w, "Usage %s (%s), scope %s\n", span, rep.Zone, rep.Scope)
	cache := ""
	if t.CacheReadTokens > 0 || t.CacheCreationTokens > 0 {
		cache = fmt.Sprintf(" of which %s cache read, %s cache write", humanCount(t.CacheReadTokens), humanCount(t.CacheCreationTokens))
	}
	fmt.Fprintf(w, "%s, %s tokens (%s in%s, %s out), cost %s\n\n", plural(t.Runs, "run", "runs"), humanCount(t.Tokens()), humanCount(t.InputTokens), cache, humanCount(t.OutputTokens), usageCost(t))
	if t.Runs == 0 {
		fmt.Fprintln(w, "No runs in this range.")
		return nil
	}
	if by == "hour" {
		writeHeatmap(w, rep.Heatmap)
	} else {
		rows := map[string][]annals.UsageRow{"day": rep.Days, "agent": rep.Agents, "model": rep.Models, "tool": rep.Tools}[by]
		if err := writeColumns(w, usageColumns(strings.ToUpper(by), rows)); err != nil {
			return err
		}
	}
	if top > 0 {
		for _, l := range []struct {
			name  string
			chats []annals.UsageChat
		}{{"tokens", rep.Top.ByTokens}, {"cost", rep.Top.ByCost}, {"length", rep.Top.ByLength}} {
			fmt.Fprintf(w, "\nTop chats by %s\n", l.name)
			if err := writeColumns(w, topColumns(l.chats[:min(top, len(l.chats))])); err != nil {
				return err
			}
		}
	}
	if t.Estimated() || t.UnpricedRuns > 0 {
		fmt.Fprintln(w)
	}
	if t.Estimated() && rep.Pricing != nil {
		fmt.Fprintf(w, "~ estimated in part: runs that recorded tokens but no cost are priced from the price table of %s.\n", rep.Pricing.Snapshot)
	}
	if t.UnpricedRuns > 0 {
		fmt.Fprintf(w, "+? %s recorded tokens but no cost, for models the price table does not know (pricing.file in the config adds them).\n", plural(t.UnpricedRuns, "run", "runs"))
	}
	return nil
}

// usageDay is the date of t in zone, or open when t is nil.
func usageDay(t *time.Time, zone, open string) string {
	if t == nil {
		return open
	}
	loc, err := history.UsageZone(zone)
	if err != nil {
		loc = time.UTC
	}
	return t.In(loc).Format(time.DateOnly)
}

// usageCost is a cost as the tables show it: ~ when part of it is estimated, +? when some runs
// could not be priced.
func usageCost(f annals.UsageFigures) string {
	s := fmt.Sprintf("$%.2f", f.CostUSD)
	if f.Estimated() {
		s = "~" + s
	}
	if f.UnpricedRuns > 0 {
		s += "+?"
	}
	return s
}

func usageColumns(head string, rows []annals.UsageRow) []*column {
	cols := []*column{{head: head}, {head: "RUNS", right: true}, {head: "INPUT", right: true}, {head: "CACHE READ", right: true},
		{head: "CACHE WRITE", right: true}, {head: "OUTPUT", right: true}, {head: "TOKENS", right: true}, {head: "COST", right: true}}
	for _, r := range rows {
		for i, cell := range []string{termsafe.String(clip(oneLine(orDash(r.Key)), maxTitle)), fmt.Sprint(r.Runs), humanCount(r.InputTokens),
			humanCount(r.CacheReadTokens), humanCount(r.CacheCreationTokens), humanCount(r.OutputTokens), humanCount(r.Tokens()), usageCost(r.UsageFigures)} {
			cols[i].cells = append(cols[i].cells, cell)
		}
	}
	return cols
}

func topColumns(chats []annals.UsageChat) []*column {
	cols := []*column{{head: "ID"}, {head: "TITLE"}, {head: "TOOL"}, {head: "TOKENS", right: true}, {head: "COST", right: true}, {head: "ENTRIES", right: true}}
	ids := make([]string, len(chats))
	for i, c := range chats {
		ids[i] = c.ChatID
	}
	short := abbreviateIDs(ids)
	for i, c := range chats {
		fig := annals.UsageFigures{CostUSD: c.CostUSD, EstimatedCostUSD: c.EstimatedCostUSD}
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		for j, cell := range []string{termsafe.String(short[i]), termsafe.String(clip(oneLine(title), maxTitle)), termsafe.String(orDash(c.Source)),
			humanCount(annals.SaturatingAdd(c.InputTokens, c.OutputTokens)), usageCost(fig), fmt.Sprint(c.Entries)} {
			cols[j].cells = append(cols[j].cells, cell)
		}
	}
	return cols
}

// writeHeatmap draws runs by weekday and hour with five shades, the busiest cell darkest.
func writeHeatmap(w io.Writer, h annals.UsageHeatmap) {
	shades := []rune(" ░▒▓█")
	var peak int64
	for _, day := range h.Runs {
		for _, n := range day {
			peak = max(peak, n)
		}
	}
	fmt.Fprintln(w, "RUNS BY HOUR  0     6     12    18   23")
	for d, name := range []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"} {
		var b strings.Builder
		for _, n := range h.Runs[d] {
			i := 0
			if n > 0 {
				i = 1 + int((n*4-1)/max(peak, 1))
			}
			b.WriteRune(shades[min(i, 4)])
		}
		fmt.Fprintf(w, "%-13s %s\n", name, b.String())
	}
	fmt.Fprintf(w, "(the darkest cell is %s)\n", plural(peak, "run", "runs"))
}
