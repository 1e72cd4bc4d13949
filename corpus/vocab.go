package corpus

import (
	"math/rand/v2"
	"strings"
)

// VocabularySize is the number of distinct words the prose draws from. With the Zipf exponent
// below, the head words occur in most entries, a few thousand words are medium frequency, and
// the tail words occur a handful of times in a corpus of 100k entries: the spread a full-text
// index meets in real transcripts.
const VocabularySize = 50000

// ZipfExponent is the s of the word distribution (rank r has weight 1/(1+r)^s). Natural
// language sits near 1; 1.07 matches the corpus the driver decision in docs/ARCHITECTURE.md was
// measured with.
const ZipfExponent = 1.07

// headWords are the top of the vocabulary, most common first: English function words, then
// the vocabulary of coding conversations. They make the generated prose read like prose and
// give phrase queries realistic common pairs.
var headWords = strings.Fields(`
the to of and a in is it that for this on with be as not we you are can at
from by or if but so an i will was have be all when which there its one would
should then now also into no just more only use out than like up do what first
need new how them because these after make see where before they other same
each still here way both get why file function error test code value change
return type string call field data line time request server config path build
run update check fix handler client query result index package module method
struct list map key count version cache log output input buffer context table
column row user token session message entry batch store schema migration lock
timeout retry response status header body json parse format default option flag
command process thread worker queue job event channel stream reader writer
service api endpoint route payload cursor offset limit page filter sort order
search match term rank score snippet chat agent tool model prompt summary tag
title branch commit merge diff patch review release deploy container image
variable constant interface pointer slice array integer float boolean nil null
exception stack trace panic goroutine mutex test case fixture mock assert
expected actual failing passing coverage benchmark profile memory allocation
latency throughput network socket connection database transaction rollback
`)

// markerWords must never be generated as vocabulary, or their documented counts would be wrong.
var markerWords = []string{RareTerm, ScarceTerm, MediumTerm, CommonTerm}

// Syllable parts of the pseudo-words that fill the rest of the vocabulary. No part contains
// "zqx", so no generated word can collide with a marker.
var (
	onsets = strings.Fields("b c d f g h j k l m n p r s t v w br cr dr fl gr kl pr st tr sh ch th")
	nuclei = strings.Fields("a e i o u a e i o u ai ea io ou")
	codas  = []string{"", "", "", "n", "r", "l", "s", "t", "k", "m", "nd", "rt", "st"}
)

// vocabulary returns VocabularySize distinct lowercase words, rank 0 most common.
func vocabulary(r *rand.Rand) []string {
	words := make([]string, 0, VocabularySize)
	seen := make(map[string]bool, VocabularySize) // membership only; never iterated
	for _, w := range markerWords {
		seen[w] = true
	}
	for _, w := range headWords {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	var b strings.Builder
	for len(words) < VocabularySize {
		b.Reset()
		// Mostly two syllables, like real words; the one-syllable space is small and soon
		// used up, and the rejection below keeps the list distinct.
		n := 2
		switch x := r.IntN(10); {
		case x == 0:
			n = 1
		case x >= 8:
			n = 3
		}
		for range n {
			b.WriteString(onsets[r.IntN(len(onsets))])
			b.WriteString(nuclei[r.IntN(len(nuclei))])
			b.WriteString(codas[r.IntN(len(codas))])
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}
