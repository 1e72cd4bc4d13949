package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/annals-dev/annals/internal/human"

	"github.com/annals-dev/annals/corpus"
)

// GenOptions configure Generate ('annals bench gen').
type GenOptions struct {
	Corpus corpus.Options
	// Out is the file to write, or "-" for Stdout.
	Out    string
	Stdout io.Writer
	// Progress, when set, is called now and then with the entries written so far.
	Progress func(entries int)
}

// CorpusOptions are the effective generator options, echoed so a benchmark record says exactly
// which corpus it ran on.
type CorpusOptions struct {
	Seed    uint64 `json:"seed"`
	Entries int    `json:"entries"`
	Chats   int    `json:"chats,omitempty"`
	Tenants int    `json:"tenants"`
	Users   int    `json:"users"`
	Agents  int    `json:"agents"`
}

// GenReport is what Generate wrote; its JSON form is the --json output of 'annals bench gen'.
type GenReport struct {
	Out     string        `json:"out"`
	Options CorpusOptions `json:"options"`
	corpus.Stats
	Seconds float64 `json:"seconds"`

	elapsed time.Duration
}

// Generate writes the corpus to opts.Out. A file that could not be written to the end is
// removed: a half-written corpus would give a benchmark the wrong input.
func Generate(ctx context.Context, opts GenOptions) (*GenReport, error) {
	w, name := opts.Stdout, "standard output"
	var file *os.File
	if opts.Out != "-" {
		f, err := os.Create(opts.Out)
		if err != nil {
			return nil, fmt.Errorf("cannot write the corpus: %w", err)
		}
		file, w, name = f, f, opts.Out
	}
	start := time.Now()
	st, err := corpus.Write(&ctxWriter{ctx: ctx, w: w}, opts.Corpus, opts.Progress)
	elapsed := time.Since(start)
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(opts.Out)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := opts.Corpus
	return &GenReport{
		Out:     name,
		Options: CorpusOptions{Seed: c.Seed, Entries: c.Entries, Chats: c.Chats, Tenants: c.Tenants, Users: c.Users, Agents: c.Agents},
		Stats:   st,
		Seconds: math.Round(elapsed.Seconds()*1000) / 1000,
		elapsed: elapsed,
	}, nil
}

// WriteText prints the report for people: what was written, how fast, and the marker counts a
// search benchmark relies on.
func (r *GenReport) WriteText(w io.Writer) error {
	st, o := r.Stats, r.Options
	rate := 0.0
	if s := r.elapsed.Seconds(); s > 0 {
		rate = float64(st.Entries) / s
	}
	fmt.Fprintf(w, "Wrote %s: %d entries in %d chats (%d lines, %s) in %s (%.0f entries/s)\n",
		r.Out, st.Entries, st.Chats, st.Lines, human.Bytes(st.Bytes), r.elapsed.Round(time.Millisecond), rate)
	fmt.Fprintf(w, "seed %d; %d tenants, %d users, %d agents; %d runs, %d tool calls (%d failed); %d chats to pin\n",
		o.Seed, o.Tenants, o.Users, o.Agents, st.Runs, st.ToolCalls, st.FailedToolCalls, len(st.Pinned))
	var marks []string
	for _, mc := range st.Markers {
		marks = append(marks, fmt.Sprintf("%s %d", mc.Term, mc.Entries))
	}
	_, err := fmt.Fprintf(w, "marker terms (entries): %s\n", strings.Join(marks, ", "))
	return err
}
