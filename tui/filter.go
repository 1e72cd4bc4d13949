package tui

import (
	"slices"
	"strings"

	"github.com/annals-dev/annals"
)

// filterKeys are the names the filter prompt (f) takes, each as name:value; "archived" alone
// lists archived chats too. The query language filters the same things by typing (agent:,
// tag:, attr.source:, after:, before:); status and archived are the prompt's alone.
var filterKeys = "agent, source, repo, cwd, tag, status, from, to, rank, archived"

// ranks are the rankings a search may ask for (rank: in the filter prompt, R cycles them).
var ranks = []string{annals.RankLexical, annals.RankHybrid, annals.RankSemantic}

// parseFilter reads the filter prompt: name:value words (a value may be "quoted"), where repo
// and cwd match a part of the chat's repository or folder, the others whole values; rank is how
// the results are ranked ("" when not given).
func parseFilter(s string) (q annals.ChatQuery, rank string, err error) {
	var status, from, to string
	for _, w := range splitQuoted(s) {
		if w == "archived" {
			q.IncludeArchived = true
			continue
		}
		name, value, ok := strings.Cut(w, ":")
		value = strings.Trim(value, `"`)
		if !ok || value == "" {
			return q, "", annals.Errorf(annals.EINVALID, "%q is not name:value (names: %s)", w, filterKeys)
		}
		attr := func(k string, contains bool) {
			if q.Attributes == nil {
				q.Attributes = map[string]annals.AttrMatch{}
			}
			q.Attributes[k] = annals.AttrMatch{Value: value, Contains: contains}
		}
		switch strings.ToLower(name) {
		case "agent":
			q.Agent = value
		case "source":
			attr("source", false)
		case "repo", "repository":
			attr("repository", true)
		case "cwd":
			attr("cwd", true)
		case "tag":
			q.Tag = value
		case "status":
			status = value
		case "from", "after":
			from = value
		case "to", "before":
			to = value
		case "rank":
			if rank = strings.ToLower(value); !slices.Contains(ranks, rank) {
				return q, "", annals.Errorf(annals.EINVALID, "unknown rank %q (want %s)", value, strings.Join(ranks, ", "))
			}
		default:
			return q, "", annals.Errorf(annals.EINVALID, "unknown filter %q (names: %s)", name, filterKeys)
		}
	}
	return q, rank, q.ParseBounds(status, from, to)
}

// nextRank is the ranking after r in ranks, round.
func nextRank(r string) string {
	i := slices.Index(ranks, r)
	return ranks[(i+1)%len(ranks)]
}

// splitQuoted splits on spaces outside double quotes.
func splitQuoted(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case r == ' ' && !quoted:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
