package redact_test

import (
	"errors"
	"os"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/redact"
)

// Realistic-looking credentials, built from parts so that no complete key sits in the source.
var (
	awsKeyID     = "AKIA" + "IOSFODNN7EXAMPLE"
	awsSTSKeyID  = "ASIA" + "Y34FZKBOKMUTVV7A"
	awsSecret    = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	googleKey    = "AIza" + "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"
	openAILegacy = "sk-" + "Zx81mQpL0aBcDeFgHiJkT3BlbkFJqRsTuVwXyZ0123456789ab"
	openAIProj   = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl_Mn-Op12Qr34St56Uv78Wx90Yz12Ab34Cd56Ef78"
	anthropicKey = "sk-ant-api03-" + strings.Repeat("Xk3vB9qLm2Tz7RwP4sYh8NcJ1fGd6KaE0uVo5iWb", 2) + "-_q7AA"
	githubPAT    = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
	githubOAuth  = "gho_" + "16C7e42F292c6912E7710c838347Ae178B4a"
	githubFine   = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV0123456789"
	slackBot     = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	slackHook    = "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
	stripeLive   = "sk_live_" + "51H8xYzAbCdEfGhIjKlMnOpQr0123456789"
	stripeRestr  = "rk_live_" + "51H8xYzAbCdEfGhIjKlMnOpQr0123456789"
	jwt          = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pemBody      = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMSs0v7Mb4bq1\n" +
		"WnXtG6vlMtPRVvjKAhMZYX0u3U2QYfUuZZtQvZqSMGEtEJnwjIHPWZQ2gQBcn9Lz\n"
	pemBlock = "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "-----END RSA PRIVATE KEY-----"
)

