package annals_test

import (
	"bytes"
	"testing"

	"github.com/annals-dev/annals"
)

func TestWellFormedKeySecret(t *testing.T) {
	s, _ := annals.NewKeySecret()
	for in, want := range map[string]bool{s: true, s[:len(s)-1]: false, "annals_" + string(bytes.Repeat([]byte("!"), 43)): false, "": false, "Bearer " + s: false} {
		if got := annals.WellFormedKeySecret(in); got != want {
			t.Errorf("WellFormedKeySecret(%q) = %v, want %v", in, got, want)
		}
	}
}
