package main

import (
	"context"
	"fmt"
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
		return annals.Errorf(annals.ECONFLICT, "%d of %d lanes differ from the remote", len(v.Differences), v.Lanes)
	}
	return nil
}

func printVerification(w io.Writer, v *replicate.Verification) {
	for _, d := range v.Repaired {
		fmt.Fprintf(w, "repaired %s: %s; reset from the host's chat (first difference at seq %d)\n", d.ChatID, d.Reason, d.FirstSeq)
	}
	fmt.Fprintf(w, "verify: %d lanes, %d in sync with the remote, %d still queued, %d differences, %d repaired (pushed %d operations)\n",
		v.Lanes, v.InSync, v.Pending, len(v.Differences), len(v.Repaired), v.Push.Pushed)
	fmt.Fprintf(w, "  host: %d chats, %d entries, %d runs; remote: %d chats, %d entries, %d runs\n",
		v.Host.Chats, v.Host.Entries, v.Host.Runs, v.Remote.Chats, v.Remote.Entries, v.Remote.Runs)
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
