package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/annals-dev/annals"
)

// Error codes the HTTP layer adds to the root's (annals.EINVALID, ENOTFOUND, ...): they describe
// the request rather than the history it asks about.
const (
	// CodeUnauthorized: no API key, or one that is unknown, revoked or malformed.
	CodeUnauthorized = "unauthorized"
	// CodeTooLarge: the request body is larger than the server accepts.
	CodeTooLarge = "too_large"
	// CodeMethodNotAllowed: the route exists, but not for this method.
	CodeMethodNotAllowed = "method_not_allowed"
)

// StatusOf maps an error code to its HTTP status. It is the one place that does so; the client
// reads the code from the body, so the mapping only has to be right in one direction.
func StatusOf(code string) int {
	switch code {
	case annals.EINVALID:
		return http.StatusBadRequest
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case annals.EFORBIDDEN:
		return http.StatusForbidden
	case annals.ENOTFOUND:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case annals.ECONFLICT, annals.EOUTOFORDER:
		return http.StatusConflict
	case CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeTooManyRequests:
		return http.StatusTooManyRequests
	case annals.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case annals.ENOTIMPLEMENTED:
		return http.StatusNotImplemented
	}
	return http.StatusInternalServerError
}

// ErrorBody is the JSON body of every error response: {"error": {"code", "message"}}. Index is
// set by POST /v1/capture when one op of a batch failed (the whole batch was rolled back).
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the error object inside ErrorBody.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Index   *int   `json:"index,omitempty"`
}

// writeJSON writes v as the JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var b []byte
	var err error
	if a, ok := v.(appender); ok {
		// The same bytes as json.Marshal, written in one pass (the query view's pages).
		b, err = a.AppendJSON(nil)
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return annals.Internal("encode response", err)
	}
	writeBody(w, status, append(b, '\n'))
	return nil
}

// writeBody writes b, a JSON body, as the response with the given status.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// appender is an answer that writes its own JSON, byte for byte what json.Marshal writes for it.
type appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// errorDetail turns err into the caller-facing code and message. Internal errors say only
// "internal error"; their cause goes to the log.
func errorDetail(err error) ErrorDetail {
	d := ErrorDetail{Code: annals.ErrorCode(err), Message: annals.ErrorMessage(err)}
	if d.Message == "" {
		d.Message = d.Code
	}
	if i, ok := annals.BatchIndex(err); ok {
		d.Index = &i
	}
	return d
}

// writeErrorBody writes an error response.
func writeErrorBody(w http.ResponseWriter, d ErrorDetail) {
	if d.Code == CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="annals"`)
	}
	_ = writeJSON(w, StatusOf(d.Code), ErrorBody{Error: d})
}

// httpError is an error with an HTTP-layer code (unauthorized, too_large, method_not_allowed).
func httpError(code, message string) error {
	return &annals.Error{Code: code, Message: message}
}

// isCode reports whether err carries code.
func isCode(err error, code string) bool {
	var ae *annals.Error
	return errors.As(err, &ae) && ae.Code == code
}

func jsonBytes(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
