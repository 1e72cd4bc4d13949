package sqlite

import (
	"database/sql"
	"strconv"
	"time"
)

type sqlTx = sql.Tx

// Times are stored as unix nanoseconds: exact round trips, cheap comparisons, one column type.
func unixNano(t time.Time) int64 { return t.UTC().UnixNano() }

func fromNano(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNano(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromNano(n.Int64)
	return &t
}

func quote(s string) string { return strconv.Quote(s) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
