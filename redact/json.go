package redact

import (
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals/internal/jsonesc"
)

// redactJSON scrubs a JSON field (tool arguments, metadata). Every string value is redacted as
// text, and the value of a key naming a secret ("password", "api_key", "Authorization") is
// replaced whole. Only the string literals that change are rewritten, in place, so key order,
// white space and number spelling are kept and an unchanged document keeps its exact bytes.
//
// A field that is not valid JSON is redacted as text; if that changes it and the result is not
// valid JSON either, the result is stored as a JSON string, so the field is valid JSON from then
// on. An invalid field that needs no redaction is returned untouched, for validation to report.
func (r *Redactor) redactJSON(raw json.RawMessage) (json.RawMessage, int) {
	if len(raw) == 0 {
		return raw, 0
	}
	doc := string(raw)
	if !r.mayMatchJSON(doc) {
		return raw, 0
	}
	if !json.Valid(raw) {
		out, n := r.RedactText(doc)
		if n == 0 {
			return raw, 0
		}
		if json.Valid([]byte(out)) {
			return json.RawMessage(out), n
		}
		return jsonesc.AppendString(nil, out, jsonesc.Readable), n
	}
	return r.walkJSON(doc, raw)
}

// mayMatchJSON is the cheap test that lets most documents skip the walk: no rule's anchor occurs
// in the raw bytes. Escapes can hide an anchor (\u003cprivate>, https:\/\/), so a document with
// \u or \/ escapes is always walked.
func (r *Redactor) mayMatchJSON(doc string) bool {
	if strings.Contains(doc, `\u`) || strings.Contains(doc, `\/`) {
		return true
	}
	return r.pre.any(r.pre.mask(doc))
}

// frame is one open object or array of the JSON walk.
type frame struct {
	object    bool
	expectKey bool
	// key is the object's current key, or for an array the key it is the value of, so the
	// strings of "password": ["a", "b"] are treated as secret values too.
	key string
}

// walkJSON rewrites the string values of a valid JSON document. It scans the bytes itself
// rather than decoding into maps, which would lose the key order and the original formatting.
func (r *Redactor) walkJSON(doc string, raw json.RawMessage) (json.RawMessage, int) {
	var (
		out   []byte // nil until the first change
		last  int    // doc[:last] is already in out
		n     int
		stack []frame
	)
	for i := 0; i < len(doc); {
		switch doc[i] {
		case '{':
			stack = append(stack, frame{object: true, expectKey: true})
		case '[':
			key := ""
			if len(stack) > 0 {
				key = stack[len(stack)-1].key
			}
			stack = append(stack, frame{key: key})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				top.expectKey = true
			}
		case ':':
			stack[len(stack)-1].expectKey = false
		case '"':
			end := stringEnd(doc, i)
			lit := doc[i:end]
			if len(stack) > 0 && stack[len(stack)-1].expectKey {
				stack[len(stack)-1].key = unquoteJSON(lit)
			} else {
				key := ""
				if len(stack) > 0 {
					key = stack[len(stack)-1].key
				}
				if v, k := r.redactValue(key, unquoteJSON(lit)); k > 0 {
					if out == nil {
						out = make([]byte, 0, len(doc)+64)
					}
					out = append(out, doc[last:i]...)
					out = jsonesc.AppendString(out, v, jsonesc.Readable)
					last = end
					n += k
				}
			}
			i = end
			continue
		}
		i++
	}
	if n == 0 {
		return raw, 0
	}
	return append(out, doc[last:]...), n
}

// redactValue redacts one JSON string value found under key (empty at the top level and for
// values with no key). A value under a secret-named key is replaced whole unless the text rules
// already turned it into exactly one marker (a GitHub token under "GITHUB_TOKEN" keeps the more
// telling kind github_token) or it is a placeholder such as "" or "${TOKEN}".
func (r *Redactor) redactValue(key, v string) (string, int) {
	out, n := r.RedactText(v)
	if !r.builtin || key == "" || !isSecretKeyName(key) {
		return out, n
	}
	prefix, rest := splitScheme(out)
	if !plausibleValue(key, rest, true, false, prefix != "", "", 0) {
		return out, n
	}
	if isAWSSecretKey(key, rest) {
		return prefix + awsSecretKeyMarker, 1
	}
	return prefix + assignmentMarker, 1
}

// stringEnd returns the index just after the string literal that starts at doc[i] == '"'. The
// document is valid JSON, so the literal is closed.
func stringEnd(doc string, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// unquoteJSON decodes a string literal of a valid document. Literals without escapes, the
// common case, are sliced rather than decoded.
func unquoteJSON(lit string) string {
	if !strings.Contains(lit, `\`) {
		return lit[1 : len(lit)-1]
	}
	var v string
	if err := json.Unmarshal([]byte(lit), &v); err != nil {
		return lit[1 : len(lit)-1] // unreachable for a valid document; never lose the text
	}
	return v
}
