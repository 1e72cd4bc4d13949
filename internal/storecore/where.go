package storecore

import (
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Where accumulates fixed SQL fragments and their bound arguments, with ? placeholders (the
// PostgreSQL store numbers them just before a statement runs). User input only ever travels as
// an argument.
type Where struct {
	Conds []string
	Args  []any
}

// Add appends a condition and its arguments.
func (w *Where) Add(cond string, args ...any) {
	w.Conds = append(w.Conds, cond)
	w.Args = append(w.Args, args...)
}

// SQL joins the conditions with AND; no condition is true. "1 = 1" and "1 = 0" read the same
// in SQLite and PostgreSQL.
func (w *Where) SQL() string {
	if len(w.Conds) == 0 {
		return "1 = 1"
	}
	return strings.Join(w.Conds, " AND ")
}

// AddOwner applies the owner constraint to the chat columns of alias. A zero owner matches
// nothing, so a caller that forgot to set it fails closed.
func (w *Where) AddOwner(alias string, o annals.Owner) {
	if o.AllTenants {
		return
	}
	if o.TenantID == "" {
		w.Add("1 = 0")
		return
	}
	w.Add(alias+".tenant_id = ?", o.TenantID)
	if o.UserID != "" {
		w.Add(alias+".user_id = ?", o.UserID)
	}
	if o.AgentID != "" {
		w.Add(alias+".agent_id = ?", o.AgentID)
	}
}

// AddIDs applies ChatFilter.IDs to the chat ids of alias: nil adds nothing, an empty list
// matches nothing.
func (w *Where) AddIDs(alias string, ids []string) {
	switch {
	case ids == nil:
	case len(ids) == 0:
		w.Add("1 = 0")
	default:
		w.In(alias+".id", ids)
	}
}

// In adds col IN (?, ?, ...) over values.
func (w *Where) In(col string, values []string) {
	marks := make([]string, len(values))
	for i, v := range values {
		marks[i] = "?"
		w.Args = append(w.Args, v)
	}
	w.Conds = append(w.Conds, col+" IN ("+strings.Join(marks, ", ")+")")
}

// EntryWhere is the WHERE clause of FindEntries over entries e joined to chats c: one chat,
// bound to the chat its caller checked when the filter carries a Ref, paged by seq, narrowed to
// some kinds. Errors: invalid.
func EntryWhere(f annals.EntryFilter) (*Where, error) {
	if f.Limit < 0 || f.AfterSeq < 0 || f.FromSeq < 0 || f.ToSeq < 0 {
		return nil, annals.Errorf(annals.EINVALID, "entry paging values must not be negative")
	}
	w := &Where{}
	w.Add("c.id = ?", f.ChatID)
	if f.Ref != nil {
		w.Add("c.tenant_id = ? AND c.user_id = ? AND c.agent_id = ? AND c.incarnation = ?", f.Ref.Owner.TenantID, f.Ref.Owner.UserID, f.Ref.Owner.AgentID, f.Ref.Incarnation)
	}
	if f.AfterSeq > 0 {
		w.Add("e.seq > ?", f.AfterSeq)
	}
	if f.FromSeq > 0 {
		w.Add("e.seq >= ?", f.FromSeq)
	}
	if f.ToSeq > 0 {
		w.Add("e.seq <= ?", f.ToSeq)
	}
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			if _, err := annals.ParseEntryKind(string(k)); err != nil {
				return nil, err
			}
			kinds[i] = string(k)
		}
		w.In("e.kind", kinds)
	}
	return w, nil
}

// FromNano reads a stored time: unix nanoseconds, UTC.
func FromNano(n int64) time.Time { return time.Unix(0, n).UTC() }
