package redact_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/annals-dev/annals/redact"
)

// TestRuleInterplay throws random concatenations of secrets, their neighbours (separators,
// quotes, key names, private tags, markers) and near-miss fragments at the rules, to catch
// rules that undo or split each other's work. For every input: a second pass changes nothing
// (a rescan is a no-op), the JSON path keeps JSON valid, and no secret survives unless it is
// glued to a preceding word (a documented limit: "xAKIA..." is not an AWS key id).
func TestRuleInterplay(t *testing.T) {
	secrets := []string{awsKeyID, googleKey, openAIProj, anthropicKey, githubPAT, githubFine, slackBot, stripeLive, jwt}
	frags := append([]string{
		awsSecret, slackHook, pemBlock, "-----BEGIN PRIVATE KEY-----\n", "Bearer ", "Authorization: ", "https://", "u:", "@",
		"password", "token", "=", ": ", "\"", "'", "`", " ", "\n", `\n`, "--", "x", "<private>", "</private>",
		"[redacted:jwt]", "[private]", "key", "api_", `\"`, "{", "}", "[", "]", ",", "self.", "(", "abc123", "hunter2",
		"$", "pwd", "/home", "AKIA", "sk-", "eyJ", "://", ".", "aws_secret_access_key", "secret", "env-secret-value",
	}, secrets...)
	r := mustNew(t, redact.Config{SecretEnvValues: []string{"env-secret-value"}})
	rng := rand.New(rand.NewPCG(1, 2))
	iterations := 20000
	if testing.Short() {
		iterations = 2000
	}
	for it, fails := 0, 0; it < iterations && fails < 5; it++ {
		var b strings.Builder
		for k := rng.IntN(10) + 1; k > 0; k-- {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		in := b.String()
		once, _ := r.RedactText(in)
		if twice, n := r.RedactText(once); twice != once || n != 0 {
			fails++
			t.Errorf("second pass changed the text (%d):\nin:    %q\nonce:  %q\ntwice: %q", n, in, once, twice)
		}
		for _, s := range secrets {
			if k := strings.Index(once, s); k >= 0 && (k == 0 || !isWordByte(once[k-1])) &&
				!(s == awsKeyID && k+len(s) < len(once) && isWordByte(once[k+len(s)])) {
				fails++
				t.Errorf("secret survived:\nin:  %q\nout: %q", in, once)
			}
		}
		doc, _ := json.Marshal(map[string]any{"a": in, "password": in, "list": []string{in}})
		out, _ := redactArgs(r, string(doc))
		if !json.Valid([]byte(out)) {
			fails++
			t.Errorf("invalid JSON out of %s:\n%s", doc, out)
		}
		if again, n := redactArgs(r, out); again != out || n != 0 {
			fails++
			t.Errorf("second JSON pass changed the document (%d):\nin:    %s\nonce:  %s\ntwice: %s", n, doc, out, again)
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
