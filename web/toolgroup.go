package web

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Tool calls in groups, with durations. A turn that runs several tools in a row (one after the
// other, or in parallel) shows them as one group: a line with how many calls of which tools,
// whether they overlapped, how long the group took and how many failed, above the calls' own
// folded lines. A call's duration is its result's time minus its own (the entry's time), from
// the metadata an importer or a capturing client recorded (annals.MetaResultTime, or
// annals.MetaDurationMS); without either a call shows no duration.

// toolGroup is two or more consecutive tool calls of one run.
type toolGroup struct {
	Calls []item
	// Tools names the tools called, most called first ("Read ×2, Bash").
	Tools string
	// Parallel: a call started before an earlier one of the group had its result.
	Parallel bool
	// Took is the group's wall-clock time, from its first call to its last result ("" unknown).
	Took   string
	Failed int
}

// callTiming is when a tool call started and, when recorded, when its result came.
type callTiming struct {
	start, end time.Time
}

// timing reads a tool entry's result time from its metadata.
func timing(e *annals.Entry) callTiming {
	ct := callTiming{start: e.Time}
	if len(e.Metadata) == 0 || e.Time.IsZero() {
		return ct
	}
	var m struct {
		ResultTime string   `json:"result_time"`
		DurationMS *float64 `json:"duration_ms"`
	}
	if json.Unmarshal(e.Metadata, &m) != nil {
		return ct
	}
	if t, err := time.Parse(time.RFC3339Nano, m.ResultTime); err == nil && !t.Before(e.Time) {
		ct.end = t
	} else if m.DurationMS != nil && *m.DurationMS >= 0 && *m.DurationMS < float64(365*24*time.Hour/time.Millisecond) {
		ct.end = e.Time.Add(time.Duration(*m.DurationMS * float64(time.Millisecond)))
	}
	return ct
}

// formatDuration is a short duration: "850 ms", "4.2 s", "3m 12s", "1h 5m".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m " + strconv.Itoa(int(d%time.Minute/time.Second)) + "s"
	}
	return strconv.Itoa(int(d/time.Hour)) + "h " + strconv.Itoa(int(d%time.Hour/time.Minute)) + "m"
}

// groupTools folds each run of two or more consecutive tool calls of one run into a group
// item; the group takes the first call's run boundary.
func groupTools(in []item) []item {
	out := make([]item, 0, len(in))
	for i := 0; i < len(in); {
		j := i + 1
		for in[i].Tool != nil && j < len(in) && in[j].Tool != nil && in[j].RunID == in[i].RunID && in[j].Run == nil {
			j++
		}
		if j-i < 2 {
			out = append(out, in[i])
			i = j
			continue
		}
		calls := append([]item(nil), in[i:j]...)
		g := item{Seq: calls[0].Seq, RunID: calls[0].RunID, Kind: "tool-group", Time: calls[0].Time, Run: calls[0].Run, Group: newGroup(calls)}
		g.Group.Calls[0].Run = nil
		out = append(out, g)
		i = j
	}
	return out
}

func newGroup(calls []item) *toolGroup {
	g := &toolGroup{Calls: calls}
	count := map[string]int{}
	var names []string
	var first, last, latestEnd time.Time
	timed := true
	for _, c := range calls {
		if count[c.Tool.Name] == 0 {
			names = append(names, c.Tool.Name)
		}
		count[c.Tool.Name]++
		if c.Tool.Outcome == string(annals.OutcomeFailed) {
			g.Failed++
		}
		t := c.timing
		if !t.start.IsZero() && !latestEnd.IsZero() && t.start.Before(latestEnd) {
			g.Parallel = true
		}
		if t.end.IsZero() {
			timed = false
			continue
		}
		if t.end.After(latestEnd) {
			latestEnd = t.end
		}
		if first.IsZero() || t.start.Before(first) {
			first = t.start
		}
		if t.end.After(last) {
			last = t.end
		}
	}
	if timed && !first.IsZero() {
		g.Took = formatDuration(last.Sub(first))
	}
	sort.SliceStable(names, func(a, b int) bool { return count[names[a]] > count[names[b]] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n
		if count[n] > 1 {
			parts[i] += " ×" + strconv.Itoa(count[n])
		}
	}
	g.Tools = strings.Join(parts, ", ")
	return g
}
