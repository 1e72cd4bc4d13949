package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

var _ annals.CurationTaker = (*DB)(nil)

// TakeCuration applies a remote's curation of a chat held here by the conflict rule; see
// annals.CurationTaker.
func (db *DB) TakeCuration(ctx context.Context, remote *annals.Chat, stamps map[string]annals.FieldStamp) (bool, error) {
	var took bool
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		var err error
		took, err = storecore.TakeCuration(&curationTx{mirrorTx{*newReplicaTx(ctx, db, tx, nil)}}, remote, stamps, db.now())
		return err
	})
	return took, err
}

// curationTx is storecore.CurationTx over a PostgreSQL write transaction.
type curationTx struct{ mirrorTx }

func (c *curationTx) SetHuman(ref annals.ChatRef, upd annals.ChatUpdate, at time.Time) error {
	c.db.feedMarks.Touch(c.tx, ref.ID, "", false)
	return c.db.setHumanIn(c.ctx, c.tx, ref, upd, at)
}

func (c *curationTx) SeenHLC(hlc int64) error {
	_, err := c.tx.Exec(c.ctx, `UPDATE replication_host SET hlc = GREATEST(hlc, $1) WHERE singleton = 1`, hlc)
	return c.db.storeErrOrNil("move the hybrid logical clock", err)
}
