package redact

import (
	"strings"
)

// secretSuffixes end a key name whose value is a secret: DB_PASSWORD, client_secret,
// refresh_token, X-Auth, Authorization. A name only counts when the word ends it, so
// max_tokens, token_count, author and passwordless are not secret names.
var secretSuffixes = []string{"password", "passwd", "passphrase", "pwd", "secret", "token", "auth", "authorization"}

// keyQualifiers are the words that make "<word>key" a secret name: api_key, apiKey, x-api-key,
// access_key, secret_key, private_key. A bare "key" (a map key, ?key= of a URL) is not one.
var keyQualifiers = []string{"api", "access", "secret", "private", "client", "encryption", "signing", "master", "session", "account"}

// isSecretKeyName reports whether a key (an identifier, a JSON object key, a flag) names a
// secret. Case and the separators '_', '-', '.' and ' ' do not matter. It does not allocate: the
// JSON walker asks it about every key.
func isSecretKeyName(name string) bool {
	// kubeconfig's client-key-data (a base64 private key) and the like: "<qualifier>key-data".
	if hasSuffixFold(name, "-data") || hasSuffixFold(name, "_data") {
		if base := name[:len(name)-5]; hasSuffixFold(base, "key") && isSecretKeyName(base) {
			return true
		}
	}
	for _, w := range secretSuffixes {
		if hasSuffixFold(name, w) {
			return true
		}
	}
	if !hasSuffixFold(name, "key") {
		return false
	}
	p := strings.TrimRight(name[:len(name)-3], "_-. ")
	for _, q := range keyQualifiers {
		if hasSuffixFold(p, q) {
			return true
		}
	}
	return false
}

// keywordAnchors find the words a secret key name ends with; "auth" covers "authorization".
// Like the byte sets, it is never written after initialisation.
var keywordAnchors = newAnchorSet(true, "password", "passwd", "passphrase", "pwd", "secret", "token", "auth", "key")

// identSet is what a key name in text is made of: DB_PASSWORD, config.api_key, --auth-token.
var identSet = newByteSet("a-z", "A-Z", "0-9", "_.-")

// unquotedSet is what an unquoted value is made of: it stops at white space, quotes and the
// punctuation that ends a value in code, URLs, shell and structured text.
var unquotedSet = func() *byteSet {
	s := newByteSet("!-~") // printable ASCII
	for _, c := range []byte("\"'`,;&|<>(){}\\") {
		s[c] = false
	}
	for c := 0x80; c < 0x100; c++ {
		s[c] = true // UTF-8 bytes: passwords need not be ASCII
	}
	return s
}()

