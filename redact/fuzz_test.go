package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/redact"
)

var fuzzSeeds = []string{
	`{"password": "hunter2", "n": 1}`,
	`{"cmd": "export GITHUB_TOKEN=` + githubPAT + `", "list": [["a", {"api_key": "x1"}]]}`,
	`"<private>secret</private> tail"`,
	`{"a": "\u003cprivate\u003e x", "b": "https:\/\/u:p@h"}`,
	`{"Authorization": "Bearer ` + jwt + `"}`,
	`{"k": "-----BEGIN RSA PRIVATE KEY-----\n` + "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn" + `"}`,
	`[1, 2.5e3, true, null, "", "\ud83d\ude00"]`,
	`{"x": "bad \ud800 surrogate", "token": "abc\u2028def"}`,
	`not json at all token=abc123`,
	`{"password": "ab` + "\xff" + `cd"}`,
}

// FuzzRedactJSON checks that a JSON field never stops being valid JSON, that redaction never
// panics, and that it is idempotent (a rescan over stored data changes nothing).
func FuzzRedactJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	r, err := redact.New(redact.Config{SecretEnvValues: []string{"fuzz-env-secret"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		valid := json.Valid(in)
		e := &annals.Entry{Kind: annals.KindTool, Metadata: append([]byte(nil), in...),
			Tool: &annals.ToolCall{Name: "t", Arguments: append([]byte(nil), in...)}}
		n := r.RedactEntry(e)
		out := e.Tool.Arguments
		if valid && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\nin:  %q\nout: %q", in, out)
		}
		if !valid && n > 0 && !json.Valid(out) {
			t.Fatalf("redacted invalid JSON was not made valid:\nin:  %q\nout: %q", in, out)
		}
		if n == 0 && string(out) != string(in) {
			t.Fatalf("no replacements but the field changed:\nin:  %q\nout: %q", in, out)
		}
		first := string(out)
		e.Tool.Arguments = append([]byte(nil), out...)
		if n2 := r.RedactEntry(e); n2 != 0 || string(e.Tool.Arguments) != first {
			t.Fatalf("not idempotent (%d more):\nin:   %q\nonce: %q\ntwice: %q", n2, in, first, e.Tool.Arguments)
		}
	})
}

// FuzzRedactText checks that text redaction never panics and is idempotent.
func FuzzRedactText(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("password=hunter2 Bearer abcdefghijklmnop1234 " + awsKeyID + " postgres://a:b@c")
	r, err := redact.New(redact.Config{SecretEnvValues: []string{"fuzz-env-secret"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		once, _ := r.RedactText(in)
		twice, n := r.RedactText(once)
		if twice != once || n != 0 {
			t.Fatalf("not idempotent (%d more):\nin:    %q\nonce:  %q\ntwice: %q", n, in, once, twice)
		}
	})
}
