package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// SearchChats finds chats (or, in entries mode, entries) in scope matching a query in the search
// language, across titles, descriptions, summaries, tags and transcript bodies, with every list
// filter available. Chats are ranked by relevance blended with recency (or by recency alone with
// sort: recent) and carry up to three snippets that point at their entry seq, their matched
// terms between annals.SnippetMarkOpen and annals.SnippetMarkClose.
func (s *Service) SearchChats(ctx context.Context, p annals.SearchParams) (*annals.SearchPage, error) {
	res, err := Resolve(ctx, string(p.Scope))
	if err != nil {
		return nil, err
	}
	mode := p.Mode
	if mode == "" {
		mode = annals.SearchChatsMode
	}
	if mode != annals.SearchChatsMode && mode != annals.SearchEntriesMode {
		return nil, annals.Errorf(annals.EINVALID, "unknown search mode %q (want chats or entries)", mode)
	}
	f, q, err := searchFilter(p, res.Owner)
	if err != nil {
		return nil, err
	}
	choice := s.chooseRank(ctx, p, mode, res, f, q)
	if choice.rank != annals.RankLexical {
		return s.searchByMeaning(ctx, p, choice, mode, res, f, q)
	}
	out := &annals.SearchPage{Limit: f.Limit, Offset: f.Offset, Scope: string(res.Scope), Mode: string(mode), Query: q.String()}
	report, n, err := s.runSearch(ctx, f, mode, out)
	if f.Sort != annals.SortRecent && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// Ranking ran out of its budget, the request did not: the newest matches, said so.
		f.Sort = annals.SortRecent
		report, n, err = s.runSearch(ctx, f, mode, out)
		if _, unreadable := annals.Unreadable(err); err == nil || unreadable {
			out.Partial, out.PartialReason = true, fmt.Sprintf("ranking by relevance took longer than the search budget (%s); these are the newest matches", s.searchBudget)
		}
	}
	if skipped, partial := annals.Unreadable(err); partial {
		s.log.Warn("search: chats that cannot be read were left out of the page", "chats", skipped, "err", annals.ErrorDetail(err))
		out.Unreadable, err = skipped, nil
		n += len(skipped)
	}
	if err != nil {
		return nil, err
	}
	out.TotalIsLowerBound = report.TotalAtLeast()
	explain := report.Explain()
	if !out.Partial {
		markPartial(out, explain)
	}
	if p.Explain {
		out.Explain = explainFor(ctx, explain)
		out.Explain.Rank, out.Explain.RankReason = choice.rank, choice.reason
	}
	// Relevance scores come from full-text statistics over the whole index, every tenant's rows
	// included, so an absolute score would tell a member how common a word is in other tenants'
	// chats. Only a global (admin) search sees scores; everyone else gets the order alone.
	if res.Scope != annals.ScopeGlobal {
		for i := range out.Chats {
			out.Chats[i].Score = 0
		}
		for i := range out.Entries {
			out.Entries[i].Score = 0
		}
	}
	// A lower bound says there may be more past it: a full page gets a cursor.
	if next := f.Offset + n; n > 0 && (next < out.Total || (out.TotalIsLowerBound && n >= f.Limit)) {
		out.NextCursor = encodeCursor(cursor{Offset: next})
	}
	return out, nil
}

// DefaultSearchBudget is how long a search by relevance may run (Config.SearchBudget).
const DefaultSearchBudget = 5 * time.Second

// runSearch runs the store's search into out, a relevance search within the search budget, and
// returns what the store reported and how many hits (or unreadable chats) the page holds.
func (s *Service) runSearch(ctx context.Context, f annals.SearchFilter, mode annals.SearchMode, out *annals.SearchPage) (*annals.SearchReport, int, error) {
	report := &annals.SearchReport{}
	ctx = annals.NewContextWithSearchReport(ctx, report)
	if f.Sort != annals.SortRecent {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.searchBudget)
		defer cancel()
	}
	var err error
	if mode == annals.SearchEntriesMode {
		out.Entries, out.Total, err = s.store.SearchEntries(ctx, f)
		return report, len(out.Entries), err
	}
	out.Chats, out.Total, err = s.store.SearchChats(ctx, f)
	return report, len(out.Chats), err
}

