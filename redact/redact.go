// Package redact scrubs secrets out of captured text before it is stored. It implements
// annals.Redactor: stores and the capture path run every entry, title, description and summary
// through a Redactor at write time, so transcripts are stored already redacted and no read path
// can hand back a secret that a rule would have masked.
//
// Each secret found is replaced with "[redacted:<kind>]", where kind names the rule (see the
// Kind constants, a custom rule's name, or KindSecretEnv). Text between <private> and </private>
// is dropped and replaced with "[private]". JSON fields (tool arguments, metadata) stay valid
// JSON. Redaction is idempotent: running a Redactor over its own output changes nothing, which is
// what lets a rescan re-apply the rules to stored data.
//
// The rules are heuristics; docs/REDACTION.md lists them and their limits.
package redact

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/annals-dev/annals"
)

// Kinds of built-in redaction: the <kind> in "[redacted:<kind>]".
const (
	KindAWSAccessKey = "aws_access_key" // AKIA/ASIA/ABIA/ACCA access key ids
	KindAWSSecretKey = "aws_secret_key" // a 40-character secret access key assigned to an AWS-style key name
	KindGoogleAPIKey = "google_api_key" // AIza...
	KindOpenAIKey    = "openai_key"     // sk-..., sk-proj-...
	KindAnthropicKey = "anthropic_key"  // sk-ant-...
	KindGitHubToken  = "github_token"   // ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
	KindSlackToken   = "slack_token"    // xoxb-, xoxp-, xoxa-, xoxr-, xoxs-
	KindSlackWebhook = "slack_webhook"  // https://hooks.slack.com/services/...
	KindStripeKey    = "stripe_key"     // sk_live_, rk_live_, sk_test_, rk_test_
	KindJWT          = "jwt"            // eyJ....eyJ....sig
	KindPrivateKey   = "private_key"    // PEM private-key blocks
	KindBearerToken  = "bearer_token"   // Bearer <token>
	KindURLPassword  = "url_password"   // scheme://user:PASSWORD@host
	KindAssignment   = "assignment"     // password=..., "api_key": "...", --token ...
	KindNPMToken     = "npm_token"      // npm_...
	KindGitLabToken  = "gitlab_token"   // glpat-...
	KindCookie       = "cookie"         // the values of Cookie: and Set-Cookie: headers
	KindPassword     = "password"       // .netrc "password X", mysql -pX, curl -u user:X

	KindSendGridKey       = "sendgrid_key"        // SG.<22>.<43>
	KindHuggingFaceToken  = "huggingface_token"   // hf_..., api_org_...
	KindDigitalOceanToken = "digitalocean_token"  // dop_v1_, doo_v1_, dor_v1_
	KindShopifyToken      = "shopify_token"       // shpat_, shpss_, shpca_, shppa_
	KindMailgunKey        = "mailgun_key"         // key-<32 hex>
	KindDatabricksToken   = "databricks_token"    // dapi<32 hex>
	KindDockerToken       = "docker_token"        // dckr_pat_, dckr_oat_
	KindVaultToken        = "vault_token"         // hvs., hvb., hvr.
	KindGroqKey           = "groq_key"            // gsk_
	KindAgeSecretKey      = "age_secret_key"      // AGE-SECRET-KEY-1...
	KindGrafanaToken      = "grafana_token"       // glsa_, glc_
	KindPostmanKey        = "postman_key"         // PMAK-
	KindPyPIToken         = "pypi_token"          // pypi-AgEIcHlwaS5vcmc...
	KindTelegramToken     = "telegram_token"      // <bot id>:AA...
	KindAzureClientSecret = "azure_client_secret" // an Entra ID (Azure AD) client secret, ...8Q~...
	KindTwilioAPIKey      = "twilio_api_key"      // SK<32 hex>
	KindDiscordToken      = "discord_token"       // <base64 bot id>.<timestamp>.<hmac>
	// KindSecretEnv marks an exact value of a configured secret environment variable.
	KindSecretEnv = "secret_env"
)

// BuiltinKinds returns the kinds the built-in rules produce, in the order the rules run (the
// assignment rule produces both assignment and aws_secret_key).
func BuiltinKinds() []string {
	return []string{
		KindPrivateKey, KindJWT, KindAnthropicKey, KindOpenAIKey, KindGitHubToken, KindSlackToken,
		KindStripeKey, KindGoogleAPIKey, KindAWSAccessKey, KindNPMToken, KindGitLabToken,
		KindSendGridKey, KindHuggingFaceToken, KindDigitalOceanToken, KindShopifyToken, KindMailgunKey,
		KindDatabricksToken, KindDockerToken, KindVaultToken, KindGroqKey, KindAgeSecretKey,
		KindGrafanaToken, KindPostmanKey, KindPyPIToken, KindTwilioAPIKey, KindDiscordToken, KindTelegramToken, KindAzureClientSecret,
		KindSlackWebhook, KindBearerToken, KindURLPassword, KindCookie, KindPassword, KindAssignment, KindAWSSecretKey,
	}
}