// assignmentRule redacts the value of an assignment whose key names a secret, in every common
// shape: KEY=value, key: value, "key": "value", key := "value", key => 'value', --key value,
// --key=value, Authorization: Basic value. Only the value is replaced; quotes stay, so JSON and
// code around it keep their structure.
//
// It searches for the operators ('=' and ':') and the flag dashes rather than for the key words:
// one vectorised pass per byte, then a short look back at the name before each operator.
func assignmentRule() rule {
	return rule{anchors: keywordAnchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		try := func(start, end int) int {
			if start == end || !isSecretKeyName(s[start:end]) || strings.HasSuffix(s[:start], "://") {
				return end // a URL's user name is the URL rule's business
			}
			if start > 1 && s[start-1] == ':' && identSet[s[start-2]] {
				return end // a part of a colon-separated name: arn:aws:secretsmanager:…:secret:prod/db
			}
			sp, ok := parseAssignment(s, start, end)
			if !ok {
				return end
			}
			spans = append(spans, sp)
			return sp.b
		}
		for _, op := range []byte{'=', ':'} {
			byteOccurrences(s, op, func(k int) int {
				// Walk back over blanks and the closing quote of a quoted name to the name.
				j := k
				for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
					j--
				}
				if j > 0 && (s[j-1] == '"' || s[j-1] == '\'' || s[j-1] == '`') {
					j--
					if s[j] == '"' && j > 0 && s[j-1] == '\\' {
						j--
					}
				}
				start := j
				for start > 0 && identSet[s[start-1]] {
					start--
				}
				if next := try(start, j); next > k {
					return next
				}
				return k + 1
			})
		}
		// aws configure set aws_secret_access_key VALUE, yarn config set npmAuthToken VALUE.
		occurrences(s, "config", func(i int) int {
			j := i + len("config")
			if strings.HasPrefix(s[j:], "ure") {
				j += 3
			}
			if j = skipBlanks(s, j); !boundaryBefore(s, i) || !strings.HasPrefix(s[j:], "set ") {
				return j
			}
			start := skipBlanks(s, j+len("set "))
			end := identSet.scan(s, start)
			k := skipBlanks(s, end)
			if end == start || k == end || !isSecretKeyName(s[start:end]) {
				return end
			}
			a, b, quoted := valueAt(s, k)
			if b > a && plausibleValue(s[start:end], s[a:b], quoted, false, false, "", 0) {
				marker := assignmentMarker
				if isAWSSecretKey(s[start:end], s[a:b]) {
					marker = awsSecretKeyMarker
				}
				spans = append(spans, span{a, b, marker})
			}
			return max(b, end)
		})
		// --password value: a flag and its value after blanks.
		occurrences(s, "--", func(i int) int {
			if i > 0 && identSet[s[i-1]] {
				return i + 2
			}
			return try(i, identSet.scan(s, i))
		})
		return normalize(spans)
	}}
}

var (
	assignmentMarker   = Marker(KindAssignment)
	awsSecretKeyMarker = Marker(KindAWSSecretKey)
)

// parseAssignment reads the separator and value after the key name s[start:end] and returns the
// span of the value to redact.
func parseAssignment(s string, start, end int) (span, bool) {
	ident := s[start:end]
	j := end
	switch { // the closing quote of a quoted key: "password": , 'token' => , \"secret\":
	case strings.HasPrefix(s[j:], `\"`):
		j += 2
	case j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '`'):
		j++
	}
	k := skipBlanks(s, j)
	sep := separatorAt(s, k)
	flag, schemed := false, false
	if sep == "" {
		// A flag takes its value after blanks: --password hunter2.
		if ident[0] != '-' || j != end || k == j {
			return span{}, false
		}
		flag = true
	} else {
		k = skipBlanks(s, k+len(sep))
		if keyInsideString(s, start, end, j, k) {
			return span{}, false
		}
		v := skipScheme(s, k)
		schemed, k = v > k, v
	}
	a, b, quoted := valueAt(s, k)
	// In a query string (?token=abc&page=2) an '&' ends the value; elsewhere (.env, YAML) it
	// may be part of it: DB_PASSWORD=j3&5577oOW, password: Tr0ub4dor&3.
	inQuery := start > 0 && (s[start-1] == '?' || s[start-1] == '&')
	if !quoted && !inQuery {
		b = acrossAmpersands(s, b)
	}
	if b <= a {
		return span{}, false
	}
	v := s[a:b]
	if quoted {
		p, rest := splitScheme(v)
		a, v = a+len(p), rest
		schemed = schemed || p != ""
	}
	if flag && !quoted && v[0] == '-' {
		return span{}, false // the next flag, not a value
	}
	if flag && !quoted && allLetters(v) {
		// Prose about a flag ("add a --token flag") names a word, not a secret. A real flag
		// value with only letters gets through; documented in docs/REDACTION.md.
		return span{}, false
	}
	var next byte
	if b < len(s) {
		next = s[b]
	}
	// Code references (token = self.token) only occur in code, never in a flag or a query string.
	code := !flag && (start == 0 || s[start-1] != '?' && s[start-1] != '&')
	if !plausibleValue(ident, v, quoted, code, schemed, sep, next) {
		return span{}, false
	}
	if isAWSSecretKey(ident, v) {
		return span{a, b, awsSecretKeyMarker}, true
	}
	return span{a, b, assignmentMarker}, true
}

