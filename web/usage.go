package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/svgchart"
)

// The usage page (docs/USAGE.md): the caller's tokens and cost over a chosen range, as charts
// drawn on the server (package svgchart) with their numbers in tables beside them.

// usagePresets are the range chooser's choices, in days ("all": every run).
var usagePresets = []string{"7", "30", "90", "365", "all"}

// usageTop is how many chats each top list of the page shows.
const usageTop = 10

// usageForm is the range as the form sends it: a preset, or from/to dates, in a zone.
type usageForm struct {
	Range, From, To, Zone string
}

func readUsageForm(q url.Values) usageForm {
	f := usageForm{Range: q.Get("range"), From: q.Get("from"), To: q.Get("to"), Zone: q.Get("zone")}
	if f.Zone == "" {
		f.Zone = "UTC"
	}
	if f.Range == "" && f.From == "" && f.To == "" {
		f.Range = "30"
	}
	return f
}

// params is the form as the history's parameters: dates are whole days in the zone; a preset
// of n days starts n-1 days before today.
func (f usageForm) params(now time.Time) (annals.UsageParams, error) {
	if f.Range == "" || f.Range == "all" {
		p, err := history.UsageRange(f.Zone, "from", f.From, "to", f.To)
		p.Top = usageTop
		return p, err
	}
	days, err := strconv.Atoi(f.Range)
	if err != nil || days < 1 || days > 3660 {
		return annals.UsageParams{}, annals.Errorf(annals.EINVALID, "range %q is not a number of days (want 7, 30, 90, 365 or all, or from and to dates)", f.Range)
	}
	loc, err := history.UsageZone(f.Zone)
	if err != nil {
		return annals.UsageParams{}, err
	}
	from := history.UsageSince(now, loc, days)
	return annals.UsageParams{From: &from, Zone: f.Zone, Top: usageTop}, nil
}

// presetURL is the page for one preset, in the form's zone.
func (f usageForm) presetURL(preset string) string {
	return "/usage?" + url.Values{"range": {preset}, "zone": {f.Zone}}.Encode()
}

type usagePage struct {
	Form    usageForm
	Presets []usagePreset
	Report  *annals.UsageReport
	// The charts, rendered by svgchart (their texts escaped there).
	TokensChart, CostChart, Heatmap template.HTML
	// HeatRows is the heatmap's numbers: a weekday and its 24 hours' runs.
	HeatRows []heatRow
	Groups   []usageGroup
	Tops     []usageTopList
	Error    string
}

type usagePreset struct {
	Label, URL string
	Current    bool
}

type heatRow struct {
	Day   string
	Hours [24]int64
}

type usageGroup struct {
	Name, Key string
	Rows      []annals.UsageRow
}

type usageTopList struct {
	Name  string
	Chats []annals.UsageChat
}

var weekdays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// usage is the usage page. A range the history refuses is shown beside the form.
func (h *Handler) usage(w http.ResponseWriter, r *http.Request) error {
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	form := readUsageForm(r.URL.Query())
	page := usagePage{Form: form}
	for _, p := range usagePresets {
		label := "last " + p + " days"
		if p == "all" {
			label = "all time"
		}
		page.Presets = append(page.Presets, usagePreset{Label: label, URL: form.presetURL(p), Current: p == form.Range})
	}
	p, err := form.params(h.now())
	if err == nil {
		page.Report, err = c.Usage(r.Context(), p)
	}
	if err != nil {
		if annals.ErrorCode(err) != annals.EINVALID {
			return err
		}
		page.Error = annals.ErrorMessage(err)
		h.render(w, r, http.StatusOK, "usage", "Usage", page)
		return nil
	}
	page.draw()
	h.render(w, r, http.StatusOK, "usage", "Usage", page)
	return nil
}

// draw renders the report's charts and lays out its tables.
func (p *usagePage) draw() {
	rep := p.Report
	tokens := svgchart.Bars{ID: "tokens-chart", Title: "Tokens per day",
		Desc:   fmt.Sprintf("Input and output tokens on each of %d days, %s in all; the table beside lists every day.", len(rep.Days), formatTokens(rep.Totals.Tokens())),
		Series: []svgchart.Series{{Name: "input", Class: "in"}, {Name: "output", Class: "out"}},
		Scale:  func(v float64) string { return formatTokens(int64(v)) }}
	cost := svgchart.Bars{ID: "cost-chart", Title: "Cost per day",
		Desc:   fmt.Sprintf("Recorded and estimated cost on each of %d days, %s in all.", len(rep.Days), usageCost(rep.Totals)),
		Series: []svgchart.Series{{Name: "recorded", Class: "recorded"}, {Name: "estimated", Class: "estimated"}},
		Scale:  func(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }}
	for _, d := range rep.Days {
		tokens.Bars = append(tokens.Bars, svgchart.Bar{Label: d.Key, Values: []float64{float64(d.InputTokens), float64(d.OutputTokens)},
			Tip: fmt.Sprintf("%s: %s tokens (%s in, %s out), %d runs", d.Key, formatTokens(d.Tokens()), formatTokens(d.InputTokens), formatTokens(d.OutputTokens), d.Runs)})
		cost.Bars = append(cost.Bars, svgchart.Bar{Label: d.Key, Values: []float64{d.CostUSD - d.EstimatedCostUSD, d.EstimatedCostUSD},
			Tip: fmt.Sprintf("%s: %s", d.Key, usageCost(d.UsageFigures))})
	}
	p.TokensChart, p.CostChart = tokens.SVG(), cost.SVG()
	heat := svgchart.Heatmap{ID: "heatmap", Title: "Runs by weekday and hour",
		Desc: fmt.Sprintf("Runs started in each hour of each weekday, Monday first, in %s; darker is busier. The table below holds the numbers.", rep.Zone),
		Rows: weekdays, ColEvery: 3,
		Tip: func(r, c int) string {
			return fmt.Sprintf("%s %02d:00: %d runs", weekdays[r], c, rep.Heatmap.Runs[r][c])
		}}
	for hr := range 24 {
		heat.Cols = append(heat.Cols, strconv.Itoa(hr))
	}
	for d, day := range weekdays {
		row := make([]float64, 24)
		for hr, n := range rep.Heatmap.Runs[d] {
			row[hr] = float64(n)
		}
		heat.Values = append(heat.Values, row)
		p.HeatRows = append(p.HeatRows, heatRow{Day: day, Hours: rep.Heatmap.Runs[d]})
	}
	p.Heatmap = heat.SVG()
	p.Groups = []usageGroup{{"Agents", "Agent", rep.Agents}, {"Models", "Model", rep.Models}, {"Source tools", "Tool", rep.Tools}}
	p.Tops = []usageTopList{{"by tokens", rep.Top.ByTokens}, {"by cost", rep.Top.ByCost}, {"by length", rep.Top.ByLength}}
}

// usageCost is a cost as the page shows it: "(estimated)" when part of it was estimated from
// the price table, "+ unpriced" when some runs could not be priced.
func usageCost(f annals.UsageFigures) string {
	s := "$" + strconv.FormatFloat(f.CostUSD, 'f', 2, 64)
	if f.Estimated() {
		s += " (estimated)"
	}
	if f.UnpricedRuns > 0 {
		s += " + unpriced"
	}
	return s
}
