package envelope_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
)

// The envelope's strict check stops at the request's deadline rather than walking the rest of a
// large body; past-deadline decoding is unavailable, not a verdict on the body.
func TestDecodingStopsAtTheDeadline(t *testing.T) {
	body := `{"op":"annotate","session_id":"c1","tags":["` + strings.Repeat(`t","`, 5000) + `t"]}`
	if _, err := envelope.DecodeRequestContext(context.Background(), strings.NewReader(body)); err != nil {
		t.Fatalf("without a deadline: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := envelope.DecodeRequestContext(ctx, strings.NewReader(body))
	if annals.ErrorCode(err) != annals.EUNAVAILABLE || !strings.Contains(annals.ErrorMessage(err), "deadline") {
		t.Errorf("a request already past its deadline: %v", err)
	}
}

// A body nested past the bound is refused by name by the envelope's own decoder too (MCP's
// history meta-tool decodes its arguments with it, in process).
func TestTheEnvelopeRefusesNestingPastTheBound(t *testing.T) {
	body := `{"op":"list","filter":` + strings.Repeat("[", 129) + strings.Repeat("]", 129) + `}`
	_, err := envelope.DecodeRequest(strings.NewReader(body))
	if annals.ErrorCode(err) != annals.EINVALID || !strings.Contains(annals.ErrorMessage(err), "at most 128 levels") {
		t.Errorf("got %v", err)
	}
}