// separatorAt returns the assignment operator at s[k:], or "".
func separatorAt(s string, k int) string {
	for _, op := range []string{"=>", ":=", "=="} {
		if strings.HasPrefix(s[k:], op) {
			return op
		}
	}
	if k < len(s) && s[k] == '=' {
		return "="
	}
	if k < len(s) && s[k] == ':' && (k+1 == len(s) || s[k+1] != ':') { // not Token::new
		return ":"
	}
	return ""
}

// valueAt reads the value starting at s[k]: quoted ("..." '...' `...` or JSON-escaped \"...\"),
// whose inside is returned, or unquoted. An unclosed quote runs to the end of the line, so a
// truncated value is still redacted.
func valueAt(s string, k int) (a, b int, quoted bool) {
	if k >= len(s) {
		return k, k, false
	}
	switch c := s[k]; {
	case c == '\\' && strings.HasPrefix(s[k:], `\"`):
		a = k + 2
		b = a
		for b < len(s) && s[b] != '"' && s[b] != '\n' {
			if strings.HasPrefix(s[b:], `\"`) {
				return a, b, true
			}
			b++
		}
		return a, b, true
	case c == '"' || c == '\'':
		a = k + 1
		b = a
		for b < len(s) && s[b] != c && s[b] != '\n' {
			if s[b] == '\\' && b+1 < len(s) && s[b+1] != '\n' {
				b++
			}
			b++
		}
		return a, min(b, len(s)), true
	case c == '`':
		a = k + 1
		b = strings.IndexAny(s[a:], "`\n")
		if b < 0 {
			return a, len(s), true
		}
		return a, a + b, true
	default:
		return k, unquotedSet.scan(s, k), false
	}
}

// acrossAmpersands extends an unquoted value that stopped at an '&' at b over every '&' that
// continues it: one followed by more of the value, which is not a shell's "&&" or "& " (the
// value ends before them), an HTML entity (&amp;) or a further parameter (&page=2).
func acrossAmpersands(s string, b int) int {
	for b+1 < len(s) && s[b] == '&' && unquotedSet[s[b+1]] && s[b+1] != '&' {
		next := b + 1
		if e := identSet.scan(s, next); e > next && e < len(s) && (s[e] == '=' || s[e] == ';') {
			return b // a parameter (&page=2) or an entity (&amp;)
		}
		if s[next] == '#' {
			return b // a numeric entity (&#38;)
		}
		b = unquotedSet.scan(s, next)
	}
	return b
}

var authSchemes = []string{"bearer", "basic", "token", "digest"}

// skipScheme steps over an HTTP auth scheme before an unquoted credential
// (Authorization: Basic dXNlcjpwYXNz), so the scheme stays readable.
func skipScheme(s string, k int) int {
	for _, p := range authSchemes {
		if len(s)-k > len(p) && strings.EqualFold(s[k:k+len(p)], p) && (s[k+len(p)] == ' ' || s[k+len(p)] == '\t') {
			if v := skipBlanks(s, k+len(p)); v < len(s) && unquotedSet[s[v]] {
				return v
			}
		}
	}
	return k
}

// splitScheme splits a leading HTTP auth scheme and its blanks off a quoted credential.
func splitScheme(v string) (prefix, rest string) {
	if k := skipScheme(v, 0); k > 0 {
		return v[:k], v[k:]
	}
	return "", v
}

// isPlaceholderWord reports values that are never secrets: literals, types and null words that
// follow a secret-named key in code and configuration.
func isPlaceholderWord(v string) bool {
	switch asciiLower(v) {
	case "null", "nil", "none", "true", "false", "undefined", "yes", "no", "on", "off",
		"required", "optional", "str", "string", "bool", "boolean", "int", "bytes", "redacted":
		return true
	}
	return false
}

