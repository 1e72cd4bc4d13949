-- 0012: the remote side of replication (docs/REPLICATION.md). replica_lanes keeps, per chat
-- that hosts replicated into this database, the last operation applied (sequence and digest),
-- the host that delivered it, the tenant it went to and whether the chat was deleted (a
-- tombstone). Every delivery locks its lane's row (inserted first when new), so deliveries of
-- one lane queue behind each other across every server sharing the database. replica_ops
-- records every operation id applied, so a redelivery changes nothing.
CREATE TABLE replica_lanes (
	chat_id     text    PRIMARY KEY,
	tenant_id   text    NOT NULL DEFAULT '',
	last_seq    bigint  NOT NULL,
	last_digest text    NOT NULL,
	host_id     text    NOT NULL DEFAULT '',
	deleted     boolean NOT NULL DEFAULT false,
	updated_at  bigint  NOT NULL
);

CREATE TABLE replica_ops (
	op_id      text   PRIMARY KEY,
	chat_id    text   NOT NULL,
	lane_seq   bigint NOT NULL,
	applied_at bigint NOT NULL
);
