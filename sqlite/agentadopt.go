package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/annals-dev/annals"
)

var _ annals.AgentAdopter = (*DB)(nil)

// AdoptAgent gives a chat without an agent its agent; see annals.AgentAdopter. The chat's
// search documents carry the owner in every block: the chat_docs_chat_owner trigger marks
// them for a full rebuild, which the write transaction runs before it commits.
func (db *DB) AdoptAgent(ctx context.Context, ref annals.ChatRef, agent string) (*annals.Chat, error) {
	if err := annals.ValidateAdoptedAgent(ref, agent); err != nil {
		return nil, err
	}
	var out *annals.Chat
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := db.adoptAgentIn(ctx, tx, ref, agent); err != nil {
			return err
		}
		var err error
		out, err = findChatByID(ctx, tx, ref.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// adoptAgentIn sets the agent inside tx, on the chat's row and its embedding's, and records
// the operation.
func (db *DB) adoptAgentIn(ctx context.Context, tx *sql.Tx, ref annals.ChatRef, agent string) error {
	var pk int64
	err := tx.QueryRowContext(ctx, `UPDATE chats SET agent_id = ? WHERE `+refWhere+` RETURNING pk`,
		append([]any{agent}, refArgs(ref)...)...).Scan(&pk)
	if errors.Is(err, sql.ErrNoRows) {
		return annals.NotFound(ref.ID)
	}
	if err != nil {
		return storeErr("adopt agent", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chat_embeddings SET agent_id = ? WHERE chat_pk = ?`, agent, pk); err != nil {
		return storeErr("adopt agent: embedding", err)
	}
	return db.recordChange(ctx, tx, &annals.OpPayload{Agent: &annals.AgentChange{ChatID: ref.ID, AgentID: agent}})
}
