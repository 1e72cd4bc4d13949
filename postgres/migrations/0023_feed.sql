-- 0023: the change feed (docs/REPLICATION.md, "The change feed and the mirror").
--
-- feed_seqs holds, per tenant, the last sequence of its feed; feed_chats, per chat, the
-- sequence of its last change in that tenant (and whether that change deleted it). A write
-- transaction gives each chat it changed the next sequences of its tenant last before it
-- commits, holding the tenant's feed_seqs row until then, so a tenant's sequences commit in
-- order. Chats already held enter the feed in the order they were created.
CREATE TABLE feed_seqs (
	tenant_id text COLLATE "C" PRIMARY KEY,
	seq       bigint NOT NULL
);

CREATE TABLE feed_chats (
	tenant_id text COLLATE "C" NOT NULL,
	chat_id   text COLLATE "C" NOT NULL,
	seq       bigint NOT NULL,
	deleted   boolean NOT NULL DEFAULT false,
	PRIMARY KEY (tenant_id, chat_id)
);
CREATE UNIQUE INDEX feed_chats_by_tenant_seq ON feed_chats (tenant_id, seq);

INSERT INTO feed_chats (tenant_id, chat_id, seq, deleted)
	SELECT tenant_id, id, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY pk), false FROM chats;
INSERT INTO feed_seqs (tenant_id, seq) SELECT tenant_id, MAX(seq) FROM feed_chats GROUP BY tenant_id;

-- mirror_state: set in a mirror database (annals replicate pull) — the remote it follows, the
-- tenant whose feed it is, and the cursor. A database with this row refuses other writes.
CREATE TABLE mirror_state (
	singleton  integer PRIMARY KEY CHECK (singleton = 1),
	remote     text NOT NULL,
	tenant_id  text NOT NULL,
	cursor     bigint NOT NULL,
	updated_at bigint NOT NULL
);
