package redact

import (
	"math"
	"strings"
	"unicode/utf8"
)

// This file holds the evidence the generic rules need before they redact a value that no
// provider prefix identifies: the value of a secret-named key (assignment), a bearer token, the
// password of a URL or a curl -u option. A secret-sounding name alone is not enough: code and
// prose are full of test_token = "music", pad_token = "[PAD]", "Process a single token: embed"
// and api_key = "YOUR_API_KEY". The value itself must look generated or chosen as a secret.

// Shortest values the generic assignment rule redacts. Human-chosen passwords are short, so a
// key named for one (password, passwd, passphrase, pwd) takes a shorter value than the others
// (token, secret, auth, api_key), which machines generate long.
const (
	minPasswordLen = 6
	minSecretLen   = 8
)

// humanSecretName reports whether a secret key name is for a human-chosen password.
func humanSecretName(name string) bool {
	for _, w := range []string{"password", "passwd", "passphrase", "pwd"} {
		if hasSuffixFold(name, w) {
			return true
		}
	}
	return false
}

// secretEvidence reports whether v, the value of a key named name, looks like a secret rather
// than a word, a name, a placeholder or a reference:
//
//   - it is at least minPasswordLen (a password name) or minSecretLen bytes long, with no white
//     space (a value with blanks is prose or a message);
//   - it is not a placeholder or a template (isPlaceholderValue);
//   - it has a letter and a digit or a symbol, so that plain words, identifiers in any case
//     (music, hidden-layer, sampleToken, REPLACE_ME) and numbers are not taken; a value of
//     letters only counts when it is 20 or more bytes of mixed case in random proportion (a
//     base52 key), which camelCase and upper-case identifiers are not;
//   - it is not a path of words (ds16.value_state.no_observation_in_period, see wordPath);
//   - its Shannon entropy is at least 0.75·log2(len) bits per byte, at most 3 bits needed, so a
//     repetitive value (aaaa1111) is not taken.
func secretEvidence(name, v string) bool {
	minLen := minSecretLen
	if humanSecretName(name) {
		minLen = minPasswordLen
	}
	return valueEvidence(v, minLen)
}

// valueEvidence is secretEvidence with the shortest length given.
func valueEvidence(v string, minLen int) bool {
	// Judge invalid UTF-8 as it reads once stored as JSON, each bad byte a U+FFFD, so that a
	// value decides the same way before and after (redaction stays idempotent).
	v = replaceInvalidUTF8(v)
	if len(v) < minLen || strings.ContainsAny(v, " \t\r\n") || isPlaceholderValue(v) || wordPath(v) {
		return false
	}
	var letters, uppers, digits, symbols int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z':
			letters++
		case 'A' <= c && c <= 'Z':
			letters++
			uppers++
		case '0' <= c && c <= '9':
			digits++
		case c >= 0x80:
			letters++ // UTF-8: a password need not be ASCII
		case c == '-' || c == '_' || c == '.':
			// word separators: kebab-case, snake_case and dotted words are not symbols
		default:
			symbols++
		}
	}
	if letters == 0 {
		return false
	}
	if digits == 0 && symbols == 0 {
		frac := float64(uppers) / float64(letters)
		if len(v) < 20 || frac < 0.25 || frac > 0.75 || entropy(v) < 3.5 {
			return false
		}
	}
	return entropy(v) >= min(3.0, 0.75*math.Log2(float64(len(v))))
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v string) float64 {
	if v == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	n := float64(len(v))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderParts are pieces of the values that documentation, examples and templates put
// where a secret goes: "YOUR_API_KEY", "sk-xxxxxxxx", "replace-me", "<token>", "${TOKEN}".
var placeholderParts = []string{
	"your", "xxxx", "placeholder", "changeme", "change_me", "change-me", "replace", "redacted",
	"dummy", "insert_", "<", ">", "${", "{{", "#{", "%(", "...", "…", "****",
}

// isPlaceholderValue reports values that stand for a secret rather than being one: those
// plausibleLiteral rejects, the placeholderParts, a value wrapped in braces or brackets
// ({token}, [PAD]), an upper-case constant name (TOKEN, OPENAI_API_KEY, REPLACE_ME), an AWS ARN
// (a reference to a stored secret) and a file path (/run/secrets/db, ./password.txt).
func isPlaceholderValue(v string) bool {
	if !plausibleLiteral(v) {
		return true
	}
	for _, p := range placeholderParts {
		if containsFold(v, p) {
			return true
		}
	}
	switch {
	case len(v) >= 2 && (v[0] == '{' && v[len(v)-1] == '}' || v[0] == '[' && v[len(v)-1] == ']'):
		return true
	case len(v) >= 4 && equalFoldASCII(v[:4], "arn:"):
		return true
	case isPathLike(v):
		return true
	}
	return isConstantName(v)
}

// isConstantName reports an upper-case identifier: TOKEN, API_KEY, OPENAI_API_KEY_V2. Each
// part between underscores starts with a letter, and a name with a digit has an underscore (an
// upper-case run of letters and digits alone, such as a key id, is not a name).
func isConstantName(v string) bool {
	if !strings.Contains(v, "_") && strings.ContainsAny(v, "0123456789") {
		return false
	}
	for _, part := range strings.Split(v, "_") {
		if part == "" {
			continue
		}
		if !isUpper(part[0]) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !isUpper(c) && !('0' <= c && c <= '9') {
				return false
			}
		}
	}
	return strings.ContainsFunc(v, func(r rune) bool { return 'A' <= r && r <= 'Z' })
}

