package redact

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/annals-dev/annals/internal/jsonesc"
)

// rule finds the spans to replace in the current text. anchors are literals of which one
// occurs wherever the rule could match: a text holding none of them is not given to find (see
// prefilter). A rule without anchors (a custom regular expression) sees every text.
type rule struct {
	anchors anchorSet
	find    func(t *scrub) []span
}

// byteSet is a set of bytes, for scanning runs of token characters without regular expressions.
type byteSet [256]bool

func newByteSet(ranges ...string) *byteSet {
	var s byteSet
	for _, r := range ranges {
		if len(r) == 3 && r[1] == '-' {
			for c := int(r[0]); c <= int(r[2]); c++ {
				s[c] = true
			}
			continue
		}
		for i := 0; i < len(r); i++ {
			s[r[i]] = true
		}
	}
	return &s
}

// scan returns the end of the run of bytes in set starting at i.
func (set *byteSet) scan(s string, i int) int {
	for i < len(s) && set[s[i]] {
		i++
	}
	return i
}

// Character sets of the token shapes. Like compiled regular expressions, they are package-level
// but never written after initialisation.
var (
	wordSet       = newByteSet("a-z", "A-Z", "0-9", "_")
	alnumSet      = newByteSet("a-z", "A-Z", "0-9")
	upperDigitSet = newByteSet("A-Z", "0-9")
	b64urlSet     = newByteSet("a-z", "A-Z", "0-9", "_-")
	alnumDashSet  = newByteSet("a-z", "A-Z", "0-9", "-")
	hexSet        = newByteSet("a-f", "0-9")
	b64urlDotSet  = newByteSet("a-z", "A-Z", "0-9", "-_.")
	webhookSet    = newByteSet("a-z", "A-Z", "0-9", "/_-")
	bearerSet     = newByteSet("a-z", "A-Z", "0-9", "-._~+/")
	// pemBodySet is what a PEM body may contain: base64, line breaks (real or JSON-escaped),
	// and the "Proc-Type: 4,ENCRYPTED" style headers of encrypted keys.
	pemBodySet = newByteSet("a-z", "A-Z", "0-9", "+/=", "\r\n\t ", `\:,-`)
	// urlStopSet is what ends a URL's authority, or the quoted string around it.
	urlStopSet = newByteSet(" \t\r\n\v\f", `/?#"'<>\`+"`")
)

func isWord(c byte) bool { return wordSet[c] }

// boundaryBefore reports whether position i of s starts a word, so that a prefix found inside a
// longer word ("task-", "ASIAN") is not taken for a token. An escape sequence right before (the
// \n of JSON-escaped text, \u0022) ends the previous word even though its last byte is a letter.
func boundaryBefore(s string, i int) bool {
	switch {
	case i == 0 || !isWord(s[i-1]):
		return true
	case i >= 2 && s[i-2] == '\\':
		return true
	case i >= 6 && s[i-6] == '\\' && s[i-5] == 'u':
		return true
	}
	return false
}

// occurrences calls fn with each index of lit in h, from left to right; fn returns where the
// search continues (at least past the occurrence).
func occurrences(h, lit string, fn func(i int) int) {
	for from := 0; from <= len(h)-len(lit); {
		i := strings.Index(h[from:], lit)
		if i < 0 {
			return
		}
		i += from
		from = max(fn(i), i+1)
	}
}

// byteOccurrences is occurrences for a single byte.
func byteOccurrences(h string, c byte, fn func(i int) int) {
	for from := 0; from < len(h); {
		i := strings.IndexByte(h[from:], c)
		if i < 0 {
			return
		}
		i += from
		from = max(fn(i), i+1)
	}
}

// builtinRules returns the built-in rules in the order they run: the most specific shapes
// first, so a key gets its own kind before the generic bearer, URL and assignment rules see it
// (those skip values that are already a marker).
func builtinRules() []rule {
	return []rule{pemRule(), jwtRule(), prefixRule(tokenRules()), discordRule(), telegramRule(), azureSecretRule(),
		awsPairRule(), webhookRule(), bearerRule(), urlPasswordRule(), cookieRule(),
		netrcRule(), mysqlPasswordRule(), curlUserRule(), assignmentRule()}
}

// tokenRule is a credential with a fixed literal prefix followed by a run of token characters.
type tokenRule struct {
	kind     string
	prefixes []string
	body     *byteSet
	min      int // shortest body
	// inWord lets a prefix distinctive enough (ghp_, sk-ant-, xoxb-) match even right after a
	// word byte; the others must start a word.
	inWord bool
	// exact means the body is exactly min bytes and ends at a word boundary (AWS key ids).
	exact bool
	// check, when set, must accept the body: it rejects prose-like near misses.
	check func(body string) bool
}

// tokenRules are the prefixed credentials. They run as one rule (prefixRule); where two
// prefixes match at the same place (sk- and sk-ant-) the longer one decides.
func tokenRules() []tokenRule {
	return []tokenRule{
		{kind: KindAnthropicKey, prefixes: []string{"sk-ant-"}, body: b64urlSet, min: 20, inWord: true},
		{kind: KindOpenAIKey, prefixes: []string{"sk-"}, body: b64urlSet, min: 20, check: openAIBody},
		{kind: KindGitHubToken, prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, body: alnumSet, min: 36, inWord: true},
		{kind: KindGitHubToken, prefixes: []string{"github_pat_"}, body: wordSet, min: 22, inWord: true},
		{kind: KindSlackToken, prefixes: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xapp-"}, body: alnumDashSet, min: 10, check: hasDigit, inWord: true},
		{kind: KindStripeKey, prefixes: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, body: alnumSet, min: 16},
		{kind: KindGoogleAPIKey, prefixes: []string{"AIza"}, body: b64urlSet, min: 35},
		{kind: KindAWSAccessKey, prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, body: upperDigitSet, min: 16, exact: true},
		{kind: KindNPMToken, prefixes: []string{"npm_"}, body: alnumSet, min: 36, check: hasDigitOrUpper},
		{kind: KindGitLabToken, prefixes: []string{"glpat-", "gldt-", "glrt-", "glptt-"}, body: b64urlSet, min: 20, inWord: true, check: hasDigitOrUpper},
		{kind: KindSendGridKey, prefixes: []string{"SG."}, body: b64urlDotSet, min: 66, check: sendGridBody},
		{kind: KindHuggingFaceToken, prefixes: []string{"hf_", "api_org_"}, body: alnumSet, min: 30, check: hasUpperAndLower},
		{kind: KindDigitalOceanToken, prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, body: hexSet, min: 64, inWord: true},
		{kind: KindShopifyToken, prefixes: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, body: hexSet, min: 32, inWord: true},
		{kind: KindMailgunKey, prefixes: []string{"key-"}, body: hexSet, min: 32, exact: true},
		{kind: KindDatabricksToken, prefixes: []string{"dapi"}, body: hexSet, min: 32, check: hasDigit},
		{kind: KindDockerToken, prefixes: []string{"dckr_pat_", "dckr_oat_"}, body: b64urlSet, min: 27, inWord: true},
		{kind: KindVaultToken, prefixes: []string{"hvs.", "hvb.", "hvr."}, body: b64urlSet, min: 24, check: hasDigitOrUpper},
		{kind: KindGroqKey, prefixes: []string{"gsk_"}, body: alnumSet, min: 48, inWord: true},
		{kind: KindAgeSecretKey, prefixes: []string{"AGE-SECRET-KEY-1"}, body: upperDigitSet, min: 58, inWord: true},
		{kind: KindGrafanaToken, prefixes: []string{"glsa_"}, body: wordSet, min: 32, inWord: true, check: hasDigit},
		{kind: KindGrafanaToken, prefixes: []string{"glc_"}, body: b64urlSet, min: 32, inWord: true, check: hasDigitOrUpper},
		{kind: KindPostmanKey, prefixes: []string{"PMAK-"}, body: alnumDashSet, min: 59, inWord: true},
		{kind: KindPyPIToken, prefixes: []string{"pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"}, body: b64urlSet, min: 50, inWord: true},
		{kind: KindTwilioAPIKey, prefixes: []string{"SK"}, body: hexSet, min: 32, exact: true, check: hasDigitAndLetter},
	}
}

// prefixRule finds the prefixed credentials of all the token rules in one pass over the text,
// so that a text with none of them costs one vectorised search per pivot byte, not per rule.
// A body that is a mask or a placeholder (ghp_xxxx…, sk-proj-YOUR_KEY…) is left alone.
func prefixRule(trs []tokenRule) rule {
	type entry struct {
		tr     *tokenRule
		marker string
		longer []string // the other prefixes that extend this one (sk- → sk-ant-)
	}
	byPrefix := map[string]*entry{}
	var lits []string
	for i := range trs {
		for _, p := range trs[i].prefixes {
			lits = append(lits, p)
			byPrefix[p] = &entry{tr: &trs[i], marker: Marker(trs[i].kind)}
		}
	}
	for p, e := range byPrefix {
		for q := range byPrefix {
			if q != p && strings.HasPrefix(q, p) {
				e.longer = append(e.longer, q)
			}
		}
	}
	anchors := newAnchorSet(false, lits...)
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		// Collect every candidate first, then take them from left to right: the end of a token
		// taken counts as a word boundary for the next one (AKIA…ghp_… holds two tokens), as the
		// marker it becomes would on a second pass, which keeps redaction idempotent.
		type candidate struct {
			a, b       int
			marker     string
			boundary   bool // starts a word, or needs not to
			exactEndOK bool // an exact-length body ends at a word boundary, or needs not to
		}
		var cands []candidate
		anchors.each(s, func(i int, p string) int {
			e := byPrefix[p]
			tr := e.tr
			start := i + len(p)
			for _, q := range e.longer {
				if strings.HasPrefix(s[i:], q) {
					return start
				}
			}
			end := tr.body.scan(s, start)
			for tr.body['.'] && end > start && s[end-1] == '.' {
				end-- // a full stop that ends the sentence
			}
			body := s[start:end]
			if len(body) < tr.min || tr.exact && len(body) != tr.min {
				return start
			}
			if tr.check != nil && !tr.check(body) || maskedBody(body) {
				return start
			}
			cands = append(cands, candidate{i, end, e.marker, tr.inWord || boundaryBefore(s, i),
				!tr.exact || end == len(s) || !isWord(s[end])})
			return start
		})
		if len(cands) == 0 {
			return nil
		}
		slices.SortFunc(cands, func(x, y candidate) int { return x.a - y.a })
		startsAt := func(k int) bool {
			_, found := slices.BinarySearchFunc(cands, k, func(c candidate, k int) int { return c.a - k })
			return found
		}
		var spans []span
		last := -1
		for _, c := range cands {
			if c.a < last || !c.boundary && c.a != last || !c.exactEndOK && !startsAt(c.b) {
				continue
			}
			spans = append(spans, span{c.a, c.b, c.marker})
			last = c.b
		}
		return spans
	}}
}

