package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The digest state on SQLite (annals.DigestStore, migration 0024). The store keeps state only:
// which chats are due is the history service's decision (history/digest.go).

var _ annals.DigestStore = (*DB)(nil)

// FindDigestStates returns chats whose transcript differs from the one digested; see
// annals.DigestStore.
func (db *DB) FindDigestStates(ctx context.Context, f annals.DigestStateFilter) ([]annals.DigestState, error) {
	q, args := storecore.DigestStates(chatColumns, f)
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, storeErr("find digest states", err)
	}
	defer rows.Close()
	var out []annals.DigestState
	for rows.Next() {
		st, err := scanDigestState(rows)
		if err != nil {
			return nil, storeErr("find digest states", err)
		}
		out = append(out, st)
	}
	return out, storeErrOrNil("find digest states", rows.Err())
}

// scanDigestState reads one row of chat columns followed by storecore.DigestStateColumns.
func scanDigestState(rows *sql.Rows) (annals.DigestState, error) {
	var st annals.DigestState
	var at, retry, until sql.NullInt64
	chat, err := scanChat(digestRow{rows, []any{&st.DigestedRevision, &at, &st.Failures, &retry, &st.LeaseHolder, &until}})
	if err != nil {
		return st, err
	}
	st.Chat = chat
	st.DigestedAt, st.RetryAt, st.LeaseUntil = fromNullNano(at), fromNullNano(retry), fromNullNano(until)
	return st, nil
}

// digestRow scans the chat's columns and then the state's extra targets.
type digestRow struct {
	rows  *sql.Rows
	extra []any
}

func (r digestRow) Scan(dest ...any) error { return r.rows.Scan(append(dest, r.extra...)...) }

// chatPK finds the pk of the chat ref names inside tx.
func chatPK(ctx context.Context, tx *sql.Tx, ref annals.ChatRef) (int64, error) {
	var pk int64
	err := tx.QueryRowContext(ctx, `SELECT pk FROM chats WHERE `+refWhere, refArgs(ref)...).Scan(&pk)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, annals.NotFound(ref.ID)
	}
	if err != nil {
		return 0, storeErr("find chat", err)
	}
	return pk, nil
}

// LeaseDigest takes the chat's digest lease; see annals.DigestStore.
func (db *DB) LeaseDigest(ctx context.Context, ref annals.ChatRef, holder string, now, until time.Time) (bool, error) {
	var taken bool
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		pk, err := chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, storecore.DigestLease, pk, holder, unixNano(until), unixNano(now))
		if err != nil {
			return storeErr("lease digest", err)
		}
		n, _ := r.RowsAffected()
		taken = n == 1
		return nil
	})
	return taken, err
}

// RenewDigest moves the end of holder's lease of the chat; see annals.DigestStore.
func (db *DB) RenewDigest(ctx context.Context, ref annals.ChatRef, holder string, until time.Time) (bool, error) {
	var renewed bool
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		pk, err := chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, storecore.DigestRenew, unixNano(until), pk, holder)
		if err != nil {
			return storeErr("renew digest lease", err)
		}
		n, _ := r.RowsAffected()
		renewed = n == 1
		return nil
	})
	return renewed, err
}

// ReleaseDigest releases holder's lease of the chat; see annals.DigestStore.
func (db *DB) ReleaseDigest(ctx context.Context, ref annals.ChatRef, holder string) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		pk, err := chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, storecore.DigestRelease, pk, holder)
		return storeErrOrNil("release digest lease", err)
	})
}

// StoreDigest stores a digest computed from the transcript as it still is; see
// annals.DigestStore.
func (db *DB) StoreDigest(ctx context.Context, ref annals.ChatRef, w annals.DigestWrite) (*annals.Chat, error) {
	if err := storecore.CheckDigestWrite(w); err != nil {
		return nil, err
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		pk, err := chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		cur, err := findChatByID(ctx, tx, ref.ID)
		if err != nil {
			return err
		}
		var holder string
		if err := tx.QueryRowContext(ctx, storecore.DigestHolder, pk).Scan(&holder); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return storeErr("read digest lease", err)
		}
		upd, _, ok := storecore.DigestPlan(cur, holder, w)
		if !ok {
			_, err := tx.ExecContext(ctx, storecore.DigestRelease, pk, w.Holder)
			return storeErrOrNil("release digest lease", err)
		}
		if err := upd.Validate(); err != nil {
			return err
		}
		if out, err = db.updateChatIn(ctx, tx, ref, upd, w.At); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, storecore.DigestStored, w.Revision, unixNano(w.At), pk)
		return storeErrOrNil("record digest", err)
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, storecore.DigestConflict(ref.ID)
	}
	return out, nil
}

// FailDigest records a failed digest and releases the lease; see annals.DigestStore.
func (db *DB) FailDigest(ctx context.Context, ref annals.ChatRef, f annals.DigestFailure) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		pk, err := chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, storecore.DigestFailed, f.Failures, unixNano(f.RetryAt), pk, f.Holder)
		return storeErrOrNil("record digest failure", err)
	})
}

// MarkDigested records a recap made outside the worker; see annals.DigestStore.
func (db *DB) MarkDigested(ctx context.Context, ref annals.ChatRef, revision int64, at time.Time) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		pk, err := chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, storecore.DigestMarked, pk, revision, unixNano(at))
		return storeErrOrNil("record recap digest", err)
	})
}

// DigestScheduleRun reads when the scheduled recap last ran; see annals.DigestStore.
func (db *DB) DigestScheduleRun(ctx context.Context) (time.Time, error) {
	var at int64
	err := db.reader.QueryRowContext(ctx, storecore.DigestScheduleRead).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, storeErr("read digest schedule", err)
	}
	return fromNano(at), nil
}

// RecordDigestScheduleRun stores when the scheduled recap ran; see annals.DigestStore.
func (db *DB) RecordDigestScheduleRun(ctx context.Context, at time.Time) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, storecore.DigestScheduleWrite, unixNano(at))
		return storeErrOrNil("record digest schedule", err)
	})
}
