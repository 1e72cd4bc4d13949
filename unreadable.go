package annals

import (
	"errors"
	"strings"
)

// UnreadableRows reports rows that a read skipped because they could not be decoded (a value
// an older version stored, a hand-edited database). The rest of the answer was read and is
// returned next to this error, so a caller that can serve a partial page does, and names the
// skipped chats; any other caller sees an internal error. Err is the first row's cause, for logs.
type UnreadableRows struct {
	IDs []string
	Err error
}

func (e *UnreadableRows) Error() string {
	return "unreadable rows (" + strings.Join(e.IDs, ", ") + "): " + e.Err.Error()
}

// Unwrap returns the first row's cause.
func (e *UnreadableRows) Unwrap() error { return e.Err }

// Unreadable returns the ids of the skipped rows when err is (or wraps) *UnreadableRows.
func Unreadable(err error) ([]string, bool) {
	var u *UnreadableRows
	if errors.As(err, &u) {
		return u.IDs, true
	}
	return nil, false
}

// RowSkipper collects the rows of one read that could not be decoded.
type RowSkipper struct {
	ids  []string
	seen map[string]bool
	err  error
}

// Skip records that the row of chat id could not be decoded.
func (s *RowSkipper) Skip(id string, err error) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.err == nil {
		s.err = err
	}
	if !s.seen[id] {
		s.seen[id] = true
		s.ids = append(s.ids, id)
	}
}

// Err returns an *UnreadableRows for the skipped rows, or nil when none was skipped.
func (s *RowSkipper) Err() error {
	if len(s.ids) == 0 {
		return nil
	}
	return &UnreadableRows{IDs: s.ids, Err: s.err}
}
