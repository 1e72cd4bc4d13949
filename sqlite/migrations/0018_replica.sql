-- 0018: the remote side of replication (docs/REPLICATION.md). replica_lanes keeps, per chat
-- that hosts replicated into this database, the last operation applied (sequence and digest),
-- the host that delivered it, the tenant it went to and whether the chat was deleted (a
-- tombstone). replica_ops records every operation id applied, so a redelivery changes nothing.
CREATE TABLE replica_lanes (
	chat_id     TEXT    PRIMARY KEY,
	tenant_id   TEXT    NOT NULL DEFAULT '',
	last_seq    INTEGER NOT NULL,
	last_digest TEXT    NOT NULL,
	host_id     TEXT    NOT NULL DEFAULT '',
	deleted     INTEGER NOT NULL DEFAULT 0,
	updated_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE replica_ops (
	op_id      TEXT    PRIMARY KEY,
	chat_id    TEXT    NOT NULL,
	lane_seq   INTEGER NOT NULL,
	applied_at INTEGER NOT NULL
) WITHOUT ROWID;
