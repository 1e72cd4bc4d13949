-- 0013: what the push worker of replication keeps across restarts (docs/REPLICATION.md): the
-- lanes it quarantined on a permanent refusal, with the one diagnostic, and the time of the
-- last push the remote acknowledged.
CREATE TABLE replication_quarantine (
	chat_id text    PRIMARY KEY,
	op_id   text    NOT NULL,
	status  integer NOT NULL,
	code    text    NOT NULL,
	message text    NOT NULL,
	at      bigint  NOT NULL
);

CREATE TABLE replication_push (
	singleton    integer PRIMARY KEY CHECK (singleton = 1),
	last_success bigint  NOT NULL
);
