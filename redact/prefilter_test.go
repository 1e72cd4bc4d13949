package redact

import (
	"os"
	"strings"
	"testing"
)

// TestPrefilterAgreesWithEveryRulesAnchors checks the one-pass prefilter against each rule's
// own anchors, on the labelled corpus and on texts built around every anchor: a rule is skipped
// exactly when none of its anchors occurs, which is what lets RedactText skip it.
func TestPrefilterAgreesWithEveryRulesAnchors(t *testing.T) {
	r, err := New(Config{SecretEnvValues: []string{"env-secret-value-1234"}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, name := range []string{"testdata/secrets.txt", "testdata/lookalikes.txt"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.Split(string(raw), "\n===")...)
	}
	for _, rl := range r.rules {
		for _, g := range rl.anchors {
			for _, a := range g.anchors {
				// The anchor alone, at either end, in upper case, and cut short by one byte.
				texts = append(texts, a.lit, "x "+a.lit, a.lit+" x", strings.ToUpper(a.lit), a.lit[:len(a.lit)-1], a.lit[1:])
			}
		}
	}
	for _, s := range texts {
		m := r.pre.mask(s)
		for i, rl := range r.rules {
			want := len(rl.anchors) == 0 || rl.anchors.contains(s)
			if got := r.pre.may(m, i); got != want {
				t.Errorf("rule %d on %q: prefilter says %v, its anchors %v", i, s, got, want)
			}
		}
	}
}

// TestPrefilterLetsRulesWithoutAnchorsSeeEveryText: a custom regular expression has no
// literal to look for, so neither RedactText nor the JSON walk may skip it.
func TestPrefilterLetsRulesWithoutAnchorsSeeEveryText(t *testing.T) {
	r, err := New(Config{DisableBuiltin: true, Custom: []CustomRule{{Name: "ticket", Pattern: `T-[0-9]{4}`}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, n := r.RedactText("see T-1234 now"); n != 1 || got != "see [redacted:ticket] now" {
		t.Errorf("RedactText = %q, %d", got, n)
	}
	if got, n := r.redactJSON([]byte(`{"a":"T-1234"}`)); n != 1 || string(got) != `{"a":"[redacted:ticket]"}` {
		t.Errorf("redactJSON = %s, %d", got, n)
	}
}
