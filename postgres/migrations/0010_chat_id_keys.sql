-- 0010: chat ids resolve through an index. A person names a chat by its id, a prefix of it, or
-- the source tool's own id (the text after a ':': 7f3c finds claude-code:7f3c2a10-...). Each
-- chat has one row here per text it is found by: its id, and the text after each ':' in it
-- (storecore.ChatIDKeys; the store writes them with the chat, and they go with it). A prefix is
-- then a range of the primary key inside one tenant (byte order: COLLATE "C"), and an unknown
-- id an empty one, instead of a scan of the tenant's chats. chat_id_keys_by_key serves the
-- global (all tenants) scope, chat_id_keys_by_chat the cascade when a chat is deleted.

CREATE TABLE chat_id_keys (
	tenant_id text COLLATE "C" NOT NULL,
	key       text COLLATE "C" NOT NULL,
	chat_pk   bigint NOT NULL REFERENCES chats (pk) ON DELETE CASCADE,
	PRIMARY KEY (tenant_id, key, chat_pk)
);
CREATE INDEX chat_id_keys_by_key ON chat_id_keys (key, chat_pk);
CREATE INDEX chat_id_keys_by_chat ON chat_id_keys (chat_pk);

INSERT INTO chat_id_keys (tenant_id, key, chat_pk)
WITH RECURSIVE k(tenant_id, key, chat_pk) AS (
	SELECT tenant_id, id, pk FROM chats
	UNION ALL
	SELECT tenant_id, substr(key, strpos(key, ':') + 1), chat_pk FROM k WHERE strpos(key, ':') > 0
)
SELECT tenant_id, key, chat_pk FROM k WHERE key <> '';
