package redact

import (
	"encoding/base64"
	"strings"
)

// awsPairWindow is how far from an access key id a bare 40-character secret still counts as its
// pair (a credentials CSV row, `aws configure` output, two env lines).
const awsPairWindow = 300

// awsPairRule redacts a bare 40-character secret access key that stands next to an access key
// id (or the marker the id became), with no key name to say what it is. The secret must mix
// upper case, lower case and digits, which a 40-character hex digest never does.
func awsPairRule() rule {
	ids := newAnchorSet(false, "AKIA", "ASIA", "ABIA", "ACCA", Marker(KindAWSAccessKey))
	marker := Marker(KindAWSSecretKey)
	return rule{anchors: ids, find: func(t *scrub) []span {
		s := t.s
		var near [][2]int
		ids.each(s, func(i int, p string) int {
			near = append(near, [2]int{max(0, i-awsPairWindow), min(len(s), i+len(p)+awsPairWindow)})
			return i + len(p)
		})
		// The windows come in order of their ids, so their starts ascend: merged as they come,
		// they are walked once alongside the candidates, and the rule stays linear in the text.
		near = mergeWindows(near)
		var spans []span
		w := 0
		for i := 0; i < len(s); {
			if !awsSecretSet[s[i]] || (i > 0 && (awsSecretSet[s[i-1]] || s[i-1] == '=')) {
				i++
				continue
			}
			end := awsSecretSet.scan(s, i)
			for w < len(near) && near[w][1] <= i {
				w++
			}
			inWindow := w < len(near) && near[w][0] <= i
			if inWindow && end-i == 40 && (end == len(s) || !isWord(s[end]) && s[end] != '=') && mixedCase(s[i:end]) {
				spans = append(spans, span{i, end, marker})
			}
			i = end
		}
		return normalize(spans)
	}}
}

// mergeWindows merges windows whose starts ascend into disjoint ones, in order.
func mergeWindows(ws [][2]int) [][2]int {
	out := ws[:0]
	for _, w := range ws {
		if n := len(out); n > 0 && w[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], w[1])
			continue
		}
		out = append(out, w)
	}
	return out
}

// mixedCase reports whether s holds an upper-case letter, a lower-case letter and a digit.
func mixedCase(s string) bool {
	var up, low, digit bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || isUpper(c)
		low = low || ('a' <= c && c <= 'z')
		digit = digit || ('0' <= c && c <= '9')
	}
	return up && low && digit
}

