package annals

import (
	"context"
	"sync"
)

// PrefixExpansion says what one prefix term of a search (migrat*) stood for: the words of the
// index it was expanded into, and what finding them cost.
type PrefixExpansion struct {
	// Prefix is the term as searched, with its star: "re*", or "emag r*" for a phrase.
	Prefix string `json:"prefix"`
	// Words are the words the prefix was searched as, the most frequent first when capped.
	Words []string `json:"words"`
	// Scanned is how many words of the index's vocabulary starting with the prefix were read;
	// Vocabulary is how many there are when the walk reached the end (0: more than Scanned).
	Scanned    int `json:"scanned"`
	Vocabulary int `json:"vocabulary,omitempty"`
	// Docs is the sum of the searched words' document counts (chat documents holding each, per
	// field): the postings the search reads for the prefix.
	Docs int `json:"docs"`
	// Capped is true when the prefix stands for more words than a search expands: only Words
	// were searched, so chats holding only rarer words are missing (the page is partial).
	Capped bool `json:"capped,omitempty"`
	// AllTenants is true when the store read the words and counts from every tenant's chats (its
	// vocabulary is one for the whole index, as SQLite's is). The history then shows Words, Docs,
	// Scanned and Vocabulary only to an admin, who may read every tenant anyway.
	AllTenants bool `json:"all_tenants,omitempty"`
}

// Withheld returns x without what it says of other tenants' chats: the words and counts of a
// vocabulary read from every tenant (AllTenants), which would let a caller enumerate the words
// of chats it may not read.
func (x PrefixExpansion) Withheld() PrefixExpansion {
	if !x.AllTenants {
		return x
	}
	return PrefixExpansion{Prefix: x.Prefix, Capped: x.Capped, AllTenants: true}
}

// SearchExplain is what a store reports about how it ran a search (SearchParams.Explain).
type SearchExplain struct {
	Expansions []PrefixExpansion `json:"expansions,omitempty"`
	// Path names the way the store answered: "chat documents" or "entry index".
	Path string `json:"path,omitempty"`
	// Rank is the ranking the search used (RankLexical, RankHybrid, RankSemantic) and
	// RankReason why: the caller asked for it, or the default's rule (docs/QUERY.md, "Which
	// ranking a search uses").
	Rank       string `json:"rank,omitempty"`
	RankReason string `json:"rank_reason,omitempty"`
}

// SearchReport collects what a store reports while it runs one search: NewContextWithSearchReport
// carries it to the store, which calls Expanded, SetPath and SetTotalAtLeast; the history service copies it into
// the page. Safe for concurrent use.
type SearchReport struct {
	mu      sync.Mutex
	explain SearchExplain
	// atLeast: the store stopped counting after its page (SetTotalAtLeast).
	atLeast bool
}

type searchReportKey struct{}

// NewContextWithSearchReport returns a copy of ctx under which a store reports to r.
func NewContextWithSearchReport(ctx context.Context, r *SearchReport) context.Context {
	return context.WithValue(ctx, searchReportKey{}, r)
}

// SearchReportFrom is the report ctx carries, or nil; the methods of a nil report do nothing.
func SearchReportFrom(ctx context.Context) *SearchReport {
	r, _ := ctx.Value(searchReportKey{}).(*SearchReport)
	return r
}

// Expanded records a prefix's expansion.
func (r *SearchReport) Expanded(x PrefixExpansion) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.explain.Expansions = append(r.explain.Expansions, x)
}

// SetPath records how the search was answered.
func (r *SearchReport) SetPath(path string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.explain.Path = path
}

// Explain is a copy of what was reported.
func (r *SearchReport) Explain() SearchExplain {
	if r == nil {
		return SearchExplain{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.explain
	out.Expansions = append([]PrefixExpansion(nil), r.explain.Expansions...)
	return out
}

// SetTotalAtLeast records that the store stopped after its page instead of counting every match:
// the total it returns is how many it found, a lower bound (SearchPage.TotalIsLowerBound).
func (r *SearchReport) SetTotalAtLeast() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.atLeast = true
}

// TotalAtLeast reports whether the store's total is a lower bound (SetTotalAtLeast).
func (r *SearchReport) TotalAtLeast() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.atLeast
}
