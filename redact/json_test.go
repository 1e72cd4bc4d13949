package redact_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/redact"
)

// redactArgs runs JSON through the tool-arguments path of RedactEntry.
func redactArgs(r *redact.Redactor, args string) (string, int) {
	e := &annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "t", Arguments: json.RawMessage(args)}}
	n := r.RedactEntry(e)
	return string(e.Tool.Arguments), n
}

func TestToolArgumentsStayValidJSON(t *testing.T) {
	r := mustNew(t, redact.Config{})
	tests := []struct {
		name    string
		in      string
		secrets []string
		want    []string // substrings of the output
	}{
		{
			name:    "secret in a string value",
			in:      `{"command": "curl -H \"Authorization: Bearer abc123def456\" https://api.example.com"}`,
			secrets: []string{"abc123def456"},
			want:    []string{`Authorization: Bearer [redacted:bearer_token]\"`},
		},
		{
			name:    "password key",
			in:      `{"user": "bob", "password": "hunter2", "remember": true}`,
			secrets: []string{"hunter2"},
			want:    []string{`"password": "[redacted:assignment]"`, `"user": "bob"`, `"remember": true`},
		},
		{
			name:    "secret-named keys in any case and shape",
			in:      `{"Authorization": "Basic dXNlcjpwYXNz", "X-Api-Key": "k-1234567890ab", "clientSecret": "cs-9f8e7d6c5b4a", "refresh_token": "1//0gxAbC12dEf"}`,
			secrets: []string{"dXNlcjpwYXNz", "k-1234567890ab", "cs-9f8e7d6c5b4a", "1//0gxAbC12dEf"},
			want:    []string{`"Authorization": "Basic [redacted:assignment]"`, `"X-Api-Key": "[redacted:assignment]"`},
		},
		{
			name:    "nested arrays and objects",
			in:      `{"steps": [{"env": {"GITHUB_TOKEN": "` + githubPAT + `"}}, ["deploy", {"db": {"password": "p4ss-w0rd"}}], "psql postgres://u:pw12@h/db"], "n": 1.50e3}`,
			secrets: []string{githubPAT, "p4ss-w0rd", "pw12"},
			want:    []string{`"GITHUB_TOKEN": "[redacted:github_token]"`, `"password": "[redacted:assignment]"`, `postgres://u:[redacted:url_password]@h/db`, `"n": 1.50e3`},
		},
		{
			name:    "array under a secret key",
			in:      `{"passwords": ["a"], "tokens": 5, "api_key": ["first-key-1", "second-key-2"]}`,
			secrets: []string{"first-key-1", "second-key-2"},
			want:    []string{`"passwords": ["a"]`, `"tokens": 5`},
		},
		{
			name:    "placeholders and words under secret keys stay",
			in:      `{"password": "", "token": null, "secret": "${SECRET}", "api_key": "<your key>", "pwd": "/home/me", "auth": true, "pad_token": "[PAD]", "test_token": "music", "apiKey": "YOUR_API_KEY", "clientSecret": "abc"}`,
			want:    []string{`"password": ""`, `"secret": "${SECRET}"`, `"api_key": "<your key>"`, `"pwd": "/home/me"`, `"pad_token": "[PAD]"`, `"test_token": "music"`, `"apiKey": "YOUR_API_KEY"`, `"clientSecret": "abc"`},
			secrets: nil,
		},
		{
			name:    "escaped content",
			in:      `{"text": "line1\nkey: ` + openAIProj + `\n\u003cprivate\u003ediary\u003c/private\u003e \"quoted\" \u00e9"}`,
			secrets: []string{openAIProj, "diary"},
			want:    []string{`[redacted:openai_key]\n[private] \"quoted\" é`},
		},
		{
			name:    "private key in a json string",
			in:      `{"content": "` + strings.ReplaceAll(pemBlock, "\n", `\n`) + `"}`,
			secrets: []string{"MIIEowIBAAKCAQEA"},
			want:    []string{`{"content": "[redacted:private_key]"}`},
		},
		{
			name:    "top-level string",
			in:      `"token=abc123xyz"`,
			secrets: []string{"abc123xyz"},
			want:    []string{`"token=[redacted:assignment]"`},
		},
		{
			name:    "secret key inside a value is text, not a key",
			in:      `["password", "hunter2"]`,
			want:    []string{`["password", "hunter2"]`},
			secrets: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := redactArgs(r, tt.in)
			if !json.Valid([]byte(got)) {
				t.Fatalf("output is not valid JSON: %s", got)
			}
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("secret %q survived: %s", s, got)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %s\nwant it to contain %s", got, w)
				}
			}
			if again, n := redactArgs(r, got); again != got || n != 0 {
				t.Errorf("second pass changed %s to %s (%d)", got, again, n)
			}
		})
	}
}

