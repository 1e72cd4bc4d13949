package storecore

import (
	"strings"

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
