package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/annals-dev/annals"
)

// usageError is a mistake in how the command was called; it exits 2. err, when set, is the
// error the mistake was found as (a bad filter the service refused), kept for its code.
type usageError struct {
	msg string
	err error
}

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// invalidIsUsage makes an invalid-input error a usage mistake: for the commands whose flags and
// query are the whole input (list, search), the service refusing them means they were called
// wrong. Any other error passes unchanged.
func invalidIsUsage(err error) error {
	if err == nil || isUsage(err) || annals.ErrorCode(err) != annals.EINVALID {
		return err
	}
	return &usageError{msg: describe(err), err: err}
}

func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// describe renders an error for a person: the caller-facing message of an annals error, the
// full text of anything else (a usage mistake, a file that cannot be read).
func describe(err error) string {
	var ae *annals.Error
	if !isUsage(err) && errors.As(err, &ae) && ae.Code == annals.EINTERNAL {
		return fmt.Sprintf("internal error: %v", errors.Unwrap(ae))
	}
	return err.Error()
}

// Exit codes (docs/CLI.md): 0 success, 1 an error, 2 a usage mistake, 3 not found (no such chat
// in the caller's scope, or an id that matches none).
const (
	exitError    = 1
	exitUsage    = 2
	exitNotFound = 3
)

func exitCode(err error) int {
	switch {
	case isUsage(err):
		return exitUsage
	case annals.ErrorCode(err) == annals.ENOTFOUND:
		return exitNotFound
	}
	return exitError
}

// errorCode is the machine-readable code of an error in JSON output: "usage" for a usage
// mistake, else the annals code (not_found, invalid, forbidden, unavailable, internal, ...).
func errorCode(err error) string {
	if isUsage(err) {
		return "usage"
	}
	return annals.ErrorCode(err)
}

// Fail writes err to standard error, as one line for people or, when the command line asked
// for --json, as {"error": {"code", "message", "exit_code"}}, and returns the exit code.
func (m *Main) Fail(err error) int {
	code := exitCode(err)
	writeError(m.Stderr, err, code, m.jsonErrors)
	return code
}

func writeError(w io.Writer, err error, code int, asJSON bool) {
	if !asJSON {
		fmt.Fprintln(w, "annals:", describe(err))
		return
	}
	type body struct {
		Code     string `json:"code"`
		Message  string `json:"message"`
		ExitCode int    `json:"exit_code"`
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]body{"error": {Code: errorCode(err), Message: describe(err), ExitCode: code}})
}

// wantsJSON reports whether a command line asks for JSON output: --json (or --json=true) before
// any "--".
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "--json=1":
			return true
		}
	}
	return false
}
