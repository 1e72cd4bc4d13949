package sqlite

import "github.com/annals-dev/annals"

// rowError is a row that could not be decoded, with the id of its chat.
type rowError struct {
	id  string
	err error
}

func (e *rowError) Error() string { return "chat " + e.id + ": " + e.err.Error() }

// Unwrap returns the cause, so a missing row still reads as sql.ErrNoRows.
func (e *rowError) Unwrap() error { return e.err }

// counter scans an INTEGER counter column leniently: an integer as is, a float (what SQLite
// stores when an integer sum overflows) clamped to the int64 range, NULL as 0.
type counter int64

// Scan implements sql.Scanner.
func (c *counter) Scan(v any) error {
	*c = counter(annals.SaturatingInt(v))
	return nil
}
