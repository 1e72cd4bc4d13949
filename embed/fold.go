package embed

import (
	"unicode"
	"unicode/utf8"
)

// The accent folding below is hand-written so the module stays on the standard library
// (golang.org/x/text would do a full Unicode decomposition). It covers what matters for the
// Latin-script text of most chats: precomposed letters of Latin-1 Supplement (U+00C0–U+00FF)
// and Latin Extended-A (U+0100–U+017F) map to their ASCII base letter, and combining marks
// (category Mn) are dropped, which folds decomposed input such as "e\u0301" too. Other scripts
// pass through lowercased, unfolded.

// latin1Fold maps U+00C0..U+00FF to a base letter; '*' marks code points handled in foldRune
// (ligatures and letters that fold to two letters, and the × and ÷ signs, which are not
// letters at all).
const latin1Fold = "aaaaaa*ceeeeiiiidnooooo*ouuuuy**aaaaaa*ceeeeiiiidnooooo*ouuuuy*y"

// latinExtAFold maps U+0100..U+017F to a base letter; '*' marks the ligatures Ĳ ĳ Œ œ.
const latinExtAFold = "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii**jjkkklllllllllln" +
	"nnnnnnnnoooooo**rrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs"

// foldRune returns the folded form of a lowercased rune: up to two ASCII letters in a and b
// (b is 0 when the fold is one letter), or ok false when r has no fold and is kept as is.
func foldRune(r rune) (a, b byte, ok bool) {
	switch r {
	case 'æ', 'Æ':
		return 'a', 'e', true
	case 'þ', 'Þ':
		return 't', 'h', true
	case 'ß':
		return 's', 's', true
	case 'ĳ', 'Ĳ':
		return 'i', 'j', true
	case 'œ', 'Œ':
		return 'o', 'e', true
	}
	switch {
	case r >= 0xC0 && r <= 0xFF:
		if c := latin1Fold[r-0xC0]; c != '*' {
			return c, 0, true
		}
	case r >= 0x100 && r <= 0x17F:
		if c := latinExtAFold[r-0x100]; c != '*' {
			return c, 0, true
		}
	}
	return 0, 0, false
}

// appendNormalized appends the words of s to dst, lowercased and accent-folded, each word
// followed by one space, and returns dst. A word is a maximal run of letters and digits; every
// other character separates words, so "file_path", "total.go" and "half-up" split into their
// parts, which is what lets a query word match inside an identifier. Combining marks are dropped
// without splitting the word they sit on.
func appendNormalized(dst []byte, s string) []byte {
	inWord := false
	for _, r := range s {
		if r < utf8.RuneSelf {
			// ASCII fast path: most chat text is ASCII, and unicode.ToLower is comparatively slow.
			switch {
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
				dst = append(dst, byte(r))
				inWord = true
			case 'A' <= r && r <= 'Z':
				dst = append(dst, byte(r)+('a'-'A'))
				inWord = true
			default:
				if inWord {
					dst = append(dst, ' ')
					inWord = false
				}
			}
			continue
		}
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if a, b, ok := foldRune(r); ok {
			dst = append(dst, a)
			if b != 0 {
				dst = append(dst, b)
			}
			inWord = true
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			dst = utf8.AppendRune(dst, r)
			inWord = true
			continue
		}
		if inWord {
			dst = append(dst, ' ')
			inWord = false
		}
	}
	if inWord {
		dst = append(dst, ' ')
	}
	return dst
}
