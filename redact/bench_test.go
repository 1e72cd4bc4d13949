package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/redact"
)

// cleanText is about 1 KB of an ordinary coding-agent turn: prose, a path, a URL, code words
// such as token and key, and no secret.
const cleanText = `I looked at the failing test in sqlite/capture_test.go. The problem is that the
writer connection begins its transaction with BEGIN DEFERRED, so two writers can both read and
then fail to upgrade the lock. Switching to BEGIN IMMEDIATE makes the second writer wait for the
busy timeout instead. I also checked how the tokenizer counts tokens for the summary: max_tokens
is 4096 and the key used for the cache is the chat id plus the last seq. See
https://www.sqlite.org/lang_transaction.html for the locking rules. The author of the original
change left a note that the API key is read from the keychain, so nothing secret is in the
config file. Next I will run go test -race ./... and update docs/ARCHITECTURE.md with the
decision, then ask you to review the diff before I commit it. Let me know if you want the
migration split into two files; it is small enough to keep as one. Done: all 214 tests pass.`

func benchEntries() (clean, secret *annals.Entry) {
	args := `{"command": "go test -race -count=1 ./sqlite/... 2>&1 | tail -40", "description": "Run the store tests with the race detector", "timeout": 600000}`
	clean = &annals.Entry{
		ID: "e1", Kind: annals.KindTool, Text: cleanText[:300],
		Tool: &annals.ToolCall{Name: "Bash", Arguments: json.RawMessage(args), Result: cleanText[300:]},
	}
	secretArgs := `{"command": "curl -H \"Authorization: Bearer ` + jwt + `\" https://api.example.com", "env": {"GITHUB_TOKEN": "` + githubPAT + `", "DB_PASSWORD": "hunter2"}}`
	secret = &annals.Entry{
		ID: "e2", Kind: annals.KindTool, Text: cleanText[:300] + " export OPENAI_API_KEY=" + openAIProj,
		Tool: &annals.ToolCall{Name: "Bash", Arguments: json.RawMessage(secretArgs),
			Result: strings.Replace(cleanText[300:], "See", "psql postgres://app:s3cret@db/app and "+awsKeyID+". See", 1)},
	}
	return clean, secret
}

// BenchmarkRedactEntry measures the per-entry cost on the capture path: a typical 1 KB tool
// entry with no secret (the common case, which must stay cheap) and one carrying several.
func BenchmarkRedactEntry(b *testing.B) {
	r, err := redact.New(redact.Config{SecretEnvValues: []string{"bench-env-secret-1", "bench-env-secret-2"}})
	if err != nil {
		b.Fatal(err)
	}
	clean, secret := benchEntries()
	for _, bc := range []struct {
		name string
		e    *annals.Entry
		want int
	}{{"clean_1KB", clean, 0}, {"secrets_1KB", secret, 6}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(bc.e.Size()))
			b.ReportAllocs()
			for b.Loop() {
				e := *bc.e
				t := *bc.e.Tool
				e.Tool = &t
				if n := r.RedactEntry(&e); n != bc.want {
					b.Fatalf("replacements = %d, want %d", n, bc.want)
				}
			}
		})
	}
}

// BenchmarkRedactText measures plain text without and with a secret.
func BenchmarkRedactText(b *testing.B) {
	r, err := redact.New(redact.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, s string }{
		{"clean_1KB", cleanText},
		{"secret_1KB", cleanText + " token=" + githubPAT},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			b.ReportAllocs()
			for b.Loop() {
				r.RedactText(bc.s)
			}
		})
	}
}

// BenchmarkDenseKeyIDs redacts 1 MiB holding an AWS key id and a secret-shaped word every 46
// bytes: the pairing of secrets with nearby key ids must stay linear in the text (it once
// compared every candidate with every id).
func BenchmarkDenseKeyIDs(b *testing.B) {
	r, err := redact.New(redact.Config{})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("AKIA wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ", (1<<20)/46)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.RedactText(text)
	}
}
