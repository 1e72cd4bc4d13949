-- 0029: the change feed (docs/REPLICATION.md, "The change feed and the mirror").
--
-- feed_seqs holds, per tenant, the last sequence of its feed; feed_chats, per chat, the
-- sequence of its last change in that tenant (and whether that change deleted it). A write transaction gives
-- each chat it changed the next sequences of its tenant before it commits. Chats already held
-- enter the feed in the order they were created.
CREATE TABLE feed_seqs (
	tenant_id TEXT    NOT NULL PRIMARY KEY,
	seq       INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE feed_chats (
	tenant_id TEXT    NOT NULL,
	chat_id   TEXT    NOT NULL,
	seq       INTEGER NOT NULL,
	deleted   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant_id, chat_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX feed_chats_by_tenant_seq ON feed_chats (tenant_id, seq);

INSERT INTO feed_chats (chat_id, tenant_id, seq, deleted)
	SELECT id, tenant_id, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY pk), 0 FROM chats;
INSERT INTO feed_seqs (tenant_id, seq) SELECT tenant_id, MAX(seq) FROM feed_chats GROUP BY tenant_id;

-- mirror_state: set in a mirror database (annals replicate pull) — the remote it follows, the
-- tenant whose feed it is, and the cursor. A database with this row refuses other writes.
CREATE TABLE mirror_state (
	singleton  INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
	remote     TEXT    NOT NULL,
	tenant_id  TEXT    NOT NULL,
	cursor     INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
