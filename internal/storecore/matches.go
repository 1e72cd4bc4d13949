package storecore

import "github.com/annals-dev/annals"

// IsDisjunction reports whether e is one term or terms joined by OR (no AND, no exclusion).
func IsDisjunction(e *annals.TextExpr) bool {
	switch e.Op {
	case annals.TextTerm:
		return true
	case annals.TextOr:
		for _, it := range e.Items {
			if !IsDisjunction(it) {
				return false
			}
		}
		return len(e.Items) > 0
	}
	return false
}

// A chat hit's Matches is the number of its entries that match the query by themselves — the
// entries an entry search (--entries) lists for that chat: each holds every word of the query
// (or one side of an OR), none of its exclusions, and passes its entry filters. The chat
// rankings count the entries holding any positive word on their way (to rank by), which is
// that number only for a word or words joined by OR.

// MatchCountDiffers reports whether a chat ranking's own count of a chat's entries differs from
// the entries that match by themselves, so the page's counts must be taken again: an AND, an
// exclusion, or a query of entry filters only (which the rankings do not count at all).
func MatchCountDiffers(text *annals.TextExpr, entryFilters bool) bool {
	if text == nil {
		return entryFilters
	}
	return !IsDisjunction(text)
}

// TopExclusions are the terms and groups a query excludes at its top (`a -b -"c d"`): a chat
// search leaves out a chat holding one of them anywhere, so an entry search leaves out that
// chat's entries too, and both modes agree on what matches.
func TopExclusions(text *annals.TextExpr) []*annals.TextExpr {
	if text == nil || text.Op != annals.TextAnd {
		return nil
	}
	var out []*annals.TextExpr
	for _, it := range text.Items {
		if it.Op == annals.TextNot && len(it.Items) == 1 {
			out = append(out, it.Items[0])
		}
	}
	return out
}

// OrderOnly leaves a page's hits as annals.SearchFilter.OrderOnly promises when f asks for it:
// no Matches and no Snippets (for the store paths that read them on their way).
func OrderOnly(f annals.SearchFilter, hits []annals.ChatHit) []annals.ChatHit {
	if f.OrderOnly {
		for i := range hits {
			hits[i].Matches, hits[i].Snippets = 0, nil
		}
	}
	return hits
}
