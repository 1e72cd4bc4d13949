package annals

// ParseBounds sets q's status and activity bounds from their text as every transport receives
// them (a run status; a time or a plain date, docs/OPERATIONS.md), checked in one order —
// status, then from, then to — so the op envelope, MCP and the CLI refuse the same values with
// the same message. Empty texts leave their field unset.
func (q *ChatQuery) ParseBounds(status, from, to string) error {
	if status != "" {
		st, err := ParseRunStatus(status)
		if err != nil {
			return err
		}
		q.Status = &st
	}
	var err error
	if q.From, err = ParseTimeBound("from", from, false); err != nil {
		return err
	}
	q.To, err = ParseTimeBound("to", to, true)
	return err
}