// isPathLike reports a file path: absolute, relative to the working or home directory, with
// segments made of file-name characters.
func isPathLike(v string) bool {
	rest, ok := "", false
	for _, p := range []string{"/", "./", "../", "~/"} {
		if r, found := strings.CutPrefix(v, p); found {
			rest, ok = r, true
			break
		}
	}
	// A path has a second segment or a file extension, and no base64 padding or '+': a
	// base64 secret may start with '/'.
	if !ok || !strings.ContainsAny(rest, "/.") {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !isWord(c) && c != '/' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// maskedBody reports the body of a prefixed token that is a mask or a placeholder rather than
// a key: few distinct characters (ghp_xxxx…, AKIAXXXX…, xoxb-0000…-xxxx…) or a placeholder word
// (sk-proj-YOUR_KEY_HERE). A generated body of 16 or more characters has far more than five
// distinct ones.
func maskedBody(body string) bool {
	var seen [256]bool
	distinct := 0
	for i := 0; i < len(body); i++ {
		if !seen[body[i]] {
			seen[body[i]] = true
			distinct++
		}
	}
	if distinct < 6 {
		return true
	}
	return containsFold(body, "your") || containsFold(body, "xxxx") || containsFold(body, "placeholder")
}

// containsFold reports whether s contains lower (lower-case ASCII) in any ASCII case, without
// allocating: it runs on every candidate value.
func containsFold(s, lower string) bool {
	if lower == "" {
		return true
	}
	first, firstUp := lower[0], lower[0]
	if 'a' <= first && first <= 'z' {
		firstUp = first - ('a' - 'A')
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if (s[i] == first || s[i] == firstUp) && equalFoldASCII(s[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}

// isPasswordWord reports the words that stand for a password in examples: user:password@host.
func isPasswordWord(v string) bool {
	switch asciiLower(v) {
	case "password", "passwd", "pass", "pwd", "pw", "secret", "token", "changeme", "example":
		return true
	}
	return false
}

// wordPath reports a value made of four or more parts, split at '.', '_' or '-', most of which
// (three in four) are lower-case words: a message key, a dotted setting name or a slug, not a
// key. A generated value has few separators, and its parts are not made of lower-case letters
// alone.
func wordPath(v string) bool {
	parts, words := 0, 0
	for part := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == '.' || r == '_' || r == '-' }) {
		parts++
		lower := true
		for i := 0; i < len(part); i++ {
			if c := part[i]; c < 'a' || c > 'z' {
				lower = false
				break
			}
		}
		if lower && len(part) >= 2 {
			words++
		}
	}
	return parts >= 4 && 4*words >= 3*parts
}

// replaceInvalidUTF8 replaces each byte of s that is not valid UTF-8 with U+FFFD, as
// encoding/json and jsonesc.AppendString do. It returns s itself when s is valid.
func replaceInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
