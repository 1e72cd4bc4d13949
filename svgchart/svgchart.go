// Package svgchart draws small charts as inline SVG on the server: stacked bars (a value per
// day) and a heatmap grid (weekday × hour). The markup is accessible (role="img", a <title> and
// a <desc> it is labelled by, a <title> tooltip on every bar and cell) and holds no script, no
// style attribute and no inline style: colours come from class names the caller picks from a
// fixed list and the page's stylesheet paints, so the charts pass a strict
// Content-Security-Policy. Every text is escaped; class names and ids that are not plain
// [a-z0-9-] words are dropped. It imports nothing of the project.
package svgchart

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// Series is one stacked part of every bar: its name (for the description) and the class that
// paints it.
type Series struct {
	Name  string
	Class string
}

// Bar is one bar: its label (under the axis, thinned out when bars are many), one value per
// series, stacked in order, and the tooltip.
type Bar struct {
	Label  string
	Values []float64
	Tip    string
}

// Bars is a stacked bar chart.
type Bars struct {
	// ID prefixes the ids of the title and description (a plain word).
	ID, Title, Desc string
	Series          []Series
	Bars            []Bar
	// Scale labels the axis's top value ("1.2M", "$3.40"); nil prints the number.
	Scale func(float64) string
}

// The bar chart's geometry, in viewBox units: the plot sits right of the axis labels and above
// the bar labels.
const (
	barsW, barsH   = 720, 220
	barsLeft       = 56
	barsTop        = 12
	barsBottom     = 24
	maxBarLabels   = 8
	heatCell       = 24
	heatLeft       = 40
	heatTop        = 18
	heatLevels     = 5
	maxClassLength = 40
)

// SVG renders the chart.
func (b Bars) SVG() template.HTML {
	var s strings.Builder
	open(&s, b.ID, b.Title, b.Desc, barsW, barsH)
	peak := 0.0
	for _, bar := range b.Bars {
		sum := 0.0
		for _, v := range bar.Values {
			sum += clean(v)
		}
		peak = math.Max(peak, sum)
	}
	plotW, plotH := float64(barsW-barsLeft), float64(barsH-barsTop-barsBottom)
	scale := b.Scale
	if scale == nil {
		scale = func(v float64) string { return fmt.Sprintf("%g", v) }
	}
	base := float64(barsTop) + plotH
	fmt.Fprintf(&s, `<line class="axis" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, barsLeft, base, barsW, base)
	fmt.Fprintf(&s, `<text class="axis-label" x="%d" y="%d" text-anchor="end">%s</text>`, barsLeft-6, barsTop+10, esc(scale(peak)))
	fmt.Fprintf(&s, `<text class="axis-label" x="%d" y="%.1f" text-anchor="end">0</text>`, barsLeft-6, base)
	n := len(b.Bars)
	if n > 0 {
		slot := plotW / float64(n)
		width := math.Max(slot*0.8, 0.5)
		every := max(1, (n+maxBarLabels-1)/maxBarLabels)
		for i, bar := range b.Bars {
			x := float64(barsLeft) + float64(i)*slot + (slot-width)/2
			s.WriteString(`<g class="bar">`)
			fmt.Fprintf(&s, `<title>%s</title>`, esc(bar.Tip))
			y := base
			for j, v := range bar.Values {
				h := 0.0
				if peak > 0 {
					h = clean(v) / peak * plotH
				}
				if h <= 0 {
					continue
				}
				y -= h
				fmt.Fprintf(&s, `<rect class="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f"/>`, b.class(j), x, y, width, h)
			}
			// An invisible full-height target, so a day with little or nothing still has a tooltip.
			fmt.Fprintf(&s, `<rect class="hover-area" x="%.2f" y="%d" width="%.2f" height="%.1f"/>`, float64(barsLeft)+float64(i)*slot, barsTop, slot, plotH)
			s.WriteString(`</g>`)
			if i%every == 0 {
				fmt.Fprintf(&s, `<text class="bar-label" x="%.2f" y="%d" text-anchor="middle">%s</text>`, x+width/2, barsH-6, esc(bar.Label))
			}
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String()) // every text is escaped; classes and ids are checked words
}

func (b Bars) class(i int) string {
	if i < len(b.Series) {
		if c := word(b.Series[i].Class); c != "" {
			return c
		}
	}
	return fmt.Sprintf("s%d", i)
}

// Heatmap is a grid of cells, each painted by its level: class l0 (zero) to l4 (the peak).
type Heatmap struct {
	ID, Title, Desc string
	// Rows and Cols label the grid (weekdays, hours); Values[r][c] is a cell.
	Rows, Cols []string
	Values     [][]float64
	// Tip is a cell's tooltip.
	Tip func(r, c int) string
	// ColEvery labels every n-th column (0: every one).
	ColEvery int
}

// SVG renders the grid.
func (h Heatmap) SVG() template.HTML {
	var s strings.Builder
	w, ht := heatLeft+len(h.Cols)*heatCell, heatTop+len(h.Rows)*heatCell
	open(&s, h.ID, h.Title, h.Desc, w, ht)
	peak := 0.0
	for _, row := range h.Values {
		for _, v := range row {
			peak = math.Max(peak, clean(v))
		}
	}
	every := max(h.ColEvery, 1)
	for c, label := range h.Cols {
		if c%every == 0 {
			fmt.Fprintf(&s, `<text class="axis-label" x="%d" y="%d" text-anchor="middle">%s</text>`, heatLeft+c*heatCell+heatCell/2, heatTop-5, esc(label))
		}
	}
	for r, label := range h.Rows {
		y := heatTop + r*heatCell
		fmt.Fprintf(&s, `<text class="axis-label" x="%d" y="%d" text-anchor="end">%s</text>`, heatLeft-6, y+heatCell/2+4, esc(label))
		for c := range h.Cols {
			v := 0.0
			if r < len(h.Values) && c < len(h.Values[r]) {
				v = clean(h.Values[r][c])
			}
			tip := ""
			if h.Tip != nil {
				tip = h.Tip(r, c)
			}
			fmt.Fprintf(&s, `<rect class="cell l%d" x="%d" y="%d" width="%d" height="%d" rx="3"><title>%s</title></rect>`,
				level(v, peak), heatLeft+c*heatCell+1, y+1, heatCell-2, heatCell-2, esc(tip))
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String()) // every text is escaped; classes are fixed
}

// level is v's shade: 0 for nothing, else 1 to heatLevels-1 by its share of the peak.
func level(v, peak float64) int {
	if v <= 0 || peak <= 0 {
		return 0
	}
	return 1 + min(heatLevels-2, int(v/peak*float64(heatLevels-1)-1e-9))
}

// open writes the <svg> element with its accessible name and description.
func open(s *strings.Builder, id, title, desc string, w, h int) {
	id = word(id)
	if id == "" {
		id = "chart"
	}
	fmt.Fprintf(s, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s-desc" preserveAspectRatio="xMinYMin meet">`, w, h, id, id)
	fmt.Fprintf(s, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, id, esc(title), id, esc(desc))
}

// word returns s when it is a plain class or id word ([a-z0-9-], starting with a letter), else "".
func word(s string) string {
	if s == "" || len(s) > maxClassLength || s[0] < 'a' || s[0] > 'z' {
		return ""
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return ""
		}
	}
	return s
}

// clean makes a value drawable: NaN, infinities and negatives are nothing.
func clean(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0
	}
	return v
}

func esc(s string) string { return html.EscapeString(s) }
