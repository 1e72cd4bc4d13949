package importer_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestDatedMessageFormatsGiveEachCallItsResultsTime: the formats read through the shared
// Anthropic-style blocks whose messages carry their own times (Roo Code's ts, Droid's and
// iFlow's timestamps, Cline's SDK sessions, Claude.ai's created_at) record on a call the time of
// the message holding its result (annals.MetaResultTime), never before the call; the web UI
// turns it into the call's duration.
func TestDatedMessageFormatsGiveEachCallItsResultsTime(t *testing.T) {
	for _, c := range []struct{ format, path string }{
		{"roo-code", importertest.Testdata("cline", "globalStorage", "rooveterinaryinc.roo-cline", "tasks", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "api_conversation_history.json")},
		{"factory-droid", importertest.Testdata("factory-droid", ".factory", "sessions", "-home-u-plover", "6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a.jsonl")},
		{"iflow", importertest.Testdata("iflow", ".iflow", "projects", "-Users-u-zoo", "session-041101e6-2a7f-4dfd-90b0-57888a353f6a.jsonl")},
		{"cline-session", importertest.Testdata("cline-session", ".cline", "data", "sessions", "1784094124598_rruoq", "1784094124598_rruoq.messages.json")},
		{"claude-ai", importertest.Testdata("claude-ai", "Downloads", "data-2026-04-02-batch-0000", "conversations.json")},
	} {
		p := importertest.SrcParse(t, c.format, c.path)
		timed := 0
		for _, es := range p.Entries {
			for _, e := range es {
				if e.Tool == nil || e.Tool.Result == "" {
					continue
				}
				at, ok := importertest.MetaOf(t, e)[annals.MetaResultTime].(string)
				if !ok {
					continue
				}
				done, err := time.Parse(time.RFC3339Nano, at)
				if err != nil || !done.After(e.Time) {
					t.Errorf("%s: call %s at %s has result time %q, want a time after the call", c.format, e.ID, e.Time, at)
				}
				timed++
			}
		}
		if timed == 0 {
			t.Errorf("%s: no call has its result's time", c.format)
		}
	}
}
