package summarize

import (
	"unicode/utf8"
)

// EstimateTokens estimates the tokens a model's tokenizer makes of s, without its vocabulary:
// a run of ASCII letters and digits is one token per four bytes, rounded up (common words are
// one token, long identifiers split); every other ASCII character but whitespace is a token of
// its own (JSON and stack traces are dense in them, which is why bytes undercount tool output);
// whitespace joins the word after it; every non-ASCII character is one token (CJK is one or
// two, accented letters less: the estimate errs on the side of smaller chunks). Byte-pair
// tokenizers of the common model families land within about a quarter of it on English prose,
// code and JSON.
func EstimateTokens(s string) int {
	n, run := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			n += (run + 3) / 4
			run = 0
			_, size := utf8.DecodeRuneInString(s[i:])
			n++
			i += size
			continue
		}
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
			run++
		default:
			n += (run + 3) / 4
			run = 0
			if c != ' ' && c != '\n' && c != '\t' && c != '\r' {
				n++
			}
		}
		i++
	}
	return n + (run+3)/4
}

// squeezeTokens is squeeze (head and tail around a marked cut) with a budget in estimated
// tokens: s is cut to the share of its bytes that the budget is of its tokens, and again until
// it fits (a tail denser than the head can need a second cut).
func squeezeTokens(s string, tokens int) string {
	for range 4 {
		t := EstimateTokens(s)
		if t <= tokens {
			return s
		}
		n := len(s) * tokens / t
		n -= 64 // room for the marker
		if n < 16 {
			n = 16
		}
		s = squeeze(s, n)
	}
	return s
}
