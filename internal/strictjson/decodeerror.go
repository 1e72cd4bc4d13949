package strictjson

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/annals-dev/annals"
)

// DecodeError turns an encoding/json decoding error into an invalid error that says what was
// wrong, in the words every JSON route uses. empty is the message for a body with no value at
// all, which names what the route wants. An *annals.Error (a Check refusal, a body over its
// size) passes through unchanged.
func DecodeError(err error, empty string) error {
	var ae *annals.Error
	if errors.As(err, &ae) {
		return err
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return annals.Errorf(annals.EINVALID, "%s", empty)
	case errors.As(err, &syn):
		return annals.Errorf(annals.EINVALID, "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return annals.Errorf(annals.EINVALID, "the request body must be %s, not JSON %s", typ.Type, typ.Value)
		}
		return annals.Errorf(annals.EINVALID, "field %q must be %s, not JSON %s", typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return annals.Errorf(annals.EINVALID, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return annals.Errorf(annals.EINVALID, "malformed JSON: the body ends in the middle of a value")
	}
	return annals.Errorf(annals.EINVALID, "malformed JSON: %v", err)
}