// cookieValueStop ends a cookie value.
var cookieValueStop = newByteSet(";", " \t\r\n", `"'\`)

// cookieRule redacts the values of a Cookie header (every name=value pair) and of a Set-Cookie
// header (the cookie itself, not its attributes such as Path or Expires), keeping the names. The
// header may be written as in HTTP (Cookie: a=b) or as a key of a header map in code or JSON
// ("Cookie": "a=b", 'cookie': 'a=b', JSON-escaped \"Cookie\": \"a=b\").
func cookieRule() rule {
	anchors := newAnchorSet(true, "cookie")
	marker := Marker(KindCookie)
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			set := i >= 4 && strings.EqualFold(s[i-4:i], "set-")
			if !set && !boundaryBefore(s, i) {
				return i + 6
			}
			j, ok := headerValueStart(s, i+len("cookie"))
			if !ok {
				return i + 6
			}
			lineEnd := j
			for lineEnd < len(s) && s[lineEnd] != '\n' && s[lineEnd] != '\r' && !(s[lineEnd] == '\\' && lineEnd+1 < len(s) && (s[lineEnd+1] == 'n' || s[lineEnd+1] == 'r' || s[lineEnd+1] == '"')) && s[lineEnd] != '"' && s[lineEnd] != '\'' {
				lineEnd++
			}
			for k := j; k < lineEnd; {
				eq := strings.IndexByte(s[k:lineEnd], '=')
				if eq < 0 {
					break
				}
				v := k + eq + 1
				end := v
				for end < lineEnd && !cookieValueStop[s[end]] {
					end++
				}
				if val := s[v:end]; valueEvidence(val, minPasswordLen) {
					spans = append(spans, span{v, end, marker})
				}
				if set {
					break // the rest of a Set-Cookie line is attributes
				}
				k = end
				for k < lineEnd && (s[k] == ';' || s[k] == ' ') {
					k++
				}
			}
			return lineEnd
		})
		return normalize(spans)
	}}
}

// netrcRule redacts the password of a .netrc entry: "machine host login user password SECRET",
// on one line or several. It needs the netrc keywords around it, so "password" in prose is left
// alone.
func netrcRule() rule {
	anchors := newAnchorSet(false, "password")
	marker := Marker(KindPassword)
	return rule{anchors: newAnchorSet(false, "machine", "login"), find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			j := i + len("password")
			if !boundaryBefore(s, i) || j >= len(s) || (s[j] != ' ' && s[j] != '\t') {
				return j
			}
			if !netrcKeywordBefore(s[:i]) || !netrcEntryBefore(s[max(0, i-300):i]) {
				return j
			}
			start := skipBlanks(s, j)
			end := start
			for end < len(s) && !cookieValueStop[s[end]] {
				end++
			}
			if end > start && plausibleLiteral(s[start:end]) {
				spans = append(spans, span{start, end, marker})
			}
			return end
		})
		return normalize(spans)
	}}
}

// netrcKeywordBefore reports whether text ends with a netrc pair "login X" or "machine X" (and
// blanks), the way the keyword before "password" reads in a .netrc entry.
func netrcKeywordBefore(text string) bool {
	text = strings.TrimRight(text, " \t\r\n")
	k := strings.LastIndexAny(text, " \t\r\n")
	if k < 0 {
		return false
	}
	text = strings.TrimRight(text[:k], " \t\r\n")
	for _, kw := range []string{"login", "machine", "account"} {
		if strings.HasSuffix(text, kw) && boundaryBefore(text, len(text)-len(kw)) {
			return true
		}
	}
	return false
}

// netrcEntryBefore reports whether text holds the start of a netrc entry: "default" opening a
// line, or "machine" followed by a host name (with a dot, or localhost).
func netrcEntryBefore(text string) bool {
	if k := strings.LastIndex(text, "default"); k >= 0 && strings.TrimLeft(text[strings.LastIndexByte(text[:k], '\n')+1:k], " \t") == "" {
		return true
	}
	k := strings.LastIndex(text, "machine")
	if k < 0 || !boundaryBefore(text, k) {
		return false
	}
	rest := strings.TrimLeft(text[k+len("machine"):], " \t")
	host := rest
	if e := strings.IndexAny(rest, " \t\r\n"); e >= 0 {
		host = rest[:e]
	}
	return strings.Contains(host, ".") || host == "localhost"
}

// mysqlPasswordRule redacts the password glued to -p in a MySQL or MariaDB client command line
// (mysql -uroot -pS3cret db, mysqldump -p'S3cret'). A bare -p (prompt for it) is left alone.
func mysqlPasswordRule() rule {
	commands := newAnchorSet(false, "mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport")
	marker := Marker(KindPassword)
	return rule{anchors: commands, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		commands.each(s, func(i int, p string) int {
			// The word must be the command itself: at the start of a line or after a blank, a
			// quote, a parenthesis or a shell separator, and followed by a blank (so a path such as
			// /var/lib/mysql or an image such as mysql:8 is not it).
			after := i + len(p)
			if !commandPosition(s, i) || after >= len(s) || (s[after] != ' ' && s[after] != '\t') {
				return after
			}
			// Its options end where the command does: a line end or a shell separator.
			lineEnd := i
			for lineEnd < len(s) && !strings.ContainsRune("\n;|&", rune(s[lineEnd])) && !(s[lineEnd] == '\\' && lineEnd+1 < len(s) && s[lineEnd+1] == 'n') {
				lineEnd++
			}
			occurrences(s[:lineEnd], " -p", func(k int) int {
				if k < i {
					return k + 3
				}
				start := k + 3
				quote := byte(0)
				if start < lineEnd && (s[start] == '\'' || s[start] == '"') {
					quote = s[start]
					start++
				}
				end := start
				for end < lineEnd && (quote != 0 && s[end] != quote || quote == 0 && !cookieValueStop[s[end]]) {
					end++
				}
				if end > start && plausibleLiteral(s[start:end]) {
					spans = append(spans, span{start, end, marker})
				}
				return end
			})
			return lineEnd
		})
		return normalize(spans)
	}}
}

// commandPosition reports whether a word starting at i of s stands where a shell command does.
func commandPosition(s string, i int) bool {
	if i == 0 {
		return true
	}
	switch s[i-1] {
	case ' ', '\t', '\n', '\'', '"', '(', '`', ';', '|', '&', '$':
		return true
	case 'n':
		return i >= 2 && s[i-2] == '\\' // a JSON-escaped line break
	}
	return false
}

// headerValueStart finds where the value of a header name ending at i starts: after an optional
// closing quote (plain or JSON-escaped), blanks, a ':', blanks and an optional opening quote.
// ok is false when no ':' follows the name.
func headerValueStart(s string, i int) (int, bool) {
	skipQuote := func(k int) int {
		switch {
		case k < len(s) && (s[k] == '"' || s[k] == '\''):
			return k + 1
		case k+1 < len(s) && s[k] == '\\' && s[k+1] == '"':
			return k + 2
		}
		return k
	}
	k := skipBlanks(s, skipQuote(i))
	if k >= len(s) || s[k] != ':' {
		return 0, false
	}
	return skipQuote(skipBlanks(s, k+1)), true
}

