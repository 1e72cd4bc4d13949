package annals

import (
	"errors"
	"fmt"
)

// Error codes. Every error a store, the history service or a transport returns to a caller
// carries one of these, so each transport can map it to its own status exactly once.
const (
	ENOTFOUND    = "not_found"
	EINVALID     = "invalid"
	EFORBIDDEN   = "forbidden"
	ECONFLICT    = "conflict"
	EUNAVAILABLE = "unavailable"
	EINTERNAL    = "internal"
	// ENOTIMPLEMENTED: the backend does not have the capability asked for (a store without the
	// query view, or one that cannot rescan); it is not the caller's mistake.
	ENOTIMPLEMENTED = "not_implemented"
)

// Error is the one error type of annals. Code is machine-readable; Message is written for the
// caller and says what was wrong and, where it helps, what is allowed. Internal details (SQL,
// file paths of the server) never go into Message: they stay in the wrapped error for logs.
type Error struct {
	Code    string
	Message string
	// Err is the underlying cause, kept for logs and errors.Is; it is not shown to callers.
	Err error
}

// Error returns the message, prefixed with the code when there is no message.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Message
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps an unexpected failure. The caller sees only "internal error"; the cause stays
// reachable through errors.Unwrap for logging.
func Internal(op string, err error) *Error {
	return &Error{Code: EINTERNAL, Message: "internal error", Err: fmt.Errorf("%s: %w", op, err)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for any other
// non-nil error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-facing message of the first *Error in err's chain, and
// "internal error" for any other non-nil error so that internal details never leak.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// NotFound returns the opaque not-found error for a chat id. It is the same for a chat that does
// not exist and for one outside the caller's scope, so it can never be used as an existence oracle.
func NotFound(chatID string) *Error {
	return Errorf(ENOTFOUND, "chat %q not found", chatID)
}

// ErrorDetail returns the whole error for a log line: the caller-facing message followed by the
// cause an *Error keeps (which Error() leaves out so it never reaches a caller). Never send it
// to a caller.
func ErrorDetail(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Err != nil {
		return err.Error() + ": " + e.Err.Error()
	}
	return err.Error()
}
