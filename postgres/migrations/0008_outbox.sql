-- 0008: the replication outbox (docs/REPLICATION.md).
--
-- replication_host holds the database's one host id, created when the outbox is first turned on,
-- with the fingerprint of where it was created (the cluster's system identifier, the database's
-- oid and the schema): a copy restored elsewhere is told apart from the original by it. outbox
-- says whether changes record operations.
CREATE TABLE replication_host (
	singleton  integer PRIMARY KEY CHECK (singleton = 1),
	id         text    NOT NULL,
	created_at bigint  NOT NULL,
	machine    text    NOT NULL,
	hostname   text    NOT NULL,
	location   text    NOT NULL,
	outbox     boolean NOT NULL DEFAULT false
);

-- One row per lane (chat) that ever recorded an operation: its last sequence and digest. A
-- writer locks its lane's row (the chat row lock already orders writers of one chat).
CREATE TABLE replication_lanes (
	chat_id     text   PRIMARY KEY,
	last_seq    bigint NOT NULL,
	last_digest text   NOT NULL
);

-- The queued operations. seq is the local sequence of the operation id; host_id is NULL for an
-- operation written while the host id belonged to another place, until a new id is taken.
CREATE TABLE replication_outbox (
	seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	host_id    text,
	chat_id    text   NOT NULL,
	lane_seq   bigint NOT NULL,
	kind       text   NOT NULL,
	payload    bytea  NOT NULL,
	digest     text   NOT NULL,
	created_at bigint NOT NULL,
	UNIQUE (chat_id, lane_seq)
);
