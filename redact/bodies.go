package redact

import "strings"

// The checks a token rule runs on a body it found (tokenRule.check): each tells a random key
// body from a near miss of the same shape.

// sendGridBody accepts the two base64url parts of a SendGrid key: 22 characters, a dot, 43.
func sendGridBody(body string) bool {
	return len(body) == 66 && strings.IndexByte(body, '.') == 22 && strings.Count(body, ".") == 1
}

func hasUpperAndLower(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) &&
		strings.ContainsFunc(s, func(r rune) bool { return 'a' <= r && r <= 'z' })
}

func hasDigit(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return '0' <= r && r <= '9' })
}

// openAIBody accepts the body of an sk- key: random characters, not a hyphenated name that
// happens to start with sk- (/tmp/sk-learn-cache-dir-2024-01, sk-dashboard-frontend-2024,
// task-sk-implement-feature-123).
func openAIBody(body string) bool {
	return hasDigitOrUpper(body) && !hyphenatedName(body)
}

// hyphenatedName reports a body made of words joined by '-' or '_': every part a lower-case
// word, a number, a capitalised or upper-case word, or a short tag (v2, eu). A key's parts are
// long runs of mixed letters and digits, so a real key never reads as one.
func hyphenatedName(body string) bool {
	if !strings.ContainsAny(body, "-_") {
		return false
	}
	for _, part := range strings.FieldsFunc(body, func(r rune) bool { return r == '-' || r == '_' }) {
		if len(part) > 3 && !wordPart(part) {
			return false
		}
	}
	return true
}

// wordPart reports a part of a name: all digits, or letters in one case (Title case too).
func wordPart(p string) bool {
	digits, lower, upper := 0, 0, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case '0' <= c && c <= '9':
			digits++
		case 'a' <= c && c <= 'z':
			lower++
		case 'A' <= c && c <= 'Z':
			upper++
		}
	}
	switch {
	case digits == len(p):
		return true
	case digits > 0:
		return false
	case upper == 0, lower == 0:
		return true
	}
	return upper == 1 && isUpper(p[0]) // Title case
}

// hasDigitAndLetter reports a hex body with both digits and letters, as 32 random hex
// characters nearly always have.
func hasDigitAndLetter(s string) bool {
	return hasDigit(s) && strings.ContainsFunc(s, func(r rune) bool { return 'a' <= r && r <= 'f' })
}

// hasDigitOrUpper tells a random key body from a kebab-case word ("sk-learn-compatible-...").
func hasDigitOrUpper(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' })
}
