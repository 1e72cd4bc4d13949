package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
	"github.com/annals-dev/annals/replicate"
)

// replicateDrop drops a quarantined lane's refused operation: it shows what will be dropped,
// asks at a terminal (or takes --yes), then drops it, renumbers the lane's later operations onto
// the remote's head and pushes. Where nobody can answer and --yes is missing, it shows the plan
// and drops nothing.
func (m *Main) replicateDrop(ctx context.Context, p *replicate.Pusher, chatID string, yes, asJSON bool, out func(any, func(io.Writer)) error) error {
	if err := p.Check(ctx); err != nil {
		return err
	}
	plan, err := p.PlanDrop(ctx, chatID)
	if err != nil {
		return err
	}
	if !yes {
		if !m.interactive() {
			if asJSON {
				if err := json.NewEncoder(m.Stdout).Encode(plan); err != nil {
					return err
				}
			} else {
				printDropPlan(m.human(), plan)
			}
			return usagef("nothing dropped; run again with --yes to drop operation %s of lane %s", plan.Op.ID, chatID)
		}
		printDropPlan(m.Stderr, plan)
		fmt.Fprint(m.Stderr, "Drop it? The remote will never receive this change. [y/N] ")
		answer, _ := bufio.NewReader(m.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return annals.Errorf(annals.ECONFLICT, "nothing dropped (answer y to drop it, or pass --yes)")
		}
	}
	res, err := p.Drop(ctx, plan)
	if err != nil {
		return err
	}
	return out(res, func(w io.Writer) {
		fmt.Fprintf(w, "dropped %s (%s, lane seq %d) of lane %s; %s renumbered; pushed %s, %s waiting, %d quarantined\n",
			res.Op.ID, res.Op.Kind, res.Op.LaneSeq, termsafe.String(chatID), plural(res.Later, "later operation", "later operations"), plural(res.Push.Pushed, "operation", "operations"), plural(len(res.Push.Waiting), "lane", "lanes"), len(res.Push.Quarantined))
	})
}

func printDropPlan(w io.Writer, plan *replicate.DropPlan) {
	q := plan.Quarantine
	fmt.Fprintf(w, "lane %s is quarantined since %s: %d %s: %s\n", termsafe.String(plan.ChatID), q.At.UTC().Format("2006-01-02T15:04:05Z"), q.Status, q.Code, termsafe.String(q.Message))
	fmt.Fprintf(w, "will drop operation %s: %s, lane seq %d, %d bytes, written %s\n",
		plan.Op.ID, plan.Op.Kind, plan.Op.LaneSeq, plan.Op.Bytes, plan.Op.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	fmt.Fprintf(w, "and renumber the %s queued after it to follow the remote's head (seq %d)\n", plural(plan.Later, "operation", "operations"), plan.RemoteSeq)
}