// telegramRule finds Telegram bot tokens, "<bot id>:AA<33 characters>", alone or in the path
// of a Bot API URL (https://api.telegram.org/bot<token>/sendMessage).
func telegramRule() rule {
	anchors := newAnchorSet(false, ":AA")
	marker := Marker(KindTelegramToken)
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			id := i
			for id > 0 && i-id < 10 && '0' <= s[id-1] && s[id-1] <= '9' {
				id--
			}
			if i-id < 8 || !boundaryBefore(s, id) && !strings.HasSuffix(s[:id], "/bot") {
				return i + 3
			}
			end := b64urlSet.scan(s, i+1)
			if end-(i+1) != 35 {
				return i + 3
			}
			spans = append(spans, span{id, end, marker})
			return end
		})
		return spans
	}}
}

// azureSecretSet is what an Entra ID (Azure AD) client secret is made of.
var azureSecretSet = newByteSet("a-z", "A-Z", "0-9", "_~.-")

// azureSecretRule finds Entra ID (Azure AD) client secrets: three characters, a digit, "Q~" and
// 31 to 34 more, the shape the portal generates.
func azureSecretRule() rule {
	anchors := newAnchorSet(false, "Q~")
	marker := Marker(KindAzureClientSecret)
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			a := i - 4
			if a < 0 || !('0' <= s[i-1] && s[i-1] <= '9') || a > 0 && azureSecretSet[s[a-1]] {
				return i + 2
			}
			for k := a; k < i-1; k++ {
				if !azureSecretSet[s[k]] || s[k] == '-' {
					return i + 2
				}
			}
			end := azureSecretSet.scan(s, i+2)
			if n := end - (i + 2); n < 31 || n > 34 || !hasDigitOrUpper(s[i+2:end]) {
				return i + 2
			}
			spans = append(spans, span{a, end, marker})
			return end
		})
		return spans
	}}
}

// curlUserRule redacts the password of curl's -u / --user option (curl -u user:password,
// curl -u sk_live_…: with an empty password), keeping the user name. The password needs the
// same evidence as an assignment's value, so -u "$USER:$TOKEN" and -u user:password are kept.
// Each line that holds "curl" is read once, from the first "curl" on it, so the rule stays
// linear in the text.
func curlUserRule() rule {
	marker := Marker(KindPassword)
	return rule{anchors: newAnchorSet(false, "curl"), find: func(t *scrub) []span {
		s := t.s
		var spans []span
		occurrences(s, "curl", func(c int) int {
			lineEnd := len(s)
			if k := strings.IndexByte(s[c:], '\n'); k >= 0 {
				lineEnd = c + k
			}
			for _, opt := range []string{" -u", " --user"} {
				occurrences(s[c:lineEnd], opt, func(i int) int {
					i += c
					j := i + len(opt)
					if opt == " --user" && j < lineEnd && s[j] == '=' {
						j++
					}
					j = skipBlanks(s, j)
					quote := byte(0)
					if j < lineEnd && (s[j] == '"' || s[j] == '\'') {
						quote = s[j]
						j++
					}
					end := j
					for end < lineEnd && (quote != 0 && s[end] != quote || quote == 0 && !cookieValueStop[s[end]]) {
						end++
					}
					user, pass, ok := strings.Cut(s[j:end], ":")
					if ok && pass != "" && pass != user && secretEvidence("password", pass) {
						spans = append(spans, span{j + len(user) + 1, end, marker})
					}
					return max(end, i+len(opt)) - c
				})
			}
			return lineEnd
		})
		return normalize(spans)
	}}
}

// discordRule finds Discord bot tokens: the bot's numeric id in base64 (no padding), a dot, a
// timestamp of six base64url characters, a dot and an HMAC of 27 or more. The anchors are the
// base64 of an id's first digit (1 to 9) with the next digit's high bits, and the first part
// must decode to the 17 to 20 digits of an id, which no dotted name or other base64 does.
func discordRule() rule {
	marker := Marker(KindDiscordToken)
	anchors := newAnchorSet(false, "MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")
	return rule{anchors: anchors, find: func(t *scrub) []span {
		s := t.s
		var spans []span
		anchors.each(s, func(i int, _ string) int {
			if !boundaryBefore(s, i) {
				return i + 2
			}
			e1 := alnumSet.scan(s, i)
			if n := e1 - i; n < 23 || n > 27 || e1 >= len(s) || s[e1] != '.' || !base64Digits(s[i:e1]) {
				return e1
			}
			e2 := b64urlSet.scan(s, e1+1)
			if n := e2 - e1 - 1; n < 6 || n > 7 || e2 >= len(s) || s[e2] != '.' {
				return e1
			}
			end := b64urlSet.scan(s, e2+1)
			if end-e2-1 < 27 {
				return e1
			}
			spans = append(spans, span{i, end, marker})
			return end
		})
		return normalize(spans)
	}}
}

// base64Digits reports whether seg, unpadded standard base64, decodes to 17 to 20 ASCII digits:
// a Discord id (a snowflake) as a token's first part writes it.
func base64Digits(seg string) bool {
	b, err := base64.RawStdEncoding.DecodeString(seg)
	if err != nil || len(b) < 17 || len(b) > 20 || b[0] == '0' {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