func mustNew(t testing.TB, cfg redact.Config) *redact.Redactor {
	t.Helper()
	r, err := redact.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

func TestBuiltinRulesRedactRealisticSecrets(t *testing.T) {
	r := mustNew(t, redact.Config{})
	tests := []struct {
		name   string
		in     string
		secret string // must be gone
		kind   string // "[redacted:<kind>]" must appear
		keep   string // must survive (context around the secret)
	}{
		{"aws access key id", "export AWS_ACCESS_KEY_ID=" + awsKeyID, awsKeyID, redact.KindAWSAccessKey, "AWS_ACCESS_KEY_ID="},
		{"aws sts key id", `"AccessKeyId": "` + awsSTSKeyID + `",`, awsSTSKeyID, redact.KindAWSAccessKey, `"AccessKeyId"`},
		{"aws secret in credentials file", "[default]\naws_secret_access_key = " + awsSecret + "\n", awsSecret, redact.KindAWSSecretKey, "aws_secret_access_key = "},
		{"aws secret in env", "AWS_SECRET_ACCESS_KEY=" + awsSecret, awsSecret, redact.KindAWSSecretKey, "AWS_SECRET_ACCESS_KEY="},
		{"aws secret in sts json", `{"SecretAccessKey": "` + awsSecret + `"}`, awsSecret, redact.KindAWSSecretKey, `"SecretAccessKey": "`},
		{"google api key", "https://maps.googleapis.com/maps/api/geocode/json?key=" + googleKey, googleKey, redact.KindGoogleAPIKey, "maps.googleapis.com"},
		{"openai legacy key", "OPENAI_API_KEY=" + openAILegacy, openAILegacy, redact.KindOpenAIKey, "OPENAI_API_KEY="},
		{"openai project key", "client = OpenAI(api_key=\"" + openAIProj + "\")", openAIProj, redact.KindOpenAIKey, "OpenAI(api_key="},
		{"anthropic key", "x-api-key: " + anthropicKey, anthropicKey, redact.KindAnthropicKey, "x-api-key: "},
		{"github classic token", "git push https://" + githubPAT + "@github.com/o/r", githubPAT, redact.KindGitHubToken, "@github.com/o/r"},
		{"github oauth token", "gh auth status: " + githubOAuth, githubOAuth, redact.KindGitHubToken, "gh auth status"},
		{"github fine-grained token", "token " + githubFine + " expires", githubFine, redact.KindGitHubToken, " expires"},
		{"slack bot token", "SLACK_BOT_TOKEN=" + slackBot, slackBot, redact.KindSlackToken, "SLACK_BOT_TOKEN="},
		{"slack webhook", "curl -X POST " + slackHook + " -d @msg.json", "T00000000/B00000000", redact.KindSlackWebhook, "https://hooks.slack.com/services/"},
		{"stripe live key", "stripe.api_key = '" + stripeLive + "'", stripeLive, redact.KindStripeKey, "stripe.api_key"},
		{"stripe restricted key", "key: " + stripeRestr, stripeRestr, redact.KindStripeKey, "key: "},
		{"jwt", "session cookie: " + jwt + "; Path=/", jwt[40:90], redact.KindJWT, "; Path=/"},
		{"pem private key", "cat id_rsa\n" + pemBlock + "\ndone", "MIIEowIBAAKCAQEA", redact.KindPrivateKey, "done"},
		{"pem openssh key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjE", redact.KindPrivateKey, ""},
		{"pem truncated key", "head -c 200 key.pem\n-----BEGIN PRIVATE KEY-----\n" + pemBody, "WnXtG6vlMtPRVvjKAhMZYX0u3U2Q", redact.KindPrivateKey, "head -c 200 key.pem"},
		{"pem key json-escaped", `{"out":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n"}`, "MHcCAQEEIIrYSSNQ", redact.KindPrivateKey, `{"out":"`},
		{"authorization bearer header", "curl -H 'Authorization: Bearer abc123' https://api.example.com", "abc123", redact.KindBearerToken, "Authorization: Bearer "},
		{"bearer in prose", "use Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0 for the call", "9f8e7d6c5b4a39281706f5e4d3c2b1a0", redact.KindBearerToken, "use Bearer "},
		{"url password", "psql postgres://admin:s3cr3t-P4ss@db.internal:5432/app", "s3cr3t-P4ss", redact.KindURLPassword, "postgres://admin:"},
		{"url password with at sign", "redis://default:p@ss@cache:6379/0", "p@ss", redact.KindURLPassword, "@cache:6379/0"},
		{"assignment env", "DB_PASSWORD=correct-h0rse-battery", "correct-h0rse-battery", redact.KindAssignment, "DB_PASSWORD="},
		{"assignment yaml", "database:\n  password: Tr0ub4dor&3x\n  user: app", "Tr0ub4dor", redact.KindAssignment, "user: app"},
		{"assignment json", `{"user": "bob", "password": "hunter2!"}`, "hunter2!", redact.KindAssignment, `"user": "bob"`},
		{"assignment json escaped", `"{\"client_secret\":\"9d8c7b6a5f4e\"}"`, "9d8c7b6a5f4e", redact.KindAssignment, `\"client_secret\":\"`},
		{"assignment go", `apiKey := "live-4f3e2d1c0b"`, "live-4f3e2d1c0b", redact.KindAssignment, `apiKey := "`},
		{"assignment python single quotes", "PASSWD = 'n0t-s0-s3cret'", "n0t-s0-s3cret", redact.KindAssignment, "PASSWD = '"},
		{"assignment ruby", `:auth_token => "tok-998877"`, "tok-998877", redact.KindAssignment, ":auth_token => "},
		{"assignment query string", "GET /cb?code=1&access_token=ya29a0AfH6SM&state=x", "ya29a0AfH6SM", redact.KindAssignment, "&state=x"},
		{"assignment flag", "mysql -u root --password Sup3rSecret db", "Sup3rSecret", redact.KindAssignment, " db"},
		{"assignment flag with equals", "vault login --token=hvs.CAESIJ9abc", "hvs.CAESIJ9abc", redact.KindAssignment, "--token="},
		{"assignment basic auth header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", redact.KindAssignment, "Authorization: Basic "},
		{"assignment private key name", "PRIVATE_KEY: 0x4c0883a69102937d6231471b5dbb6204fe512961708279f3c0aaf9e1c1e5e4f1", "4c0883a69102937d", redact.KindAssignment, "PRIVATE_KEY: "},
		{"assignment pwd", "pwd=Letme1n", "Letme1n", redact.KindAssignment, "pwd="},
		{"assignment unclosed quote", `password = "half-wr1tten`, "half-wr1tten", redact.KindAssignment, `password = "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantRedacted(t, r, tt.in, tt.secret, tt.kind, tt.keep) })
	}
}

// wantRedacted checks that redacting in removes secret, leaves the marker of kind and the
// context keep, and that a second pass (a rescan over stored text) changes nothing.
func wantRedacted(t *testing.T, r *redact.Redactor, in, secret, kind, keep string) {
	t.Helper()
	got, n := r.RedactText(in)
	if strings.Contains(got, secret) {
		t.Errorf("secret %q survived: %q", secret, got)
	}
	if want := redact.Marker(kind); !strings.Contains(got, want) {
		t.Errorf("got %q, want it to contain %q", got, want)
	}
	if !strings.Contains(got, keep) {
		t.Errorf("got %q, want the context %q kept", got, keep)
	}
	if n < 1 {
		t.Errorf("count = %d, want at least 1", n)
	}
	if again, n2 := r.RedactText(got); again != got || n2 != 0 {
		t.Errorf("second pass changed %q to %q (%d replacements)", got, again, n2)
	}
}

func TestNearMissesAreNotRedacted(t *testing.T) {
	r := mustNew(t, redact.Config{})
	for _, s := range []string{
		"Each token in the prompt counts; tokens are cheap and the tokenizer is fast.",
		"The API key is stored in the keychain, the password in the vault.",
		"sk-1234 and sk-abc are too short, sk-learn-compatible-estimator-wrapper is a word",
		"task-runner-with-a-very-long-name-here and ask-me-anything-about-it-please",
		"commit e83c5163316f89bfbde7d9ab23ca2e25604af290 (HEAD -> main)",
		"id 123e4567-e89b-12d3-a456-426614174000 created",
		"see https://github.com/annals-dev/annals/pull/12?tab=files#diff-3 and http://localhost:8080/healthz",
		"git clone git@github.com:annals-dev/annals.git; ssh://git@github.com:22/o/r",
		"https://example.com:443/path?email=someone@example.com",
		"max_tokens: 4096\ninput_tokens=12\ntoken_count: 3\nauthor: Jane Doe\npasswordless: true",
		"password: ${DB_PASSWORD}\ntoken: $GITHUB_TOKEN\napi_key: <your-api-key>\nsecret: '{{ .Values.secret }}'",
		"password: ''\ntoken: null\nauth: none\nsecret = \"\"\nclient_secret: ********",
		"token = self.token\napi_key := os.Getenv(\"API_KEY\")\nif password == confirm {\npassword: str\napi_key: Optional[str] = None",
		"PWD=/home/me/src/annals\nOLDPWD=/home/me",
		"Bearer tokens are bearer credentials; the bearer authentication scheme.",
		"eyJmb28iOiJiYXIifQ== is base64 JSON without dots",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0Z3VS5JJcds3xfn\n-----END PUBLIC KEY-----",
		`const header = "-----BEGIN RSA PRIVATE KEY-----"`,
		"ASIAN CUISINE and AKIAAAAAA are not key ids",
		"<privateKey>value</privateKey> is an XML element, not a private tag",
		"postgres://localhost:5432/app?sslmode=disable",
		"<input type=\"password\" name=\"password\">",
		// Issue 13: plain code and prose under secret-sounding names are not secrets.
		`test_token = "music"`,
		`"""Process a single token: embed, visualize"""`,
		"DB_PASSWORD=correct-horse-battery",
	} {
		got, n := r.RedactText(s)
		if got != s || n != 0 {
			t.Errorf("RedactText(%q) = %q, %d; want it unchanged", s, got, n)
		}
	}
}

func TestPrivateSpansAreRemoved(t *testing.T) {
	r := mustNew(t, redact.Config{})
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"one span", "before <private>my diary</private> after", "before [private] after", 1},
		{"multi-line", "a <private>line one\nline two\n</private> b", "a [private] b", 1},
		{"several, any case", "<PRIVATE>x</Private>, <private >y</private >, <Private>z</PRIVATE>", "[private], [private], [private]", 3},
		{"unclosed removes the rest", "keep this <private>everything\nafter is gone", "keep this [private]", 1},
		{"closed then unclosed", "<private>a</private> mid <private>b", "[private] mid [private]", 2},
		{"secrets inside are not counted separately", "<private>" + githubPAT + "</private>", "[private]", 1},
		{"stray close tag stays", "text </private> more", "text </private> more", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := r.RedactText(tt.in)
			if got != tt.want || n != tt.n {
				t.Errorf("got %q, %d; want %q, %d", got, n, tt.want, tt.n)
			}
		})
	}
}

func TestSecretEnvValuesMatchExactly(t *testing.T) {
	const dbPass = `pa"ss w0rd/+x`
	r := mustNew(t, redact.Config{SecretEnvValues: []string{
		"  s3cr3t-env-value\n", // trimmed
		"short",                // under MinEnvValueLen: ignored
		dbPass,
		"",
	}})
	tests := []struct{ name, in, want string }{
		{"plain", "value is s3cr3t-env-value.", "value is [redacted:secret_env]."},
		{"every occurrence", "s3cr3t-env-value s3cr3t-env-value", "[redacted:secret_env] [redacted:secret_env]"},
		{"case matters", "S3CR3T-ENV-VALUE", "S3CR3T-ENV-VALUE"},
		{"short values ignored", "a short word", "a short word"},
		{"json-escaped form", `{"p":"pa\"ss w0rd/+x"}`, `{"p":"[redacted:secret_env]"}`},
		{"url-encoded form", "mysql://u:pa%22ss+w0rd%2F%2Bx@h", "mysql://u:[redacted:secret_env]@h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := r.RedactText(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if redact.MinEnvValueLen != 8 {
		t.Errorf("MinEnvValueLen = %d, want 8 (documented in docs/REDACTION.md)", redact.MinEnvValueLen)
	}
}

func TestCustomRules(t *testing.T) {
	r := mustNew(t, redact.Config{Custom: []redact.CustomRule{
		{Name: "acme_key", Pattern: `acme_[0-9a-f]{32}`},
		{Name: "employee-id", Pattern: `employee (?P<secret>E\d{6})`},
	}})
	key := "acme_" + strings.Repeat("0f", 16)
	got, n := r.RedactText("use " + key + " for employee E123456")
	if want := "use [redacted:acme_key] for employee [redacted:employee-id]"; got != want || n != 2 {
		t.Errorf("got %q, %d; want %q, 2", got, n, want)
	}
	// Custom rules run before the built-ins, which still apply.
	got, _ = r.RedactText(key + " " + githubPAT)
	if want := "[redacted:acme_key] [redacted:github_token]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCustomRulesNeverRewriteMarkers(t *testing.T) {
	// A rescan runs new rules over stored text that already holds markers.
	r := mustNew(t, redact.Config{Custom: []redact.CustomRule{
		{Name: "word", Pattern: `[a-z]+_(?:token|key)`},
		{Name: "brackets", Pattern: `\[private\]`},
	}})
	in := "stored: [redacted:github_token] [redacted:openai_key] [private]"
	if got, n := r.RedactText(in); got != in || n != 0 {
		t.Errorf("got %q, %d; want the markers untouched", got, n)
	}
}

func TestNewRejectsBadCustomRules(t *testing.T) {
	tests := []struct {
		name  string
		rules []redact.CustomRule
		want  []string // substrings of the message
	}{
		{"invalid regexp", []redact.CustomRule{{Name: "broken", Pattern: `token_(\d+`}}, []string{`"broken"`, "missing closing )", `token_(\d+`}},
		{"bad name", []redact.CustomRule{{Name: "Bad Name", Pattern: `x`}}, []string{`"Bad Name"`, "a-z, 0-9"}},
		{"empty name", []redact.CustomRule{{Name: "", Pattern: `x`}}, []string{"name"}},
		{"duplicate", []redact.CustomRule{{Name: "a", Pattern: `x`}, {Name: "a", Pattern: `y`}}, []string{`"a"`, "twice"}},
		{"empty pattern", []redact.CustomRule{{Name: "a", Pattern: ``}}, []string{`"a"`, "empty pattern"}},
		{"matches empty", []redact.CustomRule{{Name: "a", Pattern: `x*`}}, []string{`"a"`, "empty string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := redact.New(redact.Config{Custom: tt.rules})
			if err == nil {
				t.Fatalf("New succeeded (%v), want an invalid error", r)
			}
			if got := annals.ErrorCode(err); got != annals.EINVALID {
				t.Errorf("code = %q, want %q", got, annals.EINVALID)
			}
			msg := annals.ErrorMessage(err)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
		})
	}
	_, err := redact.New(redact.Config{Custom: []redact.CustomRule{{Name: "broken", Pattern: `(`}}})
	var syntaxErr *syntax.Error
	if !errors.As(err, &syntaxErr) {
		t.Errorf("the regexp error is not wrapped: %#v", err)
	}
}

func TestDisableBuiltinKeepsPrivateEnvAndCustom(t *testing.T) {
	r := mustNew(t, redact.Config{
		DisableBuiltin:  true,
		SecretEnvValues: []string{"env-secret-123"},
		Custom:          []redact.CustomRule{{Name: "acme", Pattern: `acme_\d+`}},
	})
	in := githubPAT + " password=hunter2 <private>p</private> env-secret-123 acme_42"
	got, n := r.RedactText(in)
	want := githubPAT + " password=hunter2 [private] [redacted:secret_env] [redacted:acme]"
	if got != want || n != 3 {
		t.Errorf("got %q, %d; want %q, 3", got, n, want)
	}
}

func TestRedactEntryScrubsEveryTextField(t *testing.T) {
	r := mustNew(t, redact.Config{})
	args := []byte(`{"cmd": "gh api -H 'Authorization: token ` + githubPAT + `'"}`)
	meta := []byte(`{"source": "import", "note": "key ` + openAIProj + `"}`)
	origArgs, origMeta := string(args), string(meta)
	e := &annals.Entry{
		ID: "e1", Kind: annals.KindTool,
		Text:      "running with " + googleKey,
		Reasoning: "the user gave me " + awsKeyID,
		Metadata:  meta,
		Tool: &annals.ToolCall{
			Name: "Bash", Arguments: args,
			Result: "DATABASE_URL=postgres://app:Pg-s3cret@db/app",
		},
	}
	n := r.RedactEntry(e)
	if n != 5 {
		t.Errorf("count = %d, want 5", n)
	}
	for field, v := range map[string]string{
		"text": e.Text, "reasoning": e.Reasoning, "metadata": string(e.Metadata),
		"arguments": string(e.Tool.Arguments), "result": e.Tool.Result,
	} {
		if !strings.Contains(v, "[redacted:") {
			t.Errorf("%s not redacted: %q", field, v)
		}
		for _, secret := range []string{githubPAT, openAIProj, googleKey, awsKeyID, "Pg-s3cret"} {
			if strings.Contains(v, secret) {
				t.Errorf("%s still holds %q: %q", field, secret, v)
			}
		}
	}
	if string(args) != origArgs || string(meta) != origMeta {
		t.Error("RedactEntry wrote into the caller's byte slices")
	}
	if r.RedactEntry(nil) != 0 {
		t.Error("RedactEntry(nil) != 0")
	}
	if n := r.RedactEntry(e); n != 0 {
		t.Errorf("second RedactEntry made %d replacements, want 0", n)
	}
}

func TestRedactChatScrubsTitleDescriptionAndSummary(t *testing.T) {
	r := mustNew(t, redact.Config{})
	c := &annals.Chat{
		ID: "c1", TenantID: "t", Tags: []string{"deploy"},
		Title:       "rotate " + githubPAT,
		Description: "old key " + stripeLive + " <private>note to self</private>",
		Summary:     "used " + awsKeyID,
	}
	if n := r.RedactChat(c); n != 4 {
		t.Errorf("RedactChat count = %d, want 4", n)
	}
	if c.Title != "rotate [redacted:github_token]" || strings.Contains(c.Description, stripeLive) ||
		strings.Contains(c.Description, "note to self") || strings.Contains(c.Summary, awsKeyID) {
		t.Errorf("chat not scrubbed: %+v", c)
	}
}

func TestSatisfiesRootInterface(t *testing.T) {
	var _ annals.Redactor = mustNew(t, redact.Config{})
}

func TestMarkers(t *testing.T) {
	if got := redact.Marker(redact.KindJWT); got != "[redacted:jwt]" {
		t.Errorf("Marker = %q", got)
	}
	valid := regexp.MustCompile(`^[a-z0-9_]+$`)
	for _, k := range redact.BuiltinKinds() {
		if !valid.MatchString(k) {
			t.Errorf("kind %q is not a valid marker kind", k)
		}
	}
}

func TestDocsDescribeEveryKind(t *testing.T) {
	doc, err := os.ReadFile("../docs/REDACTION.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(redact.BuiltinKinds(), redact.KindSecretEnv) {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/REDACTION.md does not mention kind `%s`", k)
		}
	}
}

func TestFlagNamedInProseIsNotASecret(t *testing.T) {
	r, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Add a --token flag to queue", "use --password prompt instead"} {
		if got, n := r.RedactText(s); n != 0 || got != s {
			t.Errorf("RedactText(%q) = %q (%d replacements), want it unchanged", s, got, n)
		}
	}
	if got, _ := r.RedactText("run it with --token s3cr3t-value"); strings.Contains(got, "s3cr3t") {
		t.Errorf("a real flag value got through: %q", got)
	}
}

func TestRulesForSecretsThatGotThrough(t *testing.T) {
	r := mustNew(t, redact.Config{})
	const awsSecretBare = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	tests := []struct {
		name, in, secret, kind, keep string
	}{
		{"kubeconfig client-key-data", "users:\n- name: admin\n  user:\n    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB\n", "LS0tLS1CRUdJTiBSU0Eg", redact.KindAssignment, "client-key-data: "},
		{"netrc one line", "machine api.github.com login octocat password hunter2pass", "hunter2pass", redact.KindPassword, "login octocat password "},
		{"netrc lines", "machine example.com\n  login bob\n  password s3cr3t-netrc\n", "s3cr3t-netrc", redact.KindPassword, "login bob"},
		{"npm token", "//registry.npmjs.org/:_authToken npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 ok", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", redact.KindNPMToken, " ok"},
		{"gitlab token", "git clone https://oauth2:glpat-Ab3dEf6hIj9kLm2nOp5q@gitlab.com/g/p.git", "glpat-Ab3dEf6hIj9kLm2nOp5q", redact.KindGitLabToken, "@gitlab.com/g/p.git"},
		{"slack app token", "SLACK_APP=xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef", "xapp-1-A0123456789", redact.KindSlackToken, "SLACK_APP="},
		{"mysql -p", "mysql -uroot -pS3cretPw app_db < dump.sql", "S3cretPw", redact.KindPassword, " app_db < dump.sql"},
		{"mysqldump -p quoted", "mysqldump -u admin -p'my pass' shop", "my pass", redact.KindPassword, " shop"},
		{"cookie header", "curl -H 'Cookie: sessionid=8f14e45fceea167a5a36dedd4bea2543; csrftoken=Xy7Qz9' https://x", "8f14e45fceea167a5a36dedd4bea2543", redact.KindCookie, "sessionid="},
		{"cookie in a header map", `requests.get(url, headers={"Cookie": "sessionid=8f14e45fceea167a"})`, "8f14e45fceea167a", redact.KindCookie, `{"Cookie": "sessionid=`},
		{"cookie in JSON-escaped tool arguments", `{"cmd":"curl -H \"Cookie: sid=Zm9vYmFyYmF6cXV4\" https://x"}`, "Zm9vYmFyYmF6cXV4", redact.KindCookie, `sid=`},
		{"set-cookie header", "HTTP/1.1 200 OK\nSet-Cookie: session=eyJhIjoxfQ_sig_Zm9vYmFy; Path=/; HttpOnly\n", "eyJhIjoxfQ_sig_Zm9vYmFy", redact.KindCookie, "; Path=/; HttpOnly"},
		{"bare aws secret next to its key id", "Access key ID,Secret access key\nAKIAIOSFODNN7EXAMPLE," + awsSecretBare + "\n", awsSecretBare, redact.KindAWSSecretKey, "Secret access key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantRedacted(t, r, tt.in, tt.secret, tt.kind, tt.keep) })
	}
	// Near misses of the new rules stay as written.
	for _, s := range []string{
		"the password is stored in the vault; log in with your password",
		"please login with your password manager, then machine learning password reset",
		"mysql -p prompts for the password; use mysql --help",
		"set the cookie: it expires tomorrow",
		"document.cookie = value; // cookies are small",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b by AKIAIOSFODNN7EXAMPLE-like ids",
		"npm_config_cache is an env var; glpat- tokens start with glpat-",
		"ssh -p 2222 host",
		"find /var/lib/mysql -name '*.ibd' -print",
		"docker run -d mysql:8 -p3306:3306",
		"cd mysql && patch -p1 < fix.diff && cp -pr a b",
		"By default the login page password field is hidden",
	} {
		got, _ := r.RedactText(s)
		if strings.Contains(s, "AKIAIOSFODNN7EXAMPLE-like") {
			// the id itself is redacted; the hex digest next to it must not be
			if !strings.Contains(got, "3f786850e387550fdab836ed7e6dc881de23001b") {
				t.Errorf("a hex digest next to a key id was redacted: %q", got)
			}
			continue
		}
		if got != s {
			t.Errorf("RedactText(%q) = %q; want it unchanged", s, got)
		}
	}
}

// TestGenericValuesNeedEvidence pins the evidence the generic rules ask of a value under a
// secret-sounding name (docs/REDACTION.md, "Evidence"): length, a letter with a digit or a
// symbol, entropy, and not a placeholder, template, constant, path or reference.
func TestGenericValuesNeedEvidence(t *testing.T) {
	r := mustNew(t, redact.Config{})
	for _, tt := range []struct {
		in     string
		secret string // "" when nothing may change
	}{
		{`test_token = "music"`, ""},
		{`token: embed, visualize`, ""},
		{`password = "Xk3v9q"`, "Xk3v9q"},                               // 6 bytes is enough for a password
		{`api_key = "Xk3v9q"`, ""},                                      // but not for a key
		{`api_key = "Xk3v9qLm"`, "Xk3v9qLm"},                            // 8 bytes
		{`secret = "aaaa1111"`, ""},                                     // too little entropy
		{`secret = "hidden-layer-size"`, ""},                            // words
		{`SECRET = "sampleAccessTokenName"`, ""},                        // camelCase letters only
		{`SECRET = "qWeRtYuIoPaSdFgHjKlZxC"`, "qWeRtYuIoPaSdFgHjKlZxC"}, // random mixed case
		{`token = "OPENAI_API_KEY_V2"`, ""},                             // a constant name
		{`token = "your-token-1234"`, ""},                               // a placeholder
		{`token = "{token}"`, ""},                                       // a template
		{`password: /run/secrets/db_password`, ""},                      // a path
		{`password: !vault |`, ""},                                      // a YAML tag
		{`print("password:" + password)`, ""},                           // the key ends a string literal
		{`token = "s3cr3t value"`, ""},                                  // blanks: a message
		{`password: 123456`, ""},                                        // digits only
		{`GAP_TOKEN = "ds16.value_state.no_observation"`, ""},           // a path of words
		{`Authorization: Basic dXNlcjpwYXNz`, "dXNlcjpwYXNz"},           // the scheme says what it is
		{`curl -u admin:Xk3v9qLm2Tz7 https://x`, "Xk3v9qLm2Tz7"},
		{`curl -u user:password https://x`, ""},
		{`postgres://user:password@localhost/db`, ""},
		{`amqp://guest:guest@localhost:5672/`, ""},
		{`Set-Cookie: theme=dark; Path=/`, ""},
		{`aws configure set aws_secret_access_key ` + awsSecret, awsSecret},
	} {
		got, n := r.RedactText(tt.in)
		switch {
		case tt.secret == "" && (got != tt.in || n != 0):
			t.Errorf("RedactText(%q) = %q; want it unchanged", tt.in, got)
		case tt.secret != "" && strings.Contains(got, tt.secret):
			t.Errorf("RedactText(%q) = %q; want %q gone", tt.in, got, tt.secret)
		}
	}
}

// TestPrefixedMasksAreNotTokens keeps documentation placeholders with a real prefix.
func TestPrefixedMasksAreNotTokens(t *testing.T) {
	r := mustNew(t, redact.Config{})
	for _, s := range []string{
		"GITHUB_TOKEN=ghp_" + strings.Repeat("x", 36),
		"GITHUB_TOKEN=ghp_" + strings.Repeat("X", 36),
		"AWS_ACCESS_KEY_ID=AKIA" + strings.Repeat("X", 16),
		"OPENAI_API_KEY=sk-proj-" + strings.Repeat("X", 48),
		"SLACK_BOT_TOKEN=xoxb-0000000000-0000000000000-" + strings.Repeat("x", 24),
		"OPENAI_API_KEY=sk-proj-YOUR_OPENAI_API_KEY_GOES_HERE",
	} {
		if got, n := r.RedactText(s); got != s || n != 0 {
			t.Errorf("RedactText(%q) = %q; want it unchanged", s, got)
		}
	}
}

// The redaction findings of issue 25, as exact outputs: hyphenated sk- names stay, values with
// '&' go whole, Twilio API keys and Discord bot tokens have rules.
func TestIssue25RedactionFindings(t *testing.T) {
	r := mustNew(t, redact.Config{})
	twilio := "SK" + "0123456789abcdef0123456789abcdef"
	discord := "MTIzNDU2Nzg5MDEyMzQ1Njc4" + ".GhIjKl." + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_"
	for _, tc := range []struct{ in, want string }{
		{"ls /tmp/sk-learn-cache-dir-2024-01", "ls /tmp/sk-learn-cache-dir-2024-01"},
		{"git clone github.com/acme/sk-dashboard-frontend-2024", "git clone github.com/acme/sk-dashboard-frontend-2024"},
		{"task-sk-implement-feature-123 is done", "task-sk-implement-feature-123 is done"},
		{"DB_PASSWORD=j3&5577oOWOfQaRa@qYq59FW\nDB_HOST=db", "DB_PASSWORD=[redacted:assignment]\nDB_HOST=db"},
		{"password: Tr0ub4dor&3", "password: [redacted:assignment]"},
		{"password: Tr0ub4dor&3&& make", "password: [redacted:assignment]&& make"},
		{"https://x.test/cb?token=abc123XYZ789q&page=2", "https://x.test/cb?token=[redacted:assignment]&page=2"},
		{"PASSWORD=hunter2xyz9&amp;next", "PASSWORD=[redacted:assignment]&amp;next"},
		{"api key " + twilio + " and its secret", "api key [redacted:twilio_api_key] and its secret"},
		{`client.run("` + discord + `")`, `client.run("[redacted:discord_token]")`},
		{"id MTIzNDU2Nzg5MDEyMzQ1Njc4 alone", "id MTIzNDU2Nzg5MDEyMzQ1Njc4 alone"},
	} {
		if got, _ := r.RedactText(tc.in); got != tc.want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
