package history

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/annals-dev/annals"
)

// maxUsageZone bounds the length of a zone name a caller may give.
const maxUsageZone = 64

// maxFilledDays is the longest range whose empty days the report lists too; over a longer one
// only the days with runs are listed.
const maxFilledDays = 3700

// UsageZone loads the time zone of a usage report: "" and "UTC" are UTC, otherwise an IANA name.
// Errors: invalid, naming what is allowed.
func UsageZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if len(name) > maxUsageZone {
		return nil, annals.Errorf(annals.EINVALID, "zone is %d bytes long (at most %d): want an IANA time zone name such as Europe/Paris, or UTC", len(name), maxUsageZone)
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, annals.Errorf(annals.EINVALID, "zone %q is not a known time zone: want an IANA name such as Europe/Paris or America/New_York, or UTC", name)
	}
	return loc, nil
}

// UsageRange reads a usage report's zone and range as every transport receives them: the zone
// first, since a date alone in from or to is a whole day in it (from its first instant, to its
// last). fromName and toName name the fields in messages ("from", "--since").
func UsageRange(zone, fromName, from, toName, to string) (annals.UsageParams, error) {
	p := annals.UsageParams{Zone: zone}
	loc, err := UsageZone(zone)
	if err != nil {
		return p, err
	}
	if p.From, err = annals.ParseTimeBoundIn(fromName, from, false, loc); err != nil {
		return p, err
	}
	p.To, err = annals.ParseTimeBoundIn(toName, to, true, loc)
	return p, err
}

// UsageSince is the start of a range of the last days days up to now, in loc: the first instant
// of the day days-1 days before today ("the last 30 days" holds today and the 29 before).
func UsageSince(now time.Time, loc *time.Location, days int) time.Time {
	d := now.In(loc).AddDate(0, 0, 1-days)
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
}

// Usage sums tokens and cost in scope over a range; see annals.HistoryService. The store sums
// the runs by hour, agent, model and source tool; the report's days and heatmap are counted
// from those hours in the caller's zone, and tokens recorded without a cost are priced from the
// pricing table (Config.Pricer), marked estimated.
func (s *Service) Usage(ctx context.Context, p annals.UsageParams) (*annals.UsageReport, error) {
	res, err := Resolve(ctx, string(p.Scope))
	if err != nil {
		return nil, err
	}
	loc, err := UsageZone(p.Zone)
	if err != nil {
		return nil, err
	}
	if err := annals.ValidateBoundPtr("from", p.From); err != nil {
		return nil, err
	}
	if err := annals.ValidateBoundPtr("to", p.To); err != nil {
		return nil, err
	}
	if p.From != nil && p.To != nil && p.To.Before(*p.From) {
		return nil, annals.Errorf(annals.EINVALID, "to (%s) is before from (%s)", p.To.UTC().Format(time.RFC3339), p.From.UTC().Format(time.RFC3339))
	}
	if p.Top < 0 || p.Top > annals.MaxUsageTop {
		return nil, annals.Errorf(annals.EINVALID, "top must be between 0 (the default, %d) and %d", annals.DefaultUsageTop, annals.MaxUsageTop)
	}
	if len(p.ChatIDs) > annals.MaxUsageTop {
		return nil, annals.Errorf(annals.EINVALID, "chat_ids has %d ids (at most %d)", len(p.ChatIDs), annals.MaxUsageTop)
	}
	for _, id := range p.ChatIDs {
		if err := annals.ValidateID("chat_ids[]", id); err != nil {
			return nil, err
		}
	}
	us, ok := s.store.(annals.UsageStore)
	if !ok {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this store does not sum usage")
	}
	f := annals.UsageFilter{Owner: res.Owner, ChatIDs: p.ChatIDs}
	if p.From != nil {
		f.From = *p.From
	}
	if p.To != nil {
		// The parameter's upper bound is inclusive (a date's last instant), the store's exclusive.
		f.To = p.To.Add(time.Nanosecond)
	}
	out := &annals.UsageReport{Scope: string(res.Scope), From: p.From, To: p.To, Zone: loc.String()}
	if s.pricer != nil {
		pr := s.pricer.Pricing()
		out.Pricing = &pr
	}
	f.ByChat = p.CostsOnly
	buckets, err := us.UsageBuckets(ctx, f)
	if err != nil {
		return nil, err
	}
	if p.CostsOnly {
		out.Days, out.Agents, out.Models, out.Tools = []annals.UsageRow{}, []annals.UsageRow{}, []annals.UsageRow{}, []annals.UsageRow{}
		out.Top = annals.UsageTop{ByTokens: []annals.UsageChat{}, ByCost: s.chatCosts(buckets), ByLength: []annals.UsageChat{}}
		return out, nil
	}
	rates := s.fold(out, buckets, loc)
	out.Days = fillDays(out.Days, p.From, p.To, loc)
	if out.Top, err = us.TopUsageChats(ctx, annals.UsageTopQuery{Filter: f, Rates: rates, Limit: cmp.Or(p.Top, annals.DefaultUsageTop)}); err != nil {
		return nil, err
	}
	return out, nil
}