func TestJSONKeyOrderAndFormattingAreKept(t *testing.T) {
	r := mustNew(t, redact.Config{})
	in := "{\n  \"zeta\": 1,\n  \"password\": \"hunter2\",\n  \"alpha\": [1.0, 2e10],\n  \"mid\": {\"b\": \"x\", \"a\": \"y\"}\n}"
	want := "{\n  \"zeta\": 1,\n  \"password\": \"[redacted:assignment]\",\n  \"alpha\": [1.0, 2e10],\n  \"mid\": {\"b\": \"x\", \"a\": \"y\"}\n}"
	if got, n := redactArgs(r, in); got != want || n != 1 {
		t.Errorf("got %q, %d\nwant %q, 1", got, n, want)
	}
}

func TestUnchangedJSONIsByteIdentical(t *testing.T) {
	r := mustNew(t, redact.Config{})
	for _, in := range []string{
		`{"b":1,"a":[true,null,"plain text"],"c":{"z":"y"}}`,
		"{ \"path\" : \"/tmp/x\" ,\n\t\"n\": 1.500, \"e\": \"caf\\u00e9 \\/ \\n\" }",
		`{"max_tokens": 4096, "token_count": "12", "author": "Jane", "key": "value"}`,
		`{"password": "", "token": "${TOKEN}"}`,
		`[]`,
	} {
		raw := json.RawMessage(in)
		e := &annals.Entry{Kind: annals.KindTool, Metadata: raw, Tool: &annals.ToolCall{Name: "t", Arguments: raw}}
		if n := r.RedactEntry(e); n != 0 {
			t.Errorf("%s: %d replacements, want 0", in, n)
		}
		if !bytes.Equal(e.Tool.Arguments, raw) || !bytes.Equal(e.Metadata, raw) {
			t.Errorf("unchanged JSON was rewritten: %s -> %s / %s", in, e.Tool.Arguments, e.Metadata)
		}
		if len(raw) > 0 && &e.Tool.Arguments[0] != &raw[0] {
			t.Errorf("unchanged JSON was copied: %s", in)
		}
	}
}

func TestInvalidJSONField(t *testing.T) {
	r := mustNew(t, redact.Config{})
	// Invalid JSON with a secret: redacted as text, then wrapped as a JSON string.
	got, n := redactArgs(r, `{"cmd": "login `+githubPAT+`"`)
	if n != 1 || !json.Valid([]byte(got)) || strings.Contains(got, githubPAT) {
		t.Errorf("got %s (%d), want a valid JSON string without the token", got, n)
	}
	var s string
	if err := json.Unmarshal([]byte(got), &s); err != nil || s != `{"cmd": "login [redacted:github_token]"` {
		t.Errorf("wrapped value = %q (%v)", s, err)
	}
	// Invalid JSON that redaction makes valid is kept as it is.
	if got, n := redactArgs(r, `{"a": "<private>"}, "b": "</private>"}`); got != `{"a": "[private]"}` || n != 1 {
		t.Errorf("got %s, %d; want {\"a\": \"[private]\"}, 1", got, n)
	}
	// Invalid JSON without a secret is left for validation to report.
	if got, n := redactArgs(r, `{not json`); got != `{not json` || n != 0 {
		t.Errorf("got %s, %d; want the input unchanged", got, n)
	}
}

func TestMetadataIsRedacted(t *testing.T) {
	r := mustNew(t, redact.Config{SecretEnvValues: []string{"env-value-1234"}})
	e := &annals.Entry{Kind: annals.KindUser, Text: "hi", Metadata: json.RawMessage(`{"cwd": "/x", "headers": {"cookie": "sid=env-value-1234"}}`)}
	if n := r.RedactEntry(e); n != 1 {
		t.Errorf("count = %d, want 1", n)
	}
	if want := `{"cwd": "/x", "headers": {"cookie": "sid=[redacted:secret_env]"}}`; string(e.Metadata) != want {
		t.Errorf("metadata = %s, want %s", e.Metadata, want)
	}
}