// jwtRule finds JSON Web Tokens: a base64url header starting "eyJ" ({"), a payload and a
// signature separated by dots; a JWE's two further segments are taken along.
func jwtRule() rule {
	marker := Marker(KindJWT)
	anchors := newAnchorSet(false, "eyJ")
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			if !boundaryBefore(s, i) {
				return i + 3
			}
			e1 := b64urlSet.scan(s, i)
			if e1-i < 10 || e1 >= len(s) || s[e1] != '.' {
				return e1
			}
			e2 := b64urlSet.scan(s, e1+1)
			if e2-e1-1 < 10 || e2 >= len(s) || s[e2] != '.' {
				return e1
			}
			end := b64urlSet.scan(s, e2+1)
			for k := 0; k < 2 && end+1 < len(s) && s[end] == '.' && b64urlSet[s[end+1]]; k++ {
				end = b64urlSet.scan(s, end+1)
			}
			spans = append(spans, span{i, end, marker})
			return end
		})
		return spans
	}}
}

// pemRule finds PEM private-key blocks, BEGIN through END. A block without its END line (a
// truncated file or tool output) is redacted through the end of its base64 body, so a partial
// key is never stored; a lone header line with no body is left alone.
func pemRule() rule {
	marker := Marker(KindPrivateKey)
	const begin = "-----BEGIN "
	anchors := newAnchorSet(false, begin)
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			labelStart := i + len(begin)
			label, ok := pemPrivateLabel(s, labelStart)
			if !ok {
				return labelStart
			}
			bodyStart := labelStart + len(label) + 5
			if end, ok := pemEnd(s, bodyStart); ok {
				spans = append(spans, span{i, end, marker})
				return end
			}
			end := pemBodySet.scan(s, bodyStart)
			end = bodyStart + len(strings.TrimRight(s[bodyStart:end], " \t\r\n"))
			if end-bodyStart < 32 {
				return bodyStart
			}
			spans = append(spans, span{i, end, marker})
			return end
		})
		return spans
	}}
}

