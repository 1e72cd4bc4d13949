package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The digest state on PostgreSQL (annals.DigestStore, migration 0019). The lease is one atomic
// upsert, so two servers on this database never digest one chat at once; a digest is stored
// with the chat row locked, so no append commits between its revision check and its write.

var _ annals.DigestStore = (*DB)(nil)

// FindDigestStates returns chats whose transcript differs from the one digested; see
// annals.DigestStore.
func (db *DB) FindDigestStates(ctx context.Context, f annals.DigestStateFilter) ([]annals.DigestState, error) {
	q, args := storecore.DigestStates(chatColumns, f)
	rows, err := db.pool.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, db.storeErr("find digest states", err)
	}
	defer rows.Close()
	var out []annals.DigestState
	for rows.Next() {
		var st annals.DigestState
		var at, retry, until *int64
		chat, err := scanChat(rows, &st.DigestedRevision, &at, &st.Failures, &retry, &st.LeaseHolder, &until)
		if err != nil {
			return nil, db.storeErr("find digest states", err)
		}
		st.Chat = chat
		st.DigestedAt, st.RetryAt, st.LeaseUntil = fromNullNano(at), fromNullNano(retry), fromNullNano(until)
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("find digest states", err)
	}
	return out, nil
}

// chatPK finds the pk of the chat ref names inside tx.
func (db *DB) chatPK(ctx context.Context, tx pgx.Tx, ref annals.ChatRef) (int64, error) {
	var pk int64
	err := tx.QueryRow(ctx, `SELECT c.pk FROM chats c WHERE `+refWhere, refArgs(ref)...).Scan(&pk)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, annals.NotFound(ref.ID)
	}
	if err != nil {
		return 0, db.storeErr("find chat", err)
	}
	return pk, nil
}

// LeaseDigest takes the chat's digest lease; see annals.DigestStore.
func (db *DB) LeaseDigest(ctx context.Context, ref annals.ChatRef, holder string, now, until time.Time) (bool, error) {
	var taken bool
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		pk, err := db.chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, rebind(storecore.DigestLease), pk, holder, unixNano(until), unixNano(now))
		if err != nil {
			return db.storeErr("lease digest", err)
		}
		taken = tag.RowsAffected() == 1
		return nil
	})
	return taken, err
}

// RenewDigest moves the end of holder's lease of the chat; see annals.DigestStore.
func (db *DB) RenewDigest(ctx context.Context, ref annals.ChatRef, holder string, until time.Time) (bool, error) {
	var renewed bool
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		pk, err := db.chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, rebind(storecore.DigestRenew), unixNano(until), pk, holder)
		if err != nil {
			return db.storeErr("renew digest lease", err)
		}
		renewed = tag.RowsAffected() == 1
		return nil
	})
	return renewed, err
}

// ReleaseDigest releases holder's lease of the chat; see annals.DigestStore.
func (db *DB) ReleaseDigest(ctx context.Context, ref annals.ChatRef, holder string) error {
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		pk, err := db.chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, rebind(storecore.DigestRelease), pk, holder)
		return db.storeErrOrNil("release digest lease", err)
	})
}

// StoreDigest stores a digest computed from the transcript as it still is; see
// annals.DigestStore.
func (db *DB) StoreDigest(ctx context.Context, ref annals.ChatRef, w annals.DigestWrite) (*annals.Chat, error) {
	if err := storecore.CheckDigestWrite(w); err != nil {
		return nil, err
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		out = nil
		pk, err := db.chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		// The chat row stays locked to the commit: appends lock it too, so the entry count
		// compared here is the one the digest is stored against.
		cur, err := db.lockChat(ctx, tx, ref)
		if err != nil {
			return err
		}
		var holder string
		if err := tx.QueryRow(ctx, rebind(storecore.DigestHolder), pk).Scan(&holder); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return db.storeErr("read digest lease", err)
		}
		upd, _, ok := storecore.DigestPlan(cur, holder, w)
		if !ok {
			_, err := tx.Exec(ctx, rebind(storecore.DigestRelease), pk, w.Holder)
			return db.storeErrOrNil("release digest lease", err)
		}
		if err := upd.Validate(); err != nil {
			return err
		}
		if out, err = db.updateChatIn(ctx, tx, ref, upd, w.At); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, rebind(storecore.DigestStored), w.Revision, unixNano(w.At), pk)
		return db.storeErrOrNil("record digest", err)
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
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		pk, err := db.chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, rebind(storecore.DigestFailed), f.Failures, unixNano(f.RetryAt), pk, f.Holder)
		return db.storeErrOrNil("record digest failure", err)
	})
}

// MarkDigested records a recap made outside the worker; see annals.DigestStore.
func (db *DB) MarkDigested(ctx context.Context, ref annals.ChatRef, revision int64, at time.Time) error {
	return db.writeTx(ctx, func(tx pgx.Tx) error {
		pk, err := db.chatPK(ctx, tx, ref)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, rebind(storecore.DigestMarked), pk, revision, unixNano(at))
		return db.storeErrOrNil("record recap digest", err)
	})
}

// DigestScheduleRun reads when the scheduled recap last ran; see annals.DigestStore.
func (db *DB) DigestScheduleRun(ctx context.Context) (time.Time, error) {
	var at int64
	err := db.pool.QueryRow(ctx, storecore.DigestScheduleRead).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, db.storeErr("read digest schedule", err)
	}
	return fromNano(at), nil
}

// RecordDigestScheduleRun stores when the scheduled recap ran; see annals.DigestStore.
func (db *DB) RecordDigestScheduleRun(ctx context.Context, at time.Time) error {
	if db.readOnly {
		return errReadOnly()
	}
	_, err := db.pool.Exec(ctx, rebind(storecore.DigestScheduleWrite), unixNano(at))
	return db.storeErrOrNil("record digest schedule", err)
}

// storeErrOrNil is storeErr for a result that may be no error.
func (db *DB) storeErrOrNil(op string, err error) error {
	if err == nil {
		return nil
	}
	return db.storeErr(op, err)
}