// plausibleLiteral rejects values that are clearly not secrets: empty, already a marker, a
// variable or template reference ($TOKEN, ${TOKEN}, %s, {{ .Token }}, <your-token>), a mask
// (****, xxxx), punctuation only, or a placeholder word.
func plausibleLiteral(v string) bool {
	if v == "" || isMarker(v) {
		return false
	}
	switch v[0] {
	case '$', '%', '<':
		return false
	}
	if strings.HasPrefix(v, "{{") || strings.Trim(v, "*xX.•_-") == "" {
		return false
	}
	if !strings.ContainsFunc(v, func(r rune) bool {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r >= 0x80
	}) {
		return false
	}
	return !isPlaceholderWord(v)
}

// plausibleValue decides whether the value of a secret-named key is worth redacting. Beyond
// plausibleLiteral, an unquoted value that may be code is skipped when it reads as a reference
// rather than a literal (token = self.token, token := getToken(), if password == other), and so
// is an unquoted YAML tag (password: !vault, MasterUserPassword: !Ref DBPassword). The value
// then needs evidence of its own (secretEvidence): a secret-sounding name is not enough. After
// an HTTP auth scheme (Authorization: Basic …) the header says what the value is, so anything
// but a placeholder is redacted.
func plausibleValue(ident, v string, quoted, code, schemed bool, sep string, next byte) bool {
	if !plausibleLiteral(v) {
		return false
	}
	if !quoted && code && (next == '(' || sep == "==" || isCodeRef(v)) {
		return false
	}
	if !quoted && len(v) > 1 && v[0] == '!' && ('a' <= v[1]|0x20 && v[1]|0x20 <= 'z') {
		return false
	}
	if schemed {
		return !isPlaceholderValue(v)
	}
	if isAWSSecretKey(ident, v) {
		return !maskedBody(v) // 40 base64 characters under an AWS secret key name
	}
	return secretEvidence(ident, v)
}

// keyInsideString reports a key name that is the end of a string literal rather than a key:
// print("token:", token) or "Password: " + pw, where the quote before the name closes right
// after the separator (k is where the value would start).
func keyInsideString(s string, start, end, j, k int) bool {
	if start == 0 || j != end || k >= len(s) {
		return false
	}
	switch q := s[start-1]; {
	case q == '"' && start >= 2 && s[start-2] == '\\':
		return strings.HasPrefix(s[k:], `\"`)
	case q == '"' || q == '\'' || q == '`':
		return s[k] == q
	}
	return false
}

// isCodeRef reports whether an unquoted value reads as a reference in code: a dotted name
// (self.token, process.env.API_KEY) or a name followed by an index or type parameter
// (os.environ[...], Optional[str]). Names with digits are taken for literals: generated secrets
// nearly always have digits (hvs.CAESIJ9x, p4ss.w0rd), names in code rarely do.
func isCodeRef(v string) bool {
	head, _, indexed := strings.Cut(v, "[")
	if head == "" || !indexed && !strings.Contains(head, ".") {
		return false
	}
	for _, seg := range strings.Split(head, ".") {
		if seg == "" {
			return false
		}
		// A constant name may hold a digit: config.AUTH0_CLIENT_SECRET.
		constant := strings.Contains(seg, "_") && isConstantName(seg)
		for i := 0; i < len(seg); i++ {
			if c := seg[i]; !isWord(c) && c != '$' || '0' <= c && c <= '9' && !constant {
				return false
			}
		}
	}
	return true
}

var awsSecretSet = newByteSet("a-z", "A-Z", "0-9", "+/=")

// isAWSSecretKey reports whether an assignment is an AWS secret access key: 40 base64
// characters under a name like aws_secret_access_key, SecretAccessKey or AWS_SECRET_KEY.
func isAWSSecretKey(ident, v string) bool {
	if len(v) != 40 || awsSecretSet.scan(v, 0) != 40 {
		return false
	}
	k := strings.NewReplacer("_", "", "-", "", ".", "").Replace(asciiLower(ident))
	return strings.HasSuffix(k, "secretaccesskey") || strings.Contains(k, "aws") && strings.HasSuffix(k, "secretkey")
}

// allLetters reports whether v is made of ASCII letters only.
func allLetters(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return v != ""
}