// markPartial marks the page partial when a prefix was searched as fewer words than it stands for.
func markPartial(out *annals.SearchPage, x annals.SearchExplain) {
	var why []string
	for _, e := range x.Expansions {
		if !e.Capped {
			continue
		}
		of := fmt.Sprintf("more than %d", e.Scanned)
		if e.Vocabulary > 0 {
			of = strconv.Itoa(e.Vocabulary)
		}
		why = append(why, fmt.Sprintf("%s stands for %s words; searched the %d most frequent (type more letters to narrow it)", e.Prefix, of, len(e.Words)))
	}
	if len(why) > 0 {
		out.Partial, out.PartialReason = true, strings.Join(why, "; ")
	}
}

// searchFilter turns the parameters of a search into the store's filter, checking the query,
// the fields and the attributes; q is the parsed query, whose canonical form the page echoes.
func searchFilter(p annals.SearchParams, owner annals.Owner) (annals.SearchFilter, *query.Query, error) {
	if strings.TrimSpace(p.Query) == "" {
		return annals.SearchFilter{}, nil, annals.Errorf(annals.EINVALID, "search needs a query (words, \"phrases\", prefix*, -exclusions, OR, or filters such as tool:Bash; see docs/QUERY.md)")
	}
	q, err := query.Parse(p.Query)
	if err != nil {
		return annals.SearchFilter{}, nil, err
	}
	for _, in := range p.In {
		if !containsString(annals.SearchFields, in) {
			return annals.SearchFilter{}, nil, annals.Errorf(annals.EINVALID, "unknown search field %q in \"in\" (want any of: %s)", in, strings.Join(annals.SearchFields, ", "))
		}
	}
	chat, err := chatFilter(p.Filter, p.Page, owner)
	if err != nil {
		return annals.SearchFilter{}, nil, err
	}
	chat.Agents = q.Filters.Agents
	chat.Tags = q.Filters.Tags
	for k, v := range q.Filters.Attrs {
		if chat.Attributes == nil {
			chat.Attributes = map[string]annals.AttrMatch{}
		}
		if _, dup := chat.Attributes[k]; dup {
			return annals.SearchFilter{}, nil, annals.Errorf(annals.EINVALID, "attribute %q is filtered both in the query and in attributes; give it once", k)
		}
		chat.Attributes[k] = annals.AttrMatch{Value: v}
	}
	f := annals.SearchFilter{
		Chat:      chat,
		Text:      query.ToTextExpr(q.Text),
		Fields:    q.Fields,
		Roles:     q.Filters.Roles,
		Tools:     q.Filters.Tools,
		After:     q.Filters.After,
		Before:    q.Filters.Before,
		Sort:      p.Sort,
		Limit:     chat.Limit,
		Offset:    chat.Offset,
		Snippets:  3,
		MarkOpen:  annals.SnippetMarkOpen,
		MarkClose: annals.SnippetMarkClose,
	}
	if len(p.In) > 0 {
		f.Fields = p.In
	}
	return f, q, nil
}

// explainFor is what a caller is shown of how its search ran: a member never sees the words or
// counts of a vocabulary the store read from every tenant's chats (they would enumerate the words
// of chats it may not read); an admin, who may read every tenant, sees all.
func explainFor(ctx context.Context, x annals.SearchExplain) *annals.SearchExplain {
	if annals.PrincipalFromContext(ctx).IsAdmin() {
		return &x
	}
	out := x
	out.Expansions = make([]annals.PrefixExpansion, len(x.Expansions))
	for i, e := range x.Expansions {
		out.Expansions[i] = e.Withheld()
	}
	return &out
}
