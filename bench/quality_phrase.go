package bench

import (
	"fmt"
	"sort"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// The phrase judged sets of the quality scenario: known-item queries that are quoted phrases of
// two words, each drawn from a target chat's own text (two words next to each other in one of
// its entries, at least twice in the chat). Two sets, as a phrase is ranked in two regimes:
//
//   - phrases: the rarer word is in the document-frequency band of the word sets (0.2%–30% of
//     the chats), so the phrase's own frequency in a chat weighs in its ranking;
//   - phrases of common words: both words are in more than half of the chats (as "the test"),
//     the phrases people type from stop-word-heavy text, where the ranking has little to go by.
//
// The targets are the word sets' (spread evenly over the chat list), a target's phrase is its
// most frequent one of the kind (ties by the phrase), and the chat frequencies are exact counts
// of single words, so the sets depend only on the data.

const (
	phraseSetBand   = "known item, phrases"
	phraseSetCommon = "known item, phrases of common words"
	// phraseLookups bounds the words whose chat frequency one target looks up.
	phraseLookups = 16
)

// phraseJudgedSet builds the phrase queries from the store's data.
func phraseJudgedSet(t *target) ([]judged, error) {
	all := annals.Owner{AllTenants: true}
	_, nChats, err := t.store.FindChats(t.ctx, annals.ChatFilter{Owner: all, Limit: 1, IncludeArchived: true})
	if err != nil || nChats == 0 {
		return nil, err
	}
	step := max(nChats/qualityTargets, 1)
	df := map[string]int{}
	var set []judged
	for off, n := step/2, 0; off < nChats && n < qualityTargets; off, n = off+step, n+1 {
		chats, _, err := t.store.FindChats(t.ctx, annals.ChatFilter{Owner: all, Limit: 1, Offset: off, IncludeArchived: true})
		if err != nil {
			return nil, err
		}
		if len(chats) == 0 {
			break
		}
		band, common, err := targetPhrases(t, chats[0].ID, df, nChats)
		if err != nil {
			return nil, err
		}
		if band != "" {
			set = append(set, judged{query: `"` + band + `"`, target: chats[0].ID, set: phraseSetBand})
		}
		if common != "" {
			set = append(set, judged{query: `"` + common + `"`, target: chats[0].ID, set: phraseSetCommon})
		}
	}
	return set, nil
}

// targetPhrases returns a chat's most frequent two-word phrase whose rarer word is in the band
// and its most frequent one of two words each in more than half of the chats ("" when none);
// df caches chat frequencies across targets.
func targetPhrases(t *target, chatID string, df map[string]int, nChats int) (band, common string, err error) {
	entries, err := t.store.FindEntries(t.ctx, annals.EntryFilter{ChatID: chatID, Limit: qualityEntries})
	if err != nil {
		return "", "", err
	}
	tf := map[string]int{}
	for _, e := range entries {
		toks := query.Tokenize(e.Text)
		for i := 1; i < len(toks); i++ {
			if letters(toks[i-1]) && letters(toks[i]) {
				tf[toks[i-1]+" "+toks[i]]++
			}
		}
	}
	phrases := make([]string, 0, len(tf))
	for p, n := range tf {
		if n >= 2 {
			phrases = append(phrases, p)
		}
	}
	sort.Slice(phrases, func(i, j int) bool {
		if tf[phrases[i]] != tf[phrases[j]] {
			return tf[phrases[i]] > tf[phrases[j]]
		}
		return phrases[i] < phrases[j]
	})
	looked := 0
	freq := func(w string) (float64, bool, error) {
		if _, ok := df[w]; !ok {
			if looked == phraseLookups {
				return 0, false, nil
			}
			looked++
		}
		n, err := chatFreq(t, w, df)
		return float64(n) / float64(nChats), err == nil, err
	}
	for _, p := range phrases {
		if band != "" && common != "" {
			break
		}
		a, b, _ := strings.Cut(p, " ")
		fa, oka, err := freq(a)
		if err != nil {
			return "", "", err
		}
		fb, okb, err := freq(b)
		if err != nil {
			return "", "", err
		}
		if !oka || !okb {
			continue
		}
		if lo := min(fa, fb); band == "" && lo >= qualityMinDF && lo <= qualityMaxDF {
			band = p
		}
		if common == "" && fa > 0.5 && fb > 0.5 {
			common = p
		}
	}
	return band, common, nil
}

// letters keeps lower-case ASCII words (of any length: the common words are short), so a
// phrase reads the same in every backend's tokenizer.
func letters(w string) bool {
	return w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == ""
}

// String is a judged query as the tests print it.
func (j judged) String() string { return fmt.Sprintf("%s: %s → %s", j.set, j.query, j.target) }
