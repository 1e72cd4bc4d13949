package bench

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// The quality scenario: a judged set of known-item queries on the bench corpus. Each query is
// built from one target chat's own words (words frequent in that chat and in between 0.2% and
// 30% of all chats, so that hundreds of chats match and the ranking decides), and the target is
// its one relevant chat. The set depends only on the data (the targets are spread evenly over
// the chat list, the words picked by their counts, ties by the word), so two builds of annals
// on the same database are judged on the same queries. The scores are recall@10 (the target
// is in the first page of ten), nDCG@10 (1/log2(1 + rank) within the first ten, 0 beyond) and
// the mean reciprocal rank within the first ten.

const (
	qualityTargets    = 60  // target chats; each gives a one-word and a two-word query
	qualityEntries    = 400 // entries read per target to find its words
	qualityCandidates = 6   // the target's most frequent words whose chat frequency is looked up
	qualityMinDF      = 0.002
	qualityMaxDF      = 0.30
	qualityPage       = 10
)

// judged is one query and the chat that answers it; set names the row it is scored in.
type judged struct {
	query, target, set string
}

// wordsSet is the row of the one- and two-word queries.
func wordsSet(n int) string { return fmt.Sprintf("known item, %d-word queries", n) }

func (b *runner) qualityScenario(t *target) error {
	set, err := judgedSet(t)
	if err != nil {
		return err
	}
	phrases, err := phraseJudgedSet(t)
	if err != nil {
		return err
	}
	set = append(set, phrases...)
	if len(set) == 0 {
		b.gap("quality", "no target chat has words in the document-frequency band; the corpus is too small")
		return nil
	}
	type score struct {
		n, found int
		ndcg, rr float64
	}
	bySet := map[string]*score{}
	var sets []string // in the order of their first query
	for _, j := range set {
		res, err := t.svc.SearchChats(t.ctx, annals.SearchParams{Scope: annals.ScopeGlobal, Query: j.query, Page: annals.PageParams{Limit: qualityPage}})
		if err != nil {
			return fmt.Errorf("quality %q: %w", j.query, err)
		}
		s := bySet[j.set]
		if s == nil {
			s = &score{}
			bySet[j.set] = s
			sets = append(sets, j.set)
		}
		s.n++
		for i, h := range res.Chats {
			if h.Chat.ID == j.target {
				s.found++
				s.ndcg += 1 / math.Log2(float64(i)+2)
				s.rr += 1 / float64(i+1)
				break
			}
		}
	}
	for _, name := range sets {
		s := bySet[name]
		n := float64(s.n)
		b.add(Row{Scenario: "quality", Case: name, Backend: t.backend, N: s.n,
			Rate: roundTo(100*float64(s.found)/n, 1), Unit: "% recall@10",
			Note: fmt.Sprintf("recall@10 %.3f, nDCG@10 %.3f, MRR@10 %.3f over %d judged queries", float64(s.found)/n, s.ndcg/n, s.rr/n, s.n)})
	}
	return nil
}

// judgedSet builds the judged queries from the store's data.
func judgedSet(t *target) ([]judged, error) {
	all := annals.Owner{AllTenants: true}
	_, nChats, err := t.store.FindChats(t.ctx, annals.ChatFilter{Owner: all, Limit: 1, IncludeArchived: true})
	if err != nil {
		return nil, err
	}
	if nChats == 0 {
		return nil, nil
	}
	step := max(nChats/qualityTargets, 1)
	df := map[string]int{}
	var set []judged
	for off := step / 2; off < nChats && len(set) < 2*qualityTargets; off += step {
		chats, _, err := t.store.FindChats(t.ctx, annals.ChatFilter{Owner: all, Limit: 1, Offset: off, IncludeArchived: true})
		if err != nil {
			return nil, err
		}
		if len(chats) == 0 {
			break
		}
		words, err := targetWords(t, chats[0].ID, nil, df, nChats)
		if err != nil {
			return nil, err
		}
		if len(words) >= 1 {
			set = append(set, judged{query: words[0], target: chats[0].ID, set: wordsSet(1)})
		}
		if len(words) >= 2 {
			set = append(set, judged{query: words[0] + " " + words[1], target: chats[0].ID, set: wordsSet(2)})
		}
		// The same target asked for by its user's most frequent word under role:user, which ranks
		// entries (a walk of the newest matching entries, one word) rather than chat documents.
		if words, err = targetWords(t, chats[0].ID, []annals.EntryKind{annals.KindUser}, df, nChats); err != nil {
			return nil, err
		}
		if len(words) >= 1 {
			set = append(set, judged{query: "role:user " + words[0], target: chats[0].ID, set: roleUserSet})
		}
	}
	return set, nil
}

// roleUserSet is the row of the one-word queries of the user's words under role:user.
const roleUserSet = "known item, role:user, 1-word queries"

// targetWords returns a chat's most frequent plain words (letters only, at least 5) whose chat
// frequency lies in the band, most frequent first, from its entries of kinds (nil: every
// kind); df caches chat frequencies across targets.
func targetWords(t *target, chatID string, kinds []annals.EntryKind, df map[string]int, nChats int) ([]string, error) {
	entries, err := t.store.FindEntries(t.ctx, annals.EntryFilter{ChatID: chatID, Kinds: kinds, Limit: qualityEntries})
	if err != nil {
		return nil, err
	}
	tf := map[string]int{}
	for _, e := range entries {
		texts := []string{e.Text}
		if e.Tool != nil {
			texts = append(texts, e.Tool.Result)
		}
		for _, s := range texts {
			for _, w := range query.Tokenize(s) {
				if plainWord(w) {
					tf[w]++
				}
			}
		}
	}
	words := make([]string, 0, len(tf))
	for w, n := range tf {
		if n >= 2 {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool {
		if tf[words[i]] != tf[words[j]] {
			return tf[words[i]] > tf[words[j]]
		}
		return words[i] < words[j]
	})
	var out []string
	looked := 0
	for _, w := range words {
		if looked == qualityCandidates || len(out) == 2 {
			break
		}
		if _, ok := df[w]; !ok {
			looked++
		}
		n, err := chatFreq(t, w, df)
		if err != nil {
			return nil, err
		}
		if f := float64(n) / float64(nChats); f >= qualityMinDF && f <= qualityMaxDF {
			out = append(out, w)
		}
	}
	return out, nil
}

// chatFreq is the exact number of chats holding the word w (any correct search reports it),
// kept in df.
func chatFreq(t *target, w string, df map[string]int) (int, error) {
	if n, ok := df[w]; ok {
		return n, nil
	}
	_, total, err := t.store.SearchChats(t.ctx, annals.SearchFilter{Chat: annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, IncludeArchived: true},
		Text: &annals.TextExpr{Op: annals.TextTerm, Tokens: []string{w}}, Limit: 1})
	if err != nil {
		return 0, err
	}
	df[w] = total
	return total, nil
}

// plainWord keeps lower-case ASCII words of five letters or more, so a query is one token and
// reads the same in every backend's tokenizer.
func plainWord(w string) bool {
	if len(w) < 5 {
		return false
	}
	return !slices.ContainsFunc([]byte(w), func(c byte) bool { return c < 'a' || c > 'z' })
}
