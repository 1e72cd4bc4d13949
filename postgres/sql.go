package postgres

import (
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// SQL is written with ? placeholders, as in the SQLite store, and numbered ($1, $2, ...) by
// rebind just before it runs; that keeps fragments composable without counting arguments by hand.
// No statement here holds a ? inside a string literal, and rebind skips quoted text anyway.
func rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	inQuote := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
			b.WriteByte(c)
		case c == '?' && !inQuote:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// where is the shared WHERE builder (storecore.Where), with this store's own additions.
type where struct{ storecore.Where }

// addTenant applies only the tenant part of the owner, on a table that carries tenant_id but
// not user and agent (entries): the final join on chats applies the rest. It lets the planner
// (and a tenant-distributed cluster) stay inside one tenant.
func (w *where) addTenant(alias string, o annals.Owner) {
	if o.AllTenants {
		return
	}
	if o.TenantID == "" {
		w.Add("false")
		return
	}
	w.Add(alias+".tenant_id = ?", o.TenantID)
}

// Times are stored as unix nanoseconds: exact round trips, cheap comparisons, one column type.
func unixNano(t time.Time) int64 { return t.UTC().UnixNano() }

func fromNano(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNano(n *int64) *time.Time {
	if n == nil {
		return nil
	}
	t := fromNano(*n)
	return &t
}

func quote(s string) string { return strconv.Quote(s) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
