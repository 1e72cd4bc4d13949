package summarize

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Agent harnesses put machine text inside user messages (Claude Code's <system-reminder>,
// command output, IDE context). It is not what the user asked, so it is removed before looking
// for the goal. Go's regexp has no back-references, so open and close tags are matched from the
// same list.
var harnessBlocks = regexp.MustCompile(`(?s)<(system-reminder|local-command-stdout|local-command-stderr|command-message|ide_[a-z_]+|user-prompt-submit-hook)>.*?</(system-reminder|local-command-stdout|local-command-stderr|command-message|ide_[a-z_]+|user-prompt-submit-hook)>`)

// harnessWrappers are tags around what the user did type: a slash command and its arguments
// ("<command-name>/review</command-name><command-args>the auth module</command-args>"). The
// tags go, the text stays.
var harnessWrappers = regexp.MustCompile(`</?(command-name|command-args)>`)

// codeFence matches a fenced code block. Code is never a sentence: in a goal it becomes a marker,
// in assistant text it is dropped before sentences are picked.
var codeFence = regexp.MustCompile("(?s)```.*?(```|$)")

// cleanProse returns s without harness tags and with code blocks replaced by repl, whitespace
// kept (sentence splitting uses line breaks).
func cleanProse(s, repl string) string {
	s = harnessBlocks.ReplaceAllString(s, " ")
	s = harnessWrappers.ReplaceAllString(s, " ")
	return codeFence.ReplaceAllString(s, repl)
}

// oneLine collapses every run of whitespace to one space, so that no text from a transcript can
// start a new Markdown line (a heading, a list) in the summary.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n bytes, cutting at a word boundary when one is near and marking
// the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut*2/3 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:-") + "…"
}

// abbreviations end in a period that does not end a sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "mr.", "ms.", "dr.", "no."}

// sentences splits prose into sentences: every line is its own unit (Markdown bullets and
// headings are one thought each, their markers dropped), and within a line a '.', '!' or '?'
// followed by whitespace ends a sentence unless it closes an abbreviation, as does a CJK full
// stop, question or exclamation mark. A period inside a
// token ("total.go", "10.05") is never a boundary, because it is not followed by whitespace.
func sentences(s string) []string {
	// CJK full stops end a sentence with no space after them: give them one.
	s = cjkStops.Replace(s)
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "#>*-+ \t")
		if i := numberedPrefix(line); i > 0 {
			line = line[i:]
		}
		line = strings.TrimSpace(line)
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c != '.' && c != '!' && c != '?' {
				continue
			}
			// Swallow a run of terminators and closing quotes/brackets: "done!)" or "why?!".
			j := i + 1
			for j < len(line) && strings.IndexByte(".!?)\"'”’", line[j]) >= 0 {
				j++
			}
			if j < len(line) && line[j] != ' ' && line[j] != '\t' {
				i = j - 1
				continue
			}
			if c == '.' && endsWithAbbreviation(line[start:j]) {
				i = j - 1
				continue
			}
			if sent := strings.TrimSpace(line[start:j]); sent != "" {
				out = append(out, sent)
			}
			start = j
			i = j - 1
		}
		if sent := strings.TrimSpace(line[start:]); sent != "" {
			out = append(out, sent)
		}
	}
	return out
}

var cjkStops = strings.NewReplacer("。", "。\n", "！", "！\n", "？", "？\n")

// isQuestion reports whether a sentence asks something.
func isQuestion(s string) bool {
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？")
}

// numberedPrefix returns the length of a "1. " or "2) " list marker at the start of line.
func numberedPrefix(line string) int {
	i := 0
	for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return i + 2
	}
	return 0
}

func endsWithAbbreviation(s string) bool {
	lower := strings.ToLower(s)
	for _, a := range abbreviations {
		if strings.HasSuffix(lower, a) && (len(lower) == len(a) || !isWordByte(lower[len(lower)-len(a)-1])) {
			return true
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_'
}

// firstSentences returns the leading sentences of prose that fit in n bytes (at least the first
// one, clipped when it alone is longer), joined on one line.
func firstSentences(prose string, n int) string {
	var b strings.Builder
	for _, s := range sentences(prose) {
		s = oneLine(s)
		if b.Len() == 0 {
			if len(s) > n {
				return clip(s, n)
			}
			b.WriteString(s)
			continue
		}
		if b.Len()+1+len(s) > n {
			break
		}
		if prev := b.String(); !strings.HasSuffix(prev, "。") && !strings.HasSuffix(prev, "！") && !strings.HasSuffix(prev, "？") {
			b.WriteByte(' ') // CJK sentences follow each other without a space
		}
		b.WriteString(s)
	}
	return b.String()
}

// words returns the lowercase letter-or-digit words of s.
func words(s string) []string {
	s = strings.ReplaceAll(strings.ToLower(s), "’", "'") // typographic apostrophe: "I’ll"
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// contentWords returns the set of words of s that carry meaning (not function words, not very
// short), which is what overlap between two sentences is measured on.
func contentWords(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words(s) {
		if len(w) > 2 && !functionWord(w) {
			set[w] = true
		}
	}
	return set
}

// overlap is the Jaccard similarity of two word sets.
func overlap(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func functionWord(w string) bool {
	switch w {
	case "the", "and", "for", "that", "this", "with", "you", "your", "are", "was", "were", "but",
		"not", "can", "could", "would", "should", "will", "have", "has", "had", "from", "into",
		"its", "it's", "our", "out", "all", "any", "now", "then", "than", "there", "here", "what",
		"when", "which", "who", "how", "why", "also", "just", "i'll", "we'll", "let's", "i'm",
		"don't", "please", "yes", "okay", "they", "them", "been", "being", "some", "more", "very":
		return true
	}
	return false
}