// PrivateMarker replaces each <private>...</private> span.
const PrivateMarker = annals.PrivatePlaceholder

// Marker returns the text that replaces a secret of the given kind: "[redacted:<kind>]".
func Marker(kind string) string { return annals.RedactedPrefix + kind + "]" }

// MinEnvValueLen is the shortest secret environment value (after trimming surrounding white
// space) that is matched. Shorter values are ignored, because masking every occurrence of a short
// value such as "true", "admin" or "8080" would shred ordinary text without protecting anything.
const MinEnvValueLen = 8

// maxRuleNameLen bounds a custom rule's name, which becomes part of every marker it writes.
const maxRuleNameLen = annals.MaxPlaceholderKind

// CustomRule is one user-defined rule: every match of Pattern (a Go regular expression, RE2
// syntax) is replaced with "[redacted:<Name>]". When the pattern has a capturing group named
// "secret", only that group is replaced, so context around the secret can stay readable, for
// example `internal-key: (?P<secret>[0-9a-f]{32})`.
type CustomRule struct {
	Name    string `json:"name" yaml:"name"`
	Pattern string `json:"pattern" yaml:"pattern"`
}

// Config configures a Redactor. The zero Config enables the built-in rules only.
type Config struct {
	// SecretEnvValues are the exact values of environment variables that hold secrets. The
	// library never reads the environment itself: the caller (cmd/) resolves the configured
	// names and passes the values. Values are trimmed of surrounding white space; values shorter
	// than MinEnvValueLen after trimming are ignored. Matches become "[redacted:secret_env]".
	SecretEnvValues []string
	// Custom rules run before the built-in ones, in order.
	Custom []CustomRule
	// DisableBuiltin turns off the built-in credential rules. <private> spans, secret
	// environment values and custom rules still apply.
	DisableBuiltin bool
}

// Redactor applies a fixed set of rules. It is immutable after New and safe for concurrent use.
type Redactor struct {
	rules []rule
	pre   *prefilter
	// builtin enables the JSON rule that replaces the value of a key naming a secret.
	builtin bool
}

var _ annals.Redactor = (*Redactor)(nil)

var ruleNameRE = regexp.MustCompile(`^[a-z0-9_-]+$`)

// New compiles a Redactor from cfg.
// Errors: invalid (a custom rule with a bad name, a duplicate name, an empty pattern, a pattern
// that does not compile, or one that matches the empty string).
func New(cfg Config) (*Redactor, error) {
	r := &Redactor{builtin: !cfg.DisableBuiltin}
	r.rules = append(r.rules, privateRule())
	if env := envRule(cfg.SecretEnvValues); env != nil {
		r.rules = append(r.rules, *env)
	}
	seen := make(map[string]bool, len(cfg.Custom))
	for i, c := range cfg.Custom {
		cr, err := customRule(i, c, seen)
		if err != nil {
			return nil, err
		}
		r.rules = append(r.rules, cr)
	}
	if r.builtin {
		r.rules = append(r.rules, builtinRules()...)
	}
	r.pre = newPrefilter(r.rules)
	return r, nil
}

func customRule(i int, c CustomRule, seen map[string]bool) (rule, error) {
	if !ruleNameRE.MatchString(c.Name) || len(c.Name) > maxRuleNameLen {
		return rule{}, annals.Errorf(annals.EINVALID,
			"redact rule %d: name %q is invalid (want 1 to %d characters from a-z, 0-9, '_' and '-')", i, c.Name, maxRuleNameLen)
	}
	if seen[c.Name] {
		return rule{}, annals.Errorf(annals.EINVALID, "redact rule %q is defined twice (names must be unique)", c.Name)
	}
	seen[c.Name] = true
	if c.Pattern == "" {
		return rule{}, annals.Errorf(annals.EINVALID, "redact rule %q has an empty pattern (want a Go regular expression)", c.Name)
	}
	re, err := regexp.Compile(c.Pattern)
	if err != nil {
		return rule{}, &annals.Error{
			Code:    annals.EINVALID,
			Message: fmt.Sprintf("redact rule %q: invalid pattern %q: %v", c.Name, c.Pattern, err),
			Err:     err,
		}
	}
	// A pattern that matches nothing at all would redact at every position; refuse it rather
	// than skip empty matches silently, so the mistake shows at load time.
	if re.MatchString("") {
		return rule{}, annals.Errorf(annals.EINVALID,
			"redact rule %q: pattern %q matches the empty string (want a pattern that matches only secrets)", c.Name, c.Pattern)
	}
	return regexRule(c.Name, re), nil
}