// pemPrivateLabel reads the label of a "-----BEGIN <label>-----" line starting at i and accepts
// it when it names a private key ("RSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK", ...).
func pemPrivateLabel(s string, i int) (string, bool) {
	j := strings.Index(s[i:min(len(s), i+64)], "-----")
	if j < 0 {
		return "", false
	}
	label := s[i : i+j]
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return "", false
	}
	for k := 0; k < len(label); k++ {
		if c := label[k]; !isUpper(c) && !('0' <= c && c <= '9') && c != ' ' {
			return "", false
		}
	}
	return label, true
}

// pemEnd finds the end of the first "-----END <private key label>-----" line at or after i.
func pemEnd(s string, i int) (int, bool) {
	const end = "-----END "
	for {
		k := strings.Index(s[i:], end)
		if k < 0 {
			return 0, false
		}
		labelStart := i + k + len(end)
		if label, ok := pemPrivateLabel(s, labelStart); ok {
			return labelStart + len(label) + 5, true
		}
		i = labelStart
	}
}

// webhookRule finds Slack webhook URLs and redacts their path, keeping the host visible.
func webhookRule() rule {
	marker := Marker(KindSlackWebhook)
	const host = "hooks.slack.com/"
	anchors := newAnchorSet(false, host)
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			j := i + len(host)
			for _, p := range []string{"services/", "workflows/", "triggers/"} {
				if strings.HasPrefix(s[j:], p) {
					start := j + len(p)
					end := webhookSet.scan(s, start)
					if end-start >= 8 {
						spans = append(spans, span{start, end, marker})
						return end
					}
				}
			}
			return j
		})
		return spans
	}}
}

