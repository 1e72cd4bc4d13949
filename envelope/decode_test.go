package envelope_test

import (
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
)

// TestDecodeRequestPointsIDAtSessionID proves a body naming the chat "id" or "chat_id" (the
// names of the REST routes and the capture format) is told the envelope's name, and that the
// hint is given only for those names at the top level.
func TestDecodeRequestPointsIDAtSessionID(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"op":"get","id":"c1"}`, `unknown field "id": did you mean "session_id"?`},
		{`{"op":"get","chat_id":"c1"}`, `unknown field "chat_id": did you mean "session_id"?`},
		{`{"op":"get","chat":"c1"}`, `unknown field "chat"`},
		{`{"op":"list","attributes":{"k":{"value":"v","id":"x"}}}`, `an attribute filter is a string`},
	} {
		_, err := envelope.DecodeRequest(strings.NewReader(c.body))
		msg := annals.ErrorMessage(err)
		if annals.ErrorCode(err) != annals.EINVALID || !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s: %v, want invalid starting %q", c.body, err, c.want)
		}
		if !strings.Contains(c.want, "session_id") && strings.Contains(msg, "session_id") {
			t.Errorf("%s: %q hints at session_id where the field is not the chat's id", c.body, msg)
		}
	}
}
