package svgchart_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/annals-dev/annals/svgchart"
)

// element is what the tests read back of the SVG: every element's name, attributes and text.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parse reads svg as XML (it must be well formed) and returns its elements in order.
func parse(t *testing.T, svg string) []element {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var out []element
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := element{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		case xml.CharData:
			if len(out) > 0 {
				out[len(out)-1].text += string(tk)
			}
		}
	}
}

// noActiveContent fails on anything a strict CSP would block or a transcript could use.
func noActiveContent(t *testing.T, els []element) {
	t.Helper()
	for _, e := range els {
		if e.name == "script" || e.name == "style" || e.name == "foreignObject" {
			t.Errorf("the SVG holds a <%s>", e.name)
		}
		for k := range e.attrs {
			if k == "style" || strings.HasPrefix(k, "on") || k == "href" {
				t.Errorf("<%s> has the attribute %s", e.name, k)
			}
		}
	}
}

func TestBarsAreAccessibleEscapedAndScaled(t *testing.T) {
	hostile := `<script>alert(1)</script>" onload="x`
	b := svgchart.Bars{
		ID: "tokens", Title: "Tokens per day " + hostile, Desc: "input and output",
		Series: []svgchart.Series{{Name: "input", Class: "in"}, {Name: "output", Class: `out" onclick="x`}},
		Bars: []svgchart.Bar{
			{Label: "2026-12-01", Values: []float64{300, 100}, Tip: "400 tokens " + hostile},
			{Label: hostile, Values: []float64{0, 0}, Tip: "nothing"},
			{Label: "2026-12-03", Values: []float64{100, math.NaN()}, Tip: "100"},
		},
		Scale: func(v float64) string { return fmt.Sprintf("%.0f tokens", v) },
	}
	els := parse(t, string(b.SVG()))
	noActiveContent(t, els)
	svg := els[0]
	if svg.name != "svg" || svg.attrs["role"] != "img" || svg.attrs["aria-labelledby"] != "tokens-title tokens-desc" {
		t.Fatalf("root = %+v; want an svg with role img labelled by its title and desc", svg)
	}
	if els[1].name != "title" || els[1].attrs["id"] != "tokens-title" || els[1].text != "Tokens per day "+hostile || els[2].attrs["id"] != "tokens-desc" {
		t.Errorf("title and desc = %+v, %+v", els[1], els[2])
	}
	var rects []element
	tips := 0
	for _, e := range els {
		if e.name == "rect" && e.attrs["class"] != "hover-area" {
			rects = append(rects, e)
		}
		if e.name == "title" && strings.HasPrefix(e.text, "400 tokens <script>") {
			tips++
		}
		if e.name == "text" && e.text == "400 tokens" {
			tips++
		}
	}
	if tips != 2 {
		t.Errorf("want the first bar's tooltip with its text escaped and the axis at the peak (400 tokens); got %d of 2", tips)
	}
	// Three drawn segments: 300 and 100 (the peak, full height) and 100; zeros and NaN draw nothing.
	if len(rects) != 3 || rects[0].attrs["class"] != "in" || rects[1].attrs["class"] != "s1" || rects[2].attrs["class"] != "in" {
		t.Fatalf("segments = %+v; want in, s1 (the unsafe class dropped), in", rects)
	}
	if rects[0].attrs["height"] != "138.00" || rects[1].attrs["height"] != "46.00" || rects[2].attrs["height"] != "46.00" {
		t.Errorf("heights %s, %s, %s; want 138, 46, 46 of a 184-unit plot", rects[0].attrs["height"], rects[1].attrs["height"], rects[2].attrs["height"])
	}
	// No bars: an empty, still well-formed chart.
	noActiveContent(t, parse(t, string(svgchart.Bars{ID: "x y", Title: "none"}.SVG())))
}

func TestHeatmapShadesCellsByLevel(t *testing.T) {
	h := svgchart.Heatmap{
		ID: "heat", Title: "Runs by weekday and hour", Desc: "Monday first",
		Rows: []string{"Mon", "Tue"}, Cols: []string{"0", "1", "2"},
		Values:   [][]float64{{0, 1, 4}, {2, 3}},
		Tip:      func(r, c int) string { return fmt.Sprintf("r%d c%d <b>", r, c) },
		ColEvery: 2,
	}
	els := parse(t, string(h.SVG()))
	noActiveContent(t, els)
	var classes, tips, cols []string
	for i, e := range els {
		if e.name == "rect" {
			classes = append(classes, e.attrs["class"])
			tips = append(tips, els[i+1].text)
		}
		if e.name == "text" && e.attrs["text-anchor"] == "middle" {
			cols = append(cols, e.text)
		}
	}
	want := []string{"cell l0", "cell l1", "cell l4", "cell l2", "cell l3", "cell l0"}
	if fmt.Sprint(classes) != fmt.Sprint(want) {
		t.Errorf("cells = %v; want %v", classes, want)
	}
	if tips[2] != "r0 c2 <b>" {
		t.Errorf("a cell's tooltip = %q", tips[2])
	}
	if fmt.Sprint(cols) != "[0 2]" {
		t.Errorf("column labels = %v; want every second", cols)
	}
}
