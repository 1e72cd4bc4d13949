// Package providerhttp maps the failures of model-provider HTTP APIs (embeddings, chat
// completions, messages) to annals errors, shared by the embed and summarize clients so both
// name endpoints and hide keys the same way.
package providerhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// maxErrorMessage bounds how much of a provider's error message reaches a caller.
const maxErrorMessage = 300

// DisplayURL is the endpoint as it may appear in an error message: without user info and
// without the query, either of which can carry a credential (Azure-style "?api-key=").
func DisplayURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.ForceQuery = false
	c.Fragment = ""
	return c.String()
}

// TransportError maps a failure to reach the provider (or a cancelled request) to unavailable.
// The message names the endpoint and the kind of failure; the raw error, which may quote
// addresses or TLS details, stays wrapped for logs.
func TransportError(ctx context.Context, what, endpoint string, err error) error {
	cause := "could not connect"
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		cause = "the request was cancelled"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		cause = "the request timed out"
	}
	return &annals.Error{
		Code:    annals.EUNAVAILABLE,
		Message: fmt.Sprintf("%s at %s is unavailable: %s", what, endpoint, cause),
		Err:     fmt.Errorf("%s %s: %w", what, endpoint, err),
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// StatusError maps a non-2xx answer. Rate limits, server errors and the provider refusing our own
// credentials or model name are the provider being unavailable to this server (the caller can do
// nothing about them); a 400, 413 or 422 rejects the input itself, so it is invalid. The
// provider's own error message is kept (bounded, with the key scrubbed) because it is usually
// the one line that says what to fix.
func StatusError(what, endpoint string, status int, body []byte, apiKey string) error {
	code := annals.EUNAVAILABLE
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		code = annals.EINVALID
	}
	msg := fmt.Sprintf("%s at %s answered %d %s", what, endpoint, status, http.StatusText(status))
	if pm := providerMessage(body, apiKey); pm != "" {
		msg += ": " + pm
	}
	return &annals.Error{Code: code, Message: msg, Err: fmt.Errorf("%s %s: status %d", what, endpoint, status)}
}

// providerMessage extracts the error message from the error bodies of OpenAI
// ({"error":{"message":...}}), Anthropic ({"type":"error","error":{"message":...}}) and servers
// that answer {"error":"..."} or plain text. The API key is scrubbed in case a provider echoes it.
func providerMessage(body []byte, apiKey string) string {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &env) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(env.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case json.Unmarshal(env.Error, &s) == nil && s != "":
			msg = s
		default:
			msg = env.Message
		}
	} else if utf8.Valid(body) && !strings.HasPrefix(strings.TrimSpace(string(body)), "<") {
		msg = string(body) // plain text; an HTML error page says nothing useful
	}
	if apiKey != "" {
		msg = strings.ReplaceAll(msg, apiKey, "[redacted]")
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxErrorMessage {
		cut := maxErrorMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// BadResponse reports a 2xx answer we cannot use (malformed JSON, wrong count, wrong dimension):
// the provider is not speaking the protocol, so to our caller it is unavailable.
func BadResponse(what, endpoint, problem string, err error) error {
	e := &annals.Error{
		Code:    annals.EUNAVAILABLE,
		Message: fmt.Sprintf("%s at %s sent an unusable response: %s", what, endpoint, problem),
	}
	if err != nil {
		e.Err = fmt.Errorf("%s %s: %s: %w", what, endpoint, problem, err)
	}
	return e
}
