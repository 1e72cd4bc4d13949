package importer

import (
	"sort"
	"time"
)

// Progress is a snapshot of a running import, for progress bars.
type Progress struct {
	// Sources is how many sources the run will look at; Done how many it has finished.
	Sources int `json:"sources"`
	Done    int `json:"done"`
	// Current is the source being read.
	Current  string        `json:"current,omitempty"`
	Chats    int           `json:"chats"`
	Entries  int           `json:"entries"`
	Skipped  int           `json:"skipped"`
	Warnings int           `json:"warnings"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// Counts are what importing some sources did.
type Counts struct {
	// Files is how many sources were looked at; Unchanged how many of them had not changed
	// since the last import and were not read.
	Files     int `json:"files"`
	Unchanged int `json:"unchanged"`
	// Chats is how many chats were created. Entries how many entries were appended; Skipped
	// how many entries read were already stored. In a dry run, Entries counts the entries
	// read and Chats the chats seen.
	Chats   int `json:"chats"`
	Entries int `json:"entries"`
	Skipped int `json:"skipped"`
	// Removed counts entries removed by truncation (rewinds in the source, and provisional
	// entries read again).
	Removed int `json:"removed"`
	// Warnings counts lines or records that could not be read and were skipped.
	Warnings int `json:"warnings"`
	// Errors counts sources that failed as a whole.
	Errors int `json:"errors"`
}

func (c *Counts) add(o *Counts) {
	c.Unchanged += o.Unchanged
	c.Chats += o.Chats
	c.Entries += o.Entries
	c.Skipped += o.Skipped
	c.Removed += o.Removed
	c.Warnings += o.Warnings
}

// Total is every format's counts added up.
func (r *Report) Total() Counts {
	var t Counts
	for _, f := range r.Formats {
		t.add(&f.Counts)
		t.Files += f.Files
		t.Errors += f.Errors
	}
	return t
}

// FormatReport is one format's share of a run.
type FormatReport struct {
	Format string `json:"format"`
	Counts
}

// Warning is one line or record that was skipped.
type Warning struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// SourceError is one source that failed.
type SourceError struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Message string `json:"message"`
}

// Report is what a run did.
type Report struct {
	DryRun  bool            `json:"dry_run,omitempty"`
	Sources int             `json:"sources"`
	Done    int             `json:"done"`
	Formats []*FormatReport `json:"formats"`
	// The totals over every format.
	Chats    int `json:"chats"`
	Entries  int `json:"entries"`
	Skipped  int `json:"skipped"`
	Warnings int `json:"warnings"`
	// Titled is how many chats got a title from a source that named them.
	Titled int `json:"titled,omitempty"`
	// Gone is how many tracked sources were newly found missing.
	Gone int `json:"gone,omitempty"`
	// Agents is how many chats imported before imported chats had agents were given theirs.
	Agents int `json:"agents,omitempty"`
	// WarningList keeps the first warnings (Options.MaxWarnings).
	WarningList []Warning     `json:"warning_list,omitempty"`
	Errors      []SourceError `json:"errors,omitempty"`
	Duration    time.Duration `json:"duration_ns"`

	byFormat map[string]*FormatReport
}

func newReport() *Report { return &Report{byFormat: map[string]*FormatReport{}} }

func (r *Report) format(name string) *FormatReport {
	if r.byFormat == nil {
		r.byFormat = map[string]*FormatReport{}
	}
	fr, ok := r.byFormat[name]
	if !ok {
		fr = &FormatReport{Format: name}
		r.byFormat[name] = fr
		r.Formats = append(r.Formats, fr)
	}
	return fr
}

func (r *Report) add(c *Counts) {
	r.Chats += c.Chats
	r.Entries += c.Entries
	r.Skipped += c.Skipped
	r.Warnings += c.Warnings
}

func (r *Report) sortFormats() {
	sort.Slice(r.Formats, func(i, j int) bool { return r.Formats[i].Format < r.Formats[j].Format })
}

// Merge adds other's counts to r (Watch sums its runs this way).
func (r *Report) Merge(other *Report) {
	if other == nil {
		return
	}
	r.Sources += other.Sources
	r.Done += other.Done
	for _, f := range other.Formats {
		fr := r.format(f.Format)
		fr.Files += f.Files
		fr.Errors += f.Errors
		fr.add(&f.Counts)
	}
	r.Chats += other.Chats
	r.Entries += other.Entries
	r.Skipped += other.Skipped
	r.Warnings += other.Warnings
	r.Titled += other.Titled
	r.Gone += other.Gone
	r.Agents += other.Agents
	r.WarningList = append(r.WarningList, other.WarningList...)
	r.Errors = append(r.Errors, other.Errors...)
	r.Duration += other.Duration
	r.sortFormats()
}