// bearerRule redacts the token after the word Bearer, keeping the word. Right after an
// Authorization header name any token counts; in other text the token must look like one (16 or
// more characters, not a plain lower-case word), so prose about "bearer tokens" is left alone.
func bearerRule() rule {
	marker := Marker(KindBearerToken)
	anchors := newAnchorSet(true, "bearer")
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			j := i + len("bearer")
			if !boundaryBefore(s, i) || j >= len(s) || (s[j] != ' ' && s[j] != '\t') {
				return j
			}
			start := skipBlanks(s, j)
			end := bearerSet.scan(s, start)
			for end < len(s) && s[end] == '=' {
				end++
			}
			tok := s[start:end]
			if tok == "" {
				return start
			}
			if !authHeaderBefore(s, i) && (len(tok) < 16 || !hasDigitOrUpper(tok) && !strings.ContainsAny(tok, "-._~+/")) {
				return end
			}
			if isPlaceholderValue(tok) || maskedBody(tok) && len(tok) >= 8 {
				return end // Bearer YOUR_ACCESS_TOKEN, Bearer TOKEN, Bearer xxxxxxxx
			}
			spans = append(spans, span{start, end, marker})
			return end
		})
		return spans
	}}
}

// authHeaderBefore reports whether the text before position i ends with an Authorization header
// name and its separator (`Authorization: `, `"Authorization": "`, `authorization=`).
func authHeaderBefore(s string, i int) bool {
	j := strings.TrimRight(s[:i], " \t\"'")
	if j == "" || (j[len(j)-1] != ':' && j[len(j)-1] != '=') {
		return false
	}
	j = strings.TrimRight(j[:len(j)-1], " \t\"'")
	return hasSuffixFold(j, "authorization")
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// urlPasswordRule redacts the password of a URL's user information, scheme://user:PASSWORD@host,
// keeping the user and the host. The password runs to the last '@' of the authority, so a raw
// '@' inside it is covered too.
func urlPasswordRule() rule {
	marker := Marker(KindURLPassword)
	anchors := newAnchorSet(false, "://")
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			u := i + 3
			for u < len(s) && !urlStopSet[s[u]] && s[u] != ':' && s[u] != '@' && s[u] != '[' {
				u++
			}
			if u >= len(s) || s[u] != ':' {
				return u
			}
			p := u + 1
			end := p
			for end < len(s) && !urlStopSet[s[end]] {
				end++
			}
			at := strings.LastIndexByte(s[p:end], '@')
			if at < 1 {
				return u
			}
			pass := s[p : p+at]
			if isPlaceholderValue(pass) || isPasswordWord(pass) || pass == s[i+3:u] {
				return p + at // user:password@, USER:PASSWORD@, {user}:{password}@, guest:guest@
			}
			spans = append(spans, span{p, p + at, marker})
			return p + at
		})
		return spans
	}}
}

