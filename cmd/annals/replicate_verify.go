package main

import (
	"context"
	"fmt"
	"github.com/annals-dev/annals/internal/human"
	"io"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/replicate"
)

// replicateVerify compares every lane with the remote and, with repair, resets the lanes the
// remote lost or holds short; a difference left is exit 1.
func replicateVerify(ctx context.Context, p *replicate.Pusher, repair bool, reset []string, out func(any, func(io.Writer)) error) error {
	var v *replicate.Verification
	var err error
	if len(reset) > 0 {
		v, err = p.VerifyReset(ctx, reset)
	} else {
		v, err = p.Verify(ctx, repair)
	}
	if err != nil {
		return err
	}
	if err := out(v, func(w io.Writer) { printVerification(w, v) }); err != nil {
		return err
	}
	if len(v.Differences) > 0 {
		return annals.Errorf(annals.ECONFLICT, "%d of %s %s from the remote", len(v.Differences), plural(v.Lanes, "lane", "lanes"), human.Noun(len(v.Differences), "differs", "differ"))
	}
	return nil
}

func printVerification(w io.Writer, v *replicate.Verification) {
	for _, d := range v.Repaired {
		fmt.Fprintf(w, "repaired %s: %s; reset from the host's chat (first difference at seq %d)\n", d.ChatID, d.Reason, d.FirstSeq)
	}
	fmt.Fprintf(w, "verify: %s, %d in sync with the remote, %d still queued, %s, %d repaired (pushed %s)\n",
		plural(v.Lanes, "lane", "lanes"), v.InSync, v.Pending, plural(len(v.Differences), "difference", "differences"), len(v.Repaired), plural(v.Push.Pushed, "operation", "operations"))
	fmt.Fprintf(w, "  host: %s; remote: %s\n", sideCounts(v.Host.Chats, v.Host.Entries, v.Host.Runs), sideCounts(v.Remote.Chats, v.Remote.Entries, v.Remote.Runs))
	for _, g := range v.GivenUp {
		fmt.Fprintf(w, "  %s: %s\n", g.ChatID, g.Note)
	}
	repaired := map[string]bool{}
	for _, d := range v.Repaired {
		repaired[d.ChatID] = true
	}
	for _, d := range v.Differences {
		fix := "left for a person"
		switch {
		case d.Fix != "" && !repaired[d.ChatID]:
			fix = "left for a person: " + d.Fix
		case repaired[d.ChatID]:
			fix = "reset, and the remote still differs: see 'annals replicate status'"
		case d.Repairable:
			fix = "repairable: run verify without --no-repair"
		}
		fmt.Fprintf(w, "  %s: host at seq %d (%d queued), remote at seq %d, first difference at seq %d: %s (%s)\n",
			d.ChatID, d.HostSeq, d.Pending, d.RemoteSeq, d.FirstSeq, d.Reason, fix)
	}
}

// sideCounts is what one side of a verify holds.
func sideCounts(chats int, entries, runs int64) string {
	return plural(chats, "chat", "chats") + ", " + plural(entries, "entry", "entries") + ", " + plural(runs, "run", "runs")
}
