package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/annals-dev/annals"
)

var _ annals.AgentAdopter = (*DB)(nil)

// AdoptAgent gives a chat without an agent its agent; see annals.AgentAdopter.
func (db *DB) AdoptAgent(ctx context.Context, ref annals.ChatRef, agent string) (*annals.Chat, error) {
	if err := annals.ValidateAdoptedAgent(ref, agent); err != nil {
		return nil, err
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx pgx.Tx) error {
		if err := db.adoptAgentIn(ctx, tx, ref, agent); err != nil {
			return err
		}
		var err error
		out, err = db.findChatByID(ctx, tx, ref.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// adoptAgentIn sets the agent inside tx, on the chat's row (locked first, as every writer of
// the chat locks it, so its lane stays in order) and its embedding's, rebuilds the chat's
// search documents, whose every part carries the owner's lexemes (annals_refresh_chat_doc), and
// records the operation.
func (db *DB) adoptAgentIn(ctx context.Context, tx pgx.Tx, ref annals.ChatRef, agent string) error {
	if _, err := db.lockChat(ctx, tx, ref); err != nil {
		return err
	}
	var pk int64
	err := tx.QueryRow(ctx, `UPDATE chats c SET agent_id = $6 WHERE `+refWhere+` RETURNING c.pk`,
		append(refArgs(ref), agent)...).Scan(&pk)
	if errors.Is(err, pgx.ErrNoRows) {
		return annals.NotFound(ref.ID)
	}
	if err != nil {
		return db.storeErr("adopt agent", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE chat_embeddings SET agent_id = $2 WHERE chat_pk = $1`, pk, agent); err != nil {
		return db.storeErr("adopt agent: embedding", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM chat_docs WHERE chat_pk = $1`, pk); err != nil {
		return db.storeErr("adopt agent: search documents", err)
	}
	if _, err := tx.Exec(ctx, `SELECT annals_refresh_chat_doc($1)`, pk); err != nil {
		return db.storeErr("adopt agent: search documents", err)
	}
	return db.recordChange(ctx, tx, &annals.OpPayload{Agent: &annals.AgentChange{ChatID: ref.ID, AgentID: agent}})
}
