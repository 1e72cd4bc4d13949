package postgres

import (
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
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

// where accumulates fixed SQL fragments and their bound arguments. User input only ever
// travels as an argument.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, " AND ")
}

// addOwner applies the owner constraint. A zero owner matches nothing, so a caller that forgot
// to set it fails closed.
func (w *where) addOwner(alias string, o annals.Owner) {
	if o.AllTenants {
		return
	}
	if o.TenantID == "" {
		w.add("false")
		return
	}
	w.add(alias+".tenant_id = ?", o.TenantID)
	if o.UserID != "" {
		w.add(alias+".user_id = ?", o.UserID)
	}
	if o.AgentID != "" {
		w.add(alias+".agent_id = ?", o.AgentID)
	}
}

// addTenant applies only the tenant part of the owner, on a table that carries tenant_id but
// not user and agent (entries): the final join on chats applies the rest. It lets the planner
// (and a tenant-distributed cluster) stay inside one tenant.
func (w *where) addTenant(alias string, o annals.Owner) {
	if o.AllTenants {
		return
	}
	if o.TenantID == "" {
		w.add("false")
		return
	}
	w.add(alias+".tenant_id = ?", o.TenantID)
}

// in adds "col IN (?, ?, ...)" for values.
func (w *where) in(col string, values []string) {
	marks := make([]string, len(values))
	for i, v := range values {
		marks[i] = "?"
		w.args = append(w.args, v)
	}
	w.conds = append(w.conds, col+" IN ("+strings.Join(marks, ", ")+")")
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