// privateRule removes <private>...</private> spans (tags in any case, content over any number
// of lines) and replaces each with PrivateMarker. An unclosed <private> removes everything to the
// end of the text: when the writer's intent is unclear, dropping too much is the safe failure.
func privateRule() rule {
	open, closing := newAnchorSet(true, "<private"), newAnchorSet(true, "</private")
	return rule{anchors: open, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		open.each(s, func(i int, _ string) int {
			body := tagEnd(s, i+len("<private"))
			if body < 0 {
				return i + len("<private")
			}
			end := len(s) // unclosed: fail safe
			closing.each(s[body:], func(k int, _ string) int {
				if e := tagEnd(s, body+k+len("</private")); e >= 0 {
					end = e
					return len(s) // stop at the first close tag
				}
				return k + 1
			})
			spans = append(spans, span{i, end, PrivateMarker})
			return end
		})
		return spans
	}}
}

// tagEnd returns the index after the '>' that closes a tag name ending at i (blanks allowed
// before it), or -1 when the name continues (<privateKey>) or the tag is not closed.
func tagEnd(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	if i < len(s) && s[i] == '>' {
		return i + 1
	}
	return -1
}

// envRule matches the exact values of secret environment variables, and the forms the same
// value takes inside JSON text (escaped with and without HTML escaping) and URLs. Overlapping
// matches are merged, so a value that contains another, or overlaps it, is redacted whole.
func envRule(values []string) *rule {
	seen := make(map[string]bool)
	var lits []string
	add := func(v string) {
		if !seen[v] {
			seen[v] = true
			lits = append(lits, v)
		}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinEnvValueLen {
			continue
		}
		add(v)
		if q := string(jsonesc.AppendString(nil, v, jsonesc.Readable)); q[1:len(q)-1] != v {
			add(q[1 : len(q)-1])
		}
		if b, err := json.Marshal(v); err == nil {
			if q := string(b[1 : len(b)-1]); q != v {
				add(q)
			}
		}
		if q := url.QueryEscape(v); q != v {
			add(q)
		}
		if q := url.PathEscape(v); q != v {
			add(q)
		}
	}
	if len(lits) == 0 {
		return nil
	}
	marker := Marker(KindSecretEnv)
	anchors := newAnchorSet(false, lits...)
	return &rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, v string) int {
			spans = append(spans, span{i, i + len(v), marker})
			return i + len(v)
		})
		return normalize(spans)
	}}
}

// regexRule is a custom rule: each non-empty match (or its "secret" group) is replaced.
func regexRule(name string, re *regexp.Regexp) rule {
	marker := Marker(name)
	group := re.SubexpIndex("secret")
	return rule{find: func(t *scrub) []span {
		ms := re.FindAllStringSubmatchIndex(t.s, -1)
		if ms == nil {
			return nil
		}
		spans := make([]span, 0, len(ms))
		for _, m := range ms {
			a, b := m[0], m[1]
			if group > 0 {
				a, b = m[2*group], m[2*group+1]
			}
			if a >= 0 && b > a {
				spans = append(spans, span{a, b, marker})
			}
		}
		return spans
	}}
}
