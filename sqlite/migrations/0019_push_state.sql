-- 0019: what the push worker of replication keeps across restarts (docs/REPLICATION.md): the
-- lanes it quarantined on a permanent refusal, with the one diagnostic, and the time of the
-- last push the remote acknowledged.
CREATE TABLE replication_quarantine (
	chat_id TEXT    PRIMARY KEY,
	op_id   TEXT    NOT NULL,
	status  INTEGER NOT NULL,
	code    TEXT    NOT NULL,
	message TEXT    NOT NULL,
	at      INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE replication_push (
	singleton    INTEGER PRIMARY KEY CHECK (singleton = 1),
	last_success INTEGER NOT NULL
);
