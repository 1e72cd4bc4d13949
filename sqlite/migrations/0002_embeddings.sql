-- 0002: one embedding per chat for the related operation. tenant_id, user_id and agent_id are
-- copied from the chat row (they are immutable there), so the owner fold runs on this table's
-- own columns inside SQL WHERE.
CREATE TABLE chat_embeddings (
	chat_pk    INTEGER PRIMARY KEY REFERENCES chats (pk) ON DELETE CASCADE,
	tenant_id  TEXT    NOT NULL,
	user_id    TEXT    NOT NULL DEFAULT '',
	agent_id   TEXT    NOT NULL DEFAULT '',
	model      TEXT    NOT NULL,
	dimension  INTEGER NOT NULL,
	vector     BLOB    NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE INDEX chat_embeddings_by_tenant ON chat_embeddings (tenant_id, model);
