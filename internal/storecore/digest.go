package storecore

import (
	"strings"

	"github.com/annals-dev/annals"
)

// The digest state's SQL and the one check of a digest write, for both stores (annals.DigestStore,
// migrations sqlite 0024 and postgres 0019). Placeholders are '?': PostgreSQL rebinds them.

// DigestStateColumns follow a store's chat columns in a FindDigestStates row: the digested
// revision (-1 when never), its time, the failures in a row, the retry time and the lease.
const DigestStateColumns = `COALESCE(d.digested_entries, -1), d.digested_at, COALESCE(d.failures, 0), d.retry_at,
	COALESCE(d.lease_holder, ''), d.lease_until`

// DigestStates is the query of FindDigestStates over cols (the store's chat columns, alias c):
// chats holding entries whose transcript differs from the one last digested, oldest activity
// first, after the filter's position. Its conditions on entry_count and archived_at are the
// predicate of the index it walks (sqlite 0032, postgres 0026: chats_digest_walk), spelled
// alike so both planners take it.
func DigestStates(cols string, f annals.DigestStateFilter) (string, []any) {
	w := &Where{}
	w.Add("c.entry_count > 0")
	w.Add("(d.chat_pk IS NULL OR d.digested_entries <> c.revision)")
	w.Add("c.archived_at IS NULL")
	if f.ChatID != "" {
		w.Add("c.id = ?", f.ChatID)
	}
	if f.ActiveSince != nil {
		w.Add("c.last_activity >= ?", f.ActiveSince.UTC().UnixNano())
	}
	if !f.AfterActivity.IsZero() || f.AfterID != "" {
		// The plain range first: it is what lets the page start in the index (chats_digest_walk)
		// where the last one ended, rather than scan and sort every chat again.
		at := f.AfterActivity.UTC().UnixNano()
		w.Add("c.last_activity >= ?", at)
		w.Add("(c.last_activity > ? OR (c.last_activity = ? AND c.id > ?))", at, at, f.AfterID)
	}
	q := `SELECT ` + cols + `, ` + DigestStateColumns + ` FROM chats c LEFT JOIN chat_digests d ON d.chat_pk = c.pk
		WHERE ` + strings.Join(w.Conds, " AND ") + ` ORDER BY c.last_activity, c.id LIMIT ?`
	return q, append(w.Args, annals.EffectiveLimit(f.Limit, annals.DefaultListLimit, annals.MaxListLimit))
}

// DigestLease takes a chat's lease (arguments: chat pk, holder, until, now) in one atomic
// upsert: it changes a row only when the lease is free, expired or already the holder's, so
// rows affected says whether it was taken.
const DigestLease = `INSERT INTO chat_digests (chat_pk, lease_holder, lease_until) VALUES (?, ?, ?)
	ON CONFLICT (chat_pk) DO UPDATE SET lease_holder = excluded.lease_holder, lease_until = excluded.lease_until
	WHERE chat_digests.lease_holder = '' OR chat_digests.lease_holder = excluded.lease_holder
		OR chat_digests.lease_until IS NULL OR chat_digests.lease_until <= ?`

// DigestRenew moves the end of a lease (arguments: until, chat pk, holder) only while holder
// has it: a lease taken over by another worker, or released, is not renewed (renewing a free
// lease would take back a chat another worker digested meanwhile).
const DigestRenew = `UPDATE chat_digests SET lease_until = ? WHERE chat_pk = ? AND lease_holder = ?`

// DigestHolder reads a chat's lease holder (argument: chat pk).
const DigestHolder = `SELECT lease_holder FROM chat_digests WHERE chat_pk = ?`

// DigestRelease releases the lease of a chat (arguments: chat pk, holder) if holder has it.
const DigestRelease = `UPDATE chat_digests SET lease_holder = '', lease_until = NULL WHERE chat_pk = ? AND lease_holder = ?`

// DigestStored records a stored digest (arguments: entries, at, chat pk): failures reset, lease
// released.
const DigestStored = `UPDATE chat_digests SET digested_entries = ?, digested_at = ?, failures = 0, retry_at = NULL,
	lease_holder = '', lease_until = NULL WHERE chat_pk = ?`

// DigestMarked records a recap made outside the worker (arguments: chat pk, revision, at):
// digested at that revision and time, failures reset, the lease untouched.
const DigestMarked = `INSERT INTO chat_digests (chat_pk, digested_entries, digested_at) VALUES (?, ?, ?)
	ON CONFLICT (chat_pk) DO UPDATE SET digested_entries = excluded.digested_entries, digested_at = excluded.digested_at,
		failures = 0, retry_at = NULL`

// DigestFailed records a failed digest (arguments: failures, retry at, chat pk, holder) and
// releases the lease, only while holder has it.
const DigestFailed = `UPDATE chat_digests SET failures = ?, retry_at = ?, lease_holder = '', lease_until = NULL
	WHERE chat_pk = ? AND lease_holder = ?`

// DigestScheduleRead and DigestScheduleWrite keep the time of the last scheduled recap.
const (
	DigestScheduleRead  = `SELECT last_run FROM digest_schedule WHERE singleton = 1`
	DigestScheduleWrite = `INSERT INTO digest_schedule (singleton, last_run) VALUES (1, ?)
		ON CONFLICT (singleton) DO UPDATE SET last_run = excluded.last_run`
)

// DigestPlan is the one check of a digest write, made by both stores inside the write
// transaction with the chat row as it is then (cur) and its lease holder: the write lands only
// for the lease's holder and the revision it was computed from. ok false means stale: nothing
// is stored. titled says the update carries the generated title (the chat has no title, or only
// a generated one: a person's title is never replaced).
func DigestPlan(cur *annals.Chat, holder string, w annals.DigestWrite) (upd annals.ChatUpdate, titled, ok bool) {
	if holder != w.Holder || cur.Revision != w.Revision {
		return upd, false, false
	}
	summary := w.Summary
	upd.Summary = &summary
	if w.Title != "" && (cur.Title == "" || cur.TitleGenerated) {
		title := w.Title
		upd.Title, upd.TitleGenerated = &title, true
		titled = true
	}
	return upd, titled, true
}

// CheckDigestWrite refuses a write without a holder.
func CheckDigestWrite(w annals.DigestWrite) error {
	if w.Holder == "" {
		return annals.Errorf(annals.EINVALID, "a digest write needs its lease holder")
	}
	return nil
}

// DigestConflict is the answer to a stale digest write.
func DigestConflict(id string) error {
	return annals.Errorf(annals.ECONFLICT, "chat %q changed while its digest was computed (or its lease was lost); the digest was not stored", id)
}
