package qwen_test

import (
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestQwenToolResultTimeIsKept: each call carries the time of the tool_result record that
// answered it (annals.MetaResultTime), which the web UI turns into the call's duration.
func TestQwenToolResultTimeIsKept(t *testing.T) {
	main := "qwen-code:" + importertest.QwenSession
	_, es, _ := importertest.StoredChat(t, openDB(t), main, []string{"qwen-code"}, importertest.QwenFixture())
	timed := 0
	for _, e := range es {
		if e.Kind != annals.KindTool {
			continue
		}
		at, _ := importertest.MetaOf(t, e)[annals.MetaResultTime].(string)
		done, err := time.Parse(time.RFC3339Nano, at)
		if err != nil || done.Before(e.Time) {
			t.Errorf("call %s (%s at %s): result time %q, want a time at or after the call", e.ID, e.Tool.Name, e.Time, at)
			continue
		}
		timed++
	}
	if timed == 0 {
		t.Error("no call has a result time")
	}
}
