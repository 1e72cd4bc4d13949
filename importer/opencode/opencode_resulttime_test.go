package opencode_test

import (
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestToolResultTimeIsKept: a tool part's state.time.end is when its result arrived
// (annals.MetaResultTime), which the web UI turns into the call's duration: the bash call of
// msg_002 ran from 1750000003500 to 1750000004500 (one second), the failed read 100 ms.
func TestToolResultTimeIsKept(t *testing.T) {
	p := importertest.MustParse(t, "opencode", importertest.Testdata("opencode", "storage"))
	es := p.Entries["opencode:ses_main"]
	for id, want := range map[string]string{"prt_005": "2025-06-15T15:06:44.5Z", "prt_006": "2025-06-15T15:06:45.1Z"} {
		e := importertest.SrcEntry(t, es, id)
		if got := importertest.SrcMeta(t, e)[annals.MetaResultTime]; got != want {
			t.Errorf("%s (%s)'s result time is %v, want %s", id, e.Tool.Name, got, want)
		}
	}
}