// RedactText returns s with every secret replaced and the number of replacements made. When
// nothing matches, s itself is returned.
func (r *Redactor) RedactText(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	t := scrub{s: s}
	m := r.pre.mask(s)
	for i := range r.rules {
		// A rule none of whose anchors occurs cannot match: most texts skip every rule.
		if !r.pre.may(m, i) {
			continue
		}
		if spans := r.rules[i].find(&t); len(spans) > 0 {
			t.apply(spans)
			// A replacement can bring in an anchor of a later rule (the AWS secret rule looks
			// for the marker the key id became): look again at the new text.
			m = r.pre.mask(t.s)
		}
	}
	return t.s, t.n
}

// RedactEntry scrubs e in place: text, reasoning, metadata and, on a tool call, its arguments and
// result. JSON fields stay valid JSON and are rewritten only when something was redacted, so an
// unchanged field keeps its exact bytes. The byte slices of e are never written to: a changed
// JSON field gets a new slice. It returns the number of replacements made.
func (r *Redactor) RedactEntry(e *annals.Entry) int {
	if e == nil {
		return 0
	}
	var n, k int
	e.Text, k = r.RedactText(e.Text)
	n += k
	e.Reasoning, k = r.RedactText(e.Reasoning)
	n += k
	e.Metadata, k = r.redactJSON(e.Metadata)
	n += k
	if e.Tool != nil {
		e.Tool.Arguments, k = r.redactJSON(e.Tool.Arguments)
		n += k
		e.Tool.Result, k = r.RedactText(e.Tool.Result)
		n += k
	}
	return n
}

// RedactChat scrubs the human metadata of c in place (title, description, summary and tags)
// and returns the number of replacements. Attribute values are scrubbed by the capture path; ids
// are never rewritten (they are how a chat is found).
func (r *Redactor) RedactChat(c *annals.Chat) int {
	if c == nil {
		return 0
	}
	var n, k int
	c.Title, k = r.RedactText(c.Title)
	n += k
	c.Description, k = r.RedactText(c.Description)
	n += k
	c.Summary, k = r.RedactText(c.Summary)
	n += k
	c.Tags, k = annals.RedactTagsCount(r, c.Tags)
	n += k
	return n
}

// span is one replacement: s[a:b] becomes repl.
type span struct {
	a, b int
	repl string
}

// normalize sorts spans by start and merges overlapping ones into one span covering both, so
// rules that scan for several literals can report matches in any order, and two overlapping
// secrets are redacted whole rather than one of them in part.
func normalize(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	out := spans[:1]
	for _, sp := range spans[1:] {
		if last := &out[len(out)-1]; sp.a < last.b {
			last.b = max(last.b, sp.b)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// scrub carries one text through the rules: the text so far and the replacements made.
type scrub struct {
	s string
	n int
}

// apply replaces spans (sorted, non-overlapping). A span that lies inside a marker written
// earlier is skipped: markers are never redacted again, which keeps redaction idempotent.
func (t *scrub) apply(spans []span) {
	var b strings.Builder
	last, applied := 0, 0
	for _, sp := range spans {
		if sp.b <= sp.a || insideMarker(t.s, sp.a, sp.b) {
			continue
		}
		if applied == 0 {
			b.Grow(len(t.s))
		}
		b.WriteString(t.s[last:sp.a])
		b.WriteString(sp.repl)
		last = sp.b
		applied++
	}
	if applied == 0 {
		return
	}
	b.WriteString(t.s[last:])
	t.s = b.String()
	t.n += applied
}

// asciiLower folds ASCII upper-case letters only. It allocates only when s has one.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !isUpper(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		j := i
		for j < len(s) && !isUpper(s[j]) {
			j++
		}
		b.WriteString(s[i:j])
		for j < len(s) && isUpper(s[j]) {
			b.WriteByte(s[j] + ('a' - 'A'))
			j++
		}
		i = j
	}
	return b.String()
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// maxMarkerLen is the longest marker: the prefix, a kind of at most maxRuleNameLen bytes, "]".
const maxMarkerLen = len(annals.RedactedPrefix) + maxRuleNameLen + 1

// markerLen returns the length of the marker at the start of s, or 0 if none starts there.
func markerLen(s string) int { return annals.PlaceholderLen(s) }

// isMarker reports whether s is exactly one marker.
func isMarker(s string) bool {
	n := markerLen(s)
	return n > 0 && n == len(s)
}

// insideMarker reports whether s[a:b] lies within a single marker already in s.
func insideMarker(s string, a, b int) bool {
	lo := max(0, a-maxMarkerLen)
	k := strings.LastIndexByte(s[lo:a+1], '[')
	if k < 0 {
		return false
	}
	k += lo
	n := markerLen(s[k:])
	return n > 0 && k+n >= b
}
