-- 0014: the replication outbox (docs/REPLICATION.md).
--
-- replication_host holds the database's one host id, created when the outbox is first turned on,
-- with the fingerprint of where it was created (machine id, hostname, the file's inode): a copy of
-- the file is told apart from the original by it. outbox says whether changes record operations.
CREATE TABLE replication_host (
	singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
	id         TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	machine    TEXT    NOT NULL,
	hostname   TEXT    NOT NULL,
	location   TEXT    NOT NULL,
	outbox     INTEGER NOT NULL DEFAULT 0
);

-- One row per lane (chat) that ever recorded an operation: its last sequence and digest. It
-- outlives the lane's queued operations (acknowledged ones are deleted) and the chat itself.
CREATE TABLE replication_lanes (
	chat_id     TEXT    PRIMARY KEY,
	last_seq    INTEGER NOT NULL,
	last_digest TEXT    NOT NULL
) WITHOUT ROWID;

-- The queued operations. seq is the local sequence of the operation id (AUTOINCREMENT: never
-- reused after a delete); host_id is NULL for an operation written while the host id belonged to
-- another place, until a new id is taken.
CREATE TABLE replication_outbox (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	host_id    TEXT,
	chat_id    TEXT    NOT NULL,
	lane_seq   INTEGER NOT NULL,
	kind       TEXT    NOT NULL,
	payload    BLOB    NOT NULL,
	digest     TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (chat_id, lane_seq)
);