// fold adds every bucket into the report's totals, groups and heatmap, pricing its uncosted
// tokens; it returns the rates it used, by model as stored, for the top lists.
func (s *Service) fold(out *annals.UsageReport, buckets []annals.UsageBucket, loc *time.Location) map[string]annals.TokenRate {
	rates := map[string]annals.TokenRate{}
	known := map[string]bool{}
	rate := func(model string) (annals.TokenRate, bool) {
		if ok, seen := known[model]; seen {
			return rates[model], ok
		}
		r, ok := s.rate(model)
		if known[model] = ok; ok {
			rates[model] = r
		}
		return r, ok
	}
	days, agents, models, tools := map[string]*annals.UsageFigures{}, map[string]*annals.UsageFigures{}, map[string]*annals.UsageFigures{}, map[string]*annals.UsageFigures{}
	for _, b := range buckets {
		fig := annals.UsageFigures{Runs: b.Runs, InputTokens: b.InputTokens, OutputTokens: b.OutputTokens, CostUSD: b.CostUSD,
			CacheReadTokens: b.CacheReadTokens, CacheCreationTokens: b.CacheCreationTokens}
		if b.UncostedRuns > 0 {
			if r, ok := rate(b.Model); ok {
				fig.EstimatedCostUSD = r.Cost(annals.RunTokens{In: b.UncostedInputTokens, Out: b.UncostedOutputTokens,
					Read: b.UncostedCacheRead, Write: b.UncostedCacheCreation})
				fig.CostUSD += fig.EstimatedCostUSD
			} else {
				fig.UnpricedRuns = b.UncostedRuns
			}
		}
		out.Totals.Add(fig)
		at := b.Hour.In(loc)
		for _, g := range []struct {
			m   map[string]*annals.UsageFigures
			key string
		}{{days, at.Format(time.DateOnly)}, {agents, b.AgentID}, {models, b.Model}, {tools, b.Source}} {
			if g.m[g.key] == nil {
				g.m[g.key] = &annals.UsageFigures{}
			}
			g.m[g.key].Add(fig)
		}
		wd := (int(at.Weekday()) + 6) % 7 // Monday first
		out.Heatmap.Runs[wd][at.Hour()] += b.Runs
		out.Heatmap.Tokens[wd][at.Hour()] = annals.SaturatingAdd(out.Heatmap.Tokens[wd][at.Hour()], fig.Tokens())
	}
	out.Days = rows(days, func(a, b annals.UsageRow) int { return cmp.Compare(a.Key, b.Key) })
	byTokens := func(a, b annals.UsageRow) int {
		return cmp.Or(cmp.Compare(b.Tokens(), a.Tokens()), cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(a.Key, b.Key))
	}
	out.Agents, out.Models, out.Tools = rows(agents, byTokens), rows(models, byTokens), rows(tools, byTokens)
	return rates
}

// chatCosts sums buckets by chat into each chat's figures, pricing its uncosted tokens, most
// cost first, then by id (UsageParams.CostsOnly).
func (s *Service) chatCosts(buckets []annals.UsageBucket) []annals.UsageChat {
	by := map[string]*annals.UsageChat{}
	out := []annals.UsageChat{}
	for _, b := range buckets {
		c := by[b.ChatID]
		if c == nil {
			c = &annals.UsageChat{ChatID: b.ChatID}
			by[b.ChatID] = c
		}
		c.Runs += b.Runs
		c.InputTokens = annals.SaturatingAdd(c.InputTokens, b.InputTokens)
		c.OutputTokens = annals.SaturatingAdd(c.OutputTokens, b.OutputTokens)
		c.CostUSD += b.CostUSD
		if r, ok := s.rate(b.Model); ok && b.UncostedRuns > 0 {
			est := r.Cost(annals.RunTokens{In: b.UncostedInputTokens, Out: b.UncostedOutputTokens, Read: b.UncostedCacheRead, Write: b.UncostedCacheCreation})
			c.CostUSD += est
			c.EstimatedCostUSD += est
		}
	}
	for _, c := range by {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b annals.UsageChat) int {
		return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(a.ChatID, b.ChatID))
	})
	return out
}

// rate is the pricing table's per-token price of model (Config.Pricer), false when no table is
// configured or it does not know the model: the one place tokens without a cost are priced
// (the usage report's buckets and a chat's runs, runs.go).
func (s *Service) rate(model string) (annals.TokenRate, bool) {
	if s.pricer == nil {
		return annals.TokenRate{}, false
	}
	p, ok := s.pricer.Price(model)
	if !ok {
		return annals.TokenRate{}, false
	}
	return p.Rate(), true
}

func rows(m map[string]*annals.UsageFigures, order func(a, b annals.UsageRow) int) []annals.UsageRow {
	out := make([]annals.UsageRow, 0, len(m))
	for k, f := range m {
		out = append(out, annals.UsageRow{Key: k, UsageFigures: *f})
	}
	slices.SortFunc(out, order)
	return out
}

// fillDays lists every day from the range's first (or the data's first, when the range is open
// there) to its last, empty days included, unless that is more than maxFilledDays days.
func fillDays(days []annals.UsageRow, from, to *time.Time, loc *time.Location) []annals.UsageRow {
	var first, last string
	if len(days) > 0 {
		first, last = days[0].Key, days[len(days)-1].Key
	}
	if from != nil {
		first = from.In(loc).Format(time.DateOnly)
	}
	if to != nil {
		last = to.In(loc).Format(time.DateOnly)
	}
	if first == "" || last == "" {
		return days
	}
	start, err1 := time.ParseInLocation(time.DateOnly, first, loc)
	end, err2 := time.ParseInLocation(time.DateOnly, last, loc)
	if err1 != nil || err2 != nil || end.Before(start) || end.Sub(start) > maxFilledDays*24*time.Hour {
		return days
	}
	have := map[string]annals.UsageRow{}
	for _, d := range days {
		have[d.Key] = d
	}
	out := []annals.UsageRow{}
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		k := d.Format(time.DateOnly)
		if r, ok := have[k]; ok {
			out = append(out, r)
		} else {
			out = append(out, annals.UsageRow{Key: k})
		}
	}
	return out
}
