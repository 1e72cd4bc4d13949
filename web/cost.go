package web

import (
	"context"

	"github.com/annals-dev/annals"
)

// Costs as the list and a chat's header show them: what the chat's runs recorded plus what the
// history estimates from its pricing table for runs that recorded tokens but no cost (the usage
// report's pricing, asked for these chats only), marked estimated. The web prices nothing itself.

// chatEstimates is the estimated part of each chat's cost, by chat id (none for a chat whose
// runs all recorded a cost or whose models the table does not know). A history that sums no
// usage estimates nothing.
func chatEstimates(ctx context.Context, c annals.HistoryService, chats []*annals.Chat) (map[string]float64, error) {
	ids := make([]string, 0, len(chats))
	for _, ch := range chats {
		if ch.Totals.Runs > 0 {
			ids = append(ids, ch.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if len(ids) > annals.MaxUsageTop {
		ids = ids[:annals.MaxUsageTop]
	}
	// Each chat's figures alone: one statement of the store, not the whole report's two.
	rep, err := c.Usage(ctx, annals.UsageParams{ChatIDs: ids, CostsOnly: true})
	if annals.ErrorCode(err) == annals.ENOTIMPLEMENTED {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(rep.Top.ByCost))
	for _, uc := range rep.Top.ByCost {
		if uc.EstimatedCostUSD > 0 {
			out[uc.ChatID] = uc.EstimatedCostUSD
		}
	}
	return out, nil
}

// costWithEstimate is a recorded cost plus its estimated part, said so when there is one ("" for
// no cost at all).
func costWithEstimate(recorded, estimated float64) string {
	s := formatCost(recorded + estimated)
	if s != "" && estimated > 0 {
		s += " (estimated)"
	}
	return s
}
